// RFC 6902 applied, as the test mode applies the webhook's patches.
#include "model_image_webhook/manifest.hpp"

#include <catch2/catch.hpp>

#include <string>
#include <vector>

using namespace miw;

TEST_CASE("patches apply as RFC 6902 says", "[json_patch_apply]") {
    struct Case {
        const char* name;
        std::string document;
        std::string patch;
        std::string result;  // empty when the patch must fail
        std::string error;
    };
    const std::vector<Case> cases = {
        {"add a member", R"({"a":1})", R"([{"op":"add","path":"/b","value":[1]}])", R"({"a":1,"b":[1]})", ""},
        {"add replaces an existing member", R"({"a":1})", R"([{"op":"add","path":"/a","value":2}])", R"({"a":2})", ""},
        {"add at an index", R"({"l":[1,3]})", R"([{"op":"add","path":"/l/1","value":2}])", R"({"l":[1,2,3]})", ""},
        {"add at the end", R"({"l":[1]})", R"([{"op":"add","path":"/l/-","value":2}])", R"({"l":[1,2]})", ""},
        {"remove a member", R"({"a":1,"b":2})", R"([{"op":"remove","path":"/a"}])", R"({"b":2})", ""},
        {"remove from the highest index down", R"({"l":[0,1,2,3]})", R"([{"op":"remove","path":"/l/3"},{"op":"remove","path":"/l/1"}])",
         R"({"l":[0,2]})", ""},
        {"replace", R"({"a":{"b":1}})", R"([{"op":"replace","path":"/a/b","value":"x"}])", R"({"a":{"b":"x"}})", ""},
        {"escaped tokens", R"({"a/b":{"c~d":1}})", R"([{"op":"replace","path":"/a~1b/c~0d","value":2}])", R"({"a/b":{"c~d":2}})", ""},
        {"an empty patch", R"({"a":1})", "[]", R"({"a":1})", ""},
        {"a missing member on the way", R"({"a":1})", R"([{"op":"add","path":"/x/y","value":1}])", "", "goes through a missing member"},
        {"an index past the end", R"({"l":[1]})", R"([{"op":"remove","path":"/l/5"}])", "", "bad array index"},
        {"a leading zero index", R"({"l":[1,2]})", R"([{"op":"remove","path":"/l/01"}])", "", "bad array index"},
        {"through a scalar", R"({"a":1})", R"([{"op":"add","path":"/a/b","value":1}])", "", "goes through a scalar"},
        {"an unsupported op", R"({"a":1})", R"([{"op":"move","from":"/a","path":"/b"}])", "", "is not supported"},
        {"no path", R"({"a":1})", R"([{"op":"remove"}])", "", "without a path"},
        {"a patch that is not an array", R"({"a":1})", R"({"op":"remove","path":"/a"})", "", "not a JSON array"},
        {"a document that is not JSON", "{", "[]", "", "the document"},
    };
    for (const auto& c : cases) {
        DYNAMIC_SECTION(c.name) {
            const Result<std::string> out = apply_json_patch(c.document, c.patch);
            if (c.error.empty()) {
                REQUIRE(out.ok());
                CHECK(*out == c.result);
            } else {
                REQUIRE_FALSE(out.ok());
                CHECK_THAT(out.error(), Catch::Contains(c.error));
            }
        }
    }
}
