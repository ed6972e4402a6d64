// Image globs as policy-controller's pkg/apis/glob matches them (its own
// test table's shapes: "*" within a path segment, "**" across them, Docker
// Hub's names in full).
#include "model_image_webhook/image_glob.hpp"

#include <catch2/catch.hpp>

using namespace miw;

namespace {

const std::string kDigest = "@sha256:" + std::string(64, 'a');

}  // namespace

TEST_CASE("a glob matches as its regular expression would", "[image_glob]") {
    struct Case {
        const char* glob;
        const char* name;
        bool matches;
    };
    const Case cases[] = {
        {"registry.example.com/models/qwen", "registry.example.com/models/qwen", true},
        {"registry.example.com/models/*", "registry.example.com/models/qwen", true},
        {"registry.example.com/models/*", "registry.example.com/models/team/qwen", false},
        {"registry.example.com/**", "registry.example.com/models/team/qwen", true},
        {"registry.example.com/**", "registry.example.com", false},
        {"**x*", "ax/bx", true},  // a star ends where a later one begins
        {"**x*", "ax/b", false},  // after its x, a star cannot take "/b"
        {"*x*", "ax/bx", false},
        {"registry.*.com/m", "registry.example.com/m", true},
        {"registry.*.com/m", "registry.a/b.com/m", false},
        {"registry.example.com/m:**", "registry.example.com/m:v1", true},
        {"***", "a/b", true},
        {"", "", true},
        {"a", "", false},
    };
    for (const Case& c : cases) {
        DYNAMIC_SECTION(c.glob << " ~ " << c.name) { CHECK(glob_matches(c.glob, c.name) == c.matches); }
    }
}

TEST_CASE("a pinned reference is matched by its full name, then as written", "[image_glob]") {
    struct Case {
        const char* glob;
        std::string reference;
        bool matches;
    };
    const Case cases[] = {
        {"registry.example.com/models/**", "registry.example.com/models/qwen" + kDigest, true},
        {"registry.example.com/models/*", "registry.example.com/models/qwen" + kDigest, true},
        {"index.docker.io/library/*", "qwen" + kDigest, true},
        {"*", "qwen" + kDigest, true},
        {"*/*", "team/qwen" + kDigest, true},
        {"index.docker.io/team/**", "docker.io/team/qwen" + kDigest, true},
        {"registry.example.com/models/**", "registry.example.com/models/qwen:v1" + kDigest, true},
        {"registry.example.com/other/**", "registry.example.com/models/qwen" + kDigest, false},
        {"qwen*", "qwen" + kDigest, true},  // as written, failing the full name
    };
    for (const Case& c : cases) {
        DYNAMIC_SECTION(c.glob << " ~ " << c.reference) {
            Result<ImageGlob> glob = ImageGlob::compile(c.glob);
            REQUIRE(glob);
            CHECK(glob->matches(c.reference) == c.matches);
        }
    }
}

TEST_CASE("a glob with a character no image name holds is refused", "[image_glob]") {
    // "@" too: policy-controller's globs name repositories, never a digest.
    for (const char* bad : {"registry.example.com/models/[a-z]*", "registry.example.com/m?", "re gistry/x", "a|b", "", "registry.example.com/m@sha256:*"}) {
        INFO(bad);
        CHECK_FALSE(ImageGlob::compile(bad));
    }
}
