// The distribution/reference grammar: the accept/reject tables of upstream's
// reference_test.go and regexp_test.go, plus the inputs an admission webhook
// meets in the wild.
#include "model_image_webhook/image_reference.hpp"

#include <catch2/catch.hpp>

#include <string>

using miw::parse_image_reference;
using miw::ReferencePart;

namespace {

const std::string kSha256 = "sha256:ffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff";
const std::string kSha512 = "sha512:" + std::string(128, 'f');

std::string repeat(const std::string& s, int n) {
    std::string out;
    for (int i = 0; i < n; ++i) out += s;
    return out;
}

struct Accepted {
    std::string name;
    std::string input;
    std::string domain;
    std::string path;
    std::string tag;
    std::string digest;
};

struct Rejected {
    std::string name;
    std::string input;
    ReferencePart part;
    std::string says;  // a fragment the message must hold
};

}  // namespace

TEST_CASE("image references that follow the grammar are split into their parts", "[image_reference]") {
    const std::vector<Accepted> cases = {
        // upstream reference_test.go TestReferenceParse
        {"name with underscore", "test_com", "", "test_com", "", ""},
        {"dotted name with tag", "test.com:tag", "", "test.com", "tag", ""},
        {"dotted name with numeric tag", "test.com:5000", "", "test.com", "5000", ""},
        {"domain, path and tag", "test.com/repo:tag", "test.com", "repo", "tag", ""},
        {"domain with port", "test:5000/repo", "test:5000", "repo", "", ""},
        {"domain with port and tag", "test:5000/repo:tag", "test:5000", "repo", "tag", ""},
        {"domain with port and digest", "test:5000/repo@" + kSha256, "test:5000", "repo", "", kSha256},
        {"tag and digest", "test:5000/repo:tag@" + kSha256, "test:5000", "repo", "tag", kSha256},
        {"bare name with digest", "repo@" + kSha256, "", "repo", "", kSha256},
        {"uppercase tag", "lowercase:Uppercase", "", "lowercase", "Uppercase", ""},
        {"name of exactly 255 characters", repeat("a/", 127) + "a:tag-puts-this-over-max", "a", repeat("a/", 126) + "a", "tag-puts-this-over-max", ""},
        {"hyphenated subdomain", "sub-dom1.foo.com/bar/baz/quux", "sub-dom1.foo.com", "bar/baz/quux", "", ""},
        {"long tag", "sub-dom1.foo.com/bar/baz/quux:some-long-tag", "sub-dom1.foo.com", "bar/baz/quux", "some-long-tag", ""},
        {"dots in path and tag", "b.gcr.io/test.example.com/my-app:test.example.com", "b.gcr.io", "test.example.com/my-app", "test.example.com", ""},
        {"punycode domain", "xn--n3h.com/myimage:xn--n3h.com", "xn--n3h.com", "myimage", "xn--n3h.com", ""},
        {"sha512 digest", "xn--7o8h.com/myimage:xn--7o8h.com@" + kSha512, "xn--7o8h.com", "myimage", "xn--7o8h.com", kSha512},
        {"underscore name with numeric tag", "foo_bar.com:8080", "", "foo_bar.com", "8080", ""},
        {"underscore path component", "foo/foo_bar.com:8080", "foo", "foo_bar.com", "8080", ""},
        {"ipv4 as a name", "192.168.1.1", "", "192.168.1.1", "", ""},
        {"ipv4 as a name with tag", "192.168.1.1:tag", "", "192.168.1.1", "tag", ""},
        {"ipv4 as a name with numeric tag", "192.168.1.1:5000", "", "192.168.1.1", "5000", ""},
        {"ipv4 domain", "192.168.1.1/repo", "192.168.1.1", "repo", "", ""},
        {"ipv4 domain with port", "192.168.1.1:5000/repo", "192.168.1.1:5000", "repo", "", ""},
        {"ipv4 domain with port and tag", "192.168.1.1:5000/repo:5050", "192.168.1.1:5000", "repo", "5050", ""},
        {"ipv6 domain", "[2001:db8::1]/repo", "[2001:db8::1]", "repo", "", ""},
        {"full ipv6 domain with tag", "[2001:db8:1:2:3:4:5:6]/repo:tag", "[2001:db8:1:2:3:4:5:6]", "repo", "tag", ""},
        {"ipv6 domain with port", "[2001:db8::1]:5000/repo", "[2001:db8::1]:5000", "repo", "", ""},
        {"ipv6 domain with port and tag", "[2001:db8::1]:5000/repo:tag", "[2001:db8::1]:5000", "repo", "tag", ""},
        {"ipv6 domain with port and digest", "[2001:db8::1]:5000/repo@" + kSha256, "[2001:db8::1]:5000", "repo", "", kSha256},
        {"ipv6 domain with tag and digest", "[2001:db8::1]:5000/repo:tag@" + kSha256, "[2001:db8::1]:5000", "repo", "tag", kSha256},
        {"ipv6 ending in ::", "[2001:db8::]:5000/repo", "[2001:db8::]:5000", "repo", "", ""},
        {"ipv6 loopback", "[::1]:5000/repo", "[::1]:5000", "repo", "", ""},
        // upstream regexp_test.go TestDomainRegexp, as the domain of a reference
        {"domain test.com:10304", "test.com:10304/repo", "test.com:10304", "repo", "", ""},
        {"domain localhost", "localhost/repo", "localhost", "repo", "", ""},
        {"domain localhost:8080", "localhost:8080/repo", "localhost:8080", "repo", "", ""},
        {"domain a.b", "a.b/repo", "a.b", "repo", "", ""},
        {"domain ab.cd.com", "ab.cd.com/repo", "ab.cd.com", "repo", "", ""},
        {"domain a-b.com", "a-b.com/repo", "a-b.com", "repo", "", ""},
        {"domain ab.c-om", "ab.c-om/repo", "ab.c-om", "repo", "", ""},
        {"domain 0101.com", "0101.com/repo", "0101.com", "repo", "", ""},
        {"domain 001a.com", "001a.com/repo", "001a.com", "repo", "", ""},
        {"domain b.gbc.io:443", "b.gbc.io:443/repo", "b.gbc.io:443", "repo", "", ""},
        {"uppercase domain", "Asdf.com/foo/bar", "Asdf.com", "foo/bar", "", ""},
        {"port past 65535 (not range-checked by the grammar)", "192.168.1.1:75050/repo", "192.168.1.1:75050", "repo", "", ""},
        {"compressed ipv6 with port", "[fd00:1:2::3]:75050/repo", "[fd00:1:2::3]:75050", "repo", "", ""},
        {"ipv6 of hex digits only", "[fd00123123123]:75050/repo", "[fd00123123123]:75050", "repo", "", ""},
        {"long-form ipv6", "[2001:0db8:85a3:0000:0000:8a2e:0370:7334]:75050/repo", "[2001:0db8:85a3:0000:0000:8a2e:0370:7334]:75050", "repo", "", ""},
        {"uppercase ipv6", "[2001:DB8:0:0:8:800:200C:417A]:5000/repo", "[2001:DB8:0:0:8:800:200C:417A]:5000", "repo", "", ""},
        // upstream regexp_test.go TestFullNameRegexp
        {"short", "short", "", "short", "", ""},
        {"simple/name", "simple/name", "simple", "name", "", ""},
        {"three components", "docker/stevvooe/app", "docker", "stevvooe/app", "", ""},
        {"fifteen components", "aa/aa/aa/aa/aa/aa/aa/aa/aa/bb/bb/bb/bb/bb/bb", "aa", "aa/aa/aa/aa/aa/aa/aa/aa/bb/bb/bb/bb/bb/bb", "", ""},
        {"single letters", "a/a/a/a", "a", "a/a/a", "", ""},
        {"one letter", "a", "", "a", "", ""},
        {"dotted name", "foo.com", "", "foo.com", "", ""},
        {"hyphen in domain", "aa-a/a", "aa-a", "a", "", ""},
        {"underscore separator", "foo_bar", "", "foo_bar", "", ""},
        {"double underscore separator", "example.com/some_separator__underscore/myimage", "example.com", "some_separator__underscore/myimage", "", ""},
        {"double underscore first component is a path", "do__cker/docker", "", "do__cker/docker", "", ""},
        {"runs of dashes", "registry.io/foo/project--id.module--name.ver---sion--name", "registry.io", "foo/project--id.module--name.ver---sion--name", "", ""},
        {"punycode path", "example.com/xn--7o8h.com/myimage", "example.com", "xn--7o8h.com/myimage", "", ""},
        // upstream regexp_test.go TestReferenceRegexp
        {"localhost name with numeric tag and digest", "localhost:8080@sha256:be178c0543eb17f5f3043021c9e5fcf30285e557a4fc309cce97ff9ca6182912", "", "localhost", "8080",
         "sha256:be178c0543eb17f5f3043021c9e5fcf30285e557a4fc309cce97ff9ca6182912"},
        {"localhost bare name with digest", "localhost@sha256:be178c0543eb17f5f3043021c9e5fcf30285e557a4fc309cce97ff9ca6182912", "", "localhost", "",
         "sha256:be178c0543eb17f5f3043021c9e5fcf30285e557a4fc309cce97ff9ca6182912"},
        // this product's own cases
        {"the product page's form", "registry.example.com/team/qwen@sha256:669ed7b1c3a7b92d0e0f6f2d7ab1f19a4b1b55e1f52a8d1f1d1c2b3a4d5e6f48", "registry.example.com", "team/qwen", "",
         "sha256:669ed7b1c3a7b92d0e0f6f2d7ab1f19a4b1b55e1f52a8d1f1d1c2b3a4d5e6f48"},
        {"period separator", "r.io/a.b", "r.io", "a.b", "", ""},
        {"single dash separator", "r.io/a-b", "r.io", "a-b", "", ""},
        {"tag of 128 characters", "r.io/a:" + std::string(128, 't'), "r.io", "a", std::string(128, 't'), ""},
        {"tag starting with underscore", "r.io/a:_x", "r.io", "a", "_x", ""},
        {"digest with algorithm separator", "r.io/a@multihash+base58:" + std::string(32, 'a'), "r.io", "a", "", "multihash+base58:" + std::string(32, 'a')},
        {"uppercase hex passes the grammar", "r.io/a@sha256:" + std::string(64, 'A'), "r.io", "a", "", "sha256:" + std::string(64, 'A')},
    };
    for (const auto& c : cases) {
        DYNAMIC_SECTION(c.name) {
            const auto parsed = parse_image_reference(c.input);
            INFO(c.input << " -> " << parsed.error.message);
            REQUIRE(parsed.ok());
            const auto& ref = *parsed.reference;
            CHECK(ref.domain == c.domain);
            CHECK(ref.path == c.path);
            CHECK(ref.tag == c.tag);
            CHECK(ref.digest == c.digest);
            CHECK(ref.name == (c.domain.empty() ? c.path : c.domain + "/" + c.path));
            if (!c.digest.empty()) CHECK(std::string(ref.digest_algorithm) + ":" + std::string(ref.digest_hex) == c.digest);
        }
    }
}

TEST_CASE("image references outside the grammar name the part that is wrong", "[image_reference]") {
    const std::vector<Rejected> cases = {
        // upstream reference_test.go TestReferenceParse
        {"empty", "", ReferencePart::reference, "empty"},
        {"tag without a name", ":justtag", ReferencePart::path, "repository name is missing"},
        {"digest without a name", "@" + kSha256, ReferencePart::path, "repository name is missing"},
        {"uppercase bare name", "Uppercase:tag", ReferencePart::path, "must be lowercase"},
        {"uppercase path after a port", "test:5000/Uppercase/lowercase:tag", ReferencePart::path, "must be lowercase"},
        {"name over 255 characters", repeat("a/", 128) + "a:tag", ReferencePart::path, "at most 255"},
        {"dollar signs", "aa/asdf$$^/aa", ReferencePart::path, "'$'"},
        {"bare ipv6", "[2001:db8::1]", ReferencePart::domain, "followed by '/'"},
        {"bare ipv6 with port", "[2001:db8::1]:5000", ReferencePart::domain, ""},
        {"bare ipv6 with tag", "[2001:db8::1]:tag", ReferencePart::domain, ""},
        {"ipv6 zone", "[fe80::1%eth0]:5000/repo", ReferencePart::domain, "zones"},
        {"ipv6 zone with @", "[fe80::1%@invalidzone]:5000/repo", ReferencePart::reference, ""},
        // upstream regexp_test.go TestDomainRegexp, as the domain of a reference
        {"non-numeric port", "test.com:http/repo", ReferencePart::domain, "not a number"},
        {"domain starting with dash", "-ab.com/repo", ReferencePart::path, ""},
        {"domain component ending with dash", "ab-.com/repo", ReferencePart::path, ""},
        {"domain component starting with dash", "ab.-com/repo", ReferencePart::path, ""},
        {"domain ending with dash", "ab.com-/repo", ReferencePart::path, ""},
        {"ipv6 without port separator", "[fd00:1:2::3]75050/repo", ReferencePart::domain, "expected ':'"},
        {"ipv6 with double colon before port", "[fd00:1:2::3]::75050/repo", ReferencePart::domain, "not a number"},
        {"ipv6 zone after bracket", "[fd00:1:2::3]%eth0:75050/repo", ReferencePart::domain, ""},
        {"unbracketed ipv6", "fd00:1:2::3:75050/repo", ReferencePart::domain, ""},
        // upstream regexp_test.go TestFullNameRegexp
        {"trailing slash", "a/a/a/a/", ReferencePart::path, "empty path component"},
        {"double slash", "a//a/a", ReferencePart::path, "empty path component"},
        {"name ending in slash", "foo.com/", ReferencePart::path, "empty path component"},
        {"caret", "a^a", ReferencePart::path, "'^'"},
        {"dollar in first component", "asdf$$^/aa", ReferencePart::path, "'$'"},
        {"component ending with dash", "a-/a/a/a", ReferencePart::path, "separator"},
        {"path component ending with dash", "foo.com/a-/a/a", ReferencePart::path, "separator"},
        {"component starting with dash", "-foo/bar", ReferencePart::path, ""},
        {"last component ending with dash", "foo/bar-", ReferencePart::path, "separator"},
        {"first component ending with dash", "foo-/bar", ReferencePart::path, ""},
        {"component starting with dash after domain", "foo/-bar", ReferencePart::path, "'-'"},
        {"component starting with underscore", "_foo/bar", ReferencePart::path, "'_'"},
        {"underscore domain with port as a name", "foo_bar.com:8080/app", ReferencePart::domain, "'_'"},
        {"underscores only", "____/____", ReferencePart::path, ""},
        {"leading underscores", "_docker/_docker", ReferencePart::path, ""},
        {"trailing underscores", "docker_/docker_", ReferencePart::path, ""},
        {"leading double underscore", "example.com/__underscore/myimage", ReferencePart::path, "'_'"},
        {"leading double dot", "example.com/..dots/myimage", ReferencePart::path, "'.'"},
        {"leading dot", "example.com/.dots/myimage", ReferencePart::path, "'.'"},
        {"double dot", "example.com/nodouble..dots/myimage", ReferencePart::path, "'.'"},
        {"first component ending with dot", "docker./docker", ReferencePart::path, ""},
        {"first component starting with dot", ".docker/docker", ReferencePart::path, ""},
        {"first component ending with dash again", "docker-/docker", ReferencePart::path, ""},
        {"first component starting with dash", "-docker/docker", ReferencePart::path, ""},
        {"double dot in first component", "do..cker/docker", ReferencePart::path, ""},
        {"double underscore domain with port", "do__cker:8080/docker", ReferencePart::domain, ""},
        {"uppercase path", "Foo/FarB", ReferencePart::path, "must be lowercase"},
        // upstream regexp_test.go TestReferenceRegexp
        {"digest too short", "registry.com:8080/myapp@sha256:badbadbadbad", ReferencePart::digest, "at least 32"},
        {"tilde in tag", "registry.com:8080/myapp:invalid~tag", ReferencePart::tag, "'~'"},
        {"underscore in domain", "bad_hostname.com:8080/myapp:tag", ReferencePart::domain, "'_'"},
        {"non-numeric port with digest", "localhost:http/name@sha256:be178c0543eb17f5f3043021c9e5fcf30285e557a4fc309cce97ff9ca6182912", ReferencePart::domain, ""},
        {"digest without algorithm", "registry.com:8080/myapp@bad", ReferencePart::digest, "no ':'"},
        {"digest algorithm starting with a digit", "registry.com:8080/myapp@2bad", ReferencePart::digest, ""},
        // this product's own cases
        {"cyrillic a homoglyph", "registry.example.com/te\xd0\xb0m/model@" + kSha256, ReferencePart::reference, "U+0430"},
        {"fullwidth colon homoglyph", "registry.example.com/team/model\xef\xbc\x9a" "v1", ReferencePart::reference, "U+FF1A"},
        {"invalid UTF-8 byte", "registry.example.com/\xff", ReferencePart::reference, "byte 0xFF"},
        {"NUL byte", std::string("registry.example.com/a\0b", 24), ReferencePart::reference, "NUL"},
        {"leading space", " registry.example.com/a", ReferencePart::reference, "whitespace"},
        {"trailing newline", "registry.example.com/a\n", ReferencePart::reference, "line feed"},
        {"tab inside", "registry.example.com/a\tb", ReferencePart::reference, "tab"},
        {"DEL control character", "registry.example.com/a\x7f", ReferencePart::reference, "control character"},
        {"one megabyte of letters", std::string(1 << 20, 'a'), ReferencePart::path, "at most 255"},
        {"one megabyte of slashes", std::string(1 << 20, '/'), ReferencePart::path, "empty path component"},
        {"tag of 129 characters", "r.io/a:" + std::string(129, 't'), ReferencePart::tag, "at most 128"},
        {"empty tag", "r.io/a:", ReferencePart::tag, "empty tag"},
        {"tag starting with dot", "r.io/a:.x", ReferencePart::tag, "cannot start a tag"},
        {"tag starting with dash", "r.io/a:-x", ReferencePart::tag, "cannot start a tag"},
        {"two tags", "r.io/a:b:c", ReferencePart::tag, "':'"},
        {"two digests", "r.io/a@" + kSha256 + "@" + kSha256, ReferencePart::digest, "second '@'"},
        {"digest with non-hex", "r.io/a@sha256:" + std::string(63, 'f') + "g", ReferencePart::digest, "'g'"},
        {"empty digest algorithm", "r.io/a@:" + std::string(64, 'f'), ReferencePart::digest, "empty"},
        {"digest algorithm ending with separator", "r.io/a@sha256+:" + std::string(64, 'f'), ReferencePart::digest, "ends with a separator"},
        {"empty port", "r.io:/a", ReferencePart::domain, "empty port"},
        {"empty domain component", "r..io:5000/a", ReferencePart::domain, "empty domain component"},
        {"unclosed ipv6 bracket", "[::1/a", ReferencePart::domain, "never closes"},
        {"empty ipv6 brackets", "[]:5000/a", ReferencePart::domain, "empty IPv6"},
        {"scheme prefix", "https://r.io/a", ReferencePart::domain, ""},
        {"triple underscore", "r.io/a___b", ReferencePart::path, "'_'"},
        {"dot after underscore", "r.io/a_.b", ReferencePart::path, "'.'"},
    };
    for (const auto& c : cases) {
        DYNAMIC_SECTION(c.name) {
            const auto parsed = parse_image_reference(c.input);
            REQUIRE_FALSE(parsed.ok());
            INFO("message: " << parsed.error.message);
            if (c.part != ReferencePart::reference || !c.says.empty()) CHECK(parsed.error.part == c.part);
            CHECK_THAT(parsed.error.message, Catch::Contains(c.says));
            CHECK(parsed.error.offset <= c.input.size());
            CHECK_FALSE(parsed.error.message.empty());
        }
    }
}

TEST_CASE("error offsets point at the offending character", "[image_reference]") {
    const auto parsed = parse_image_reference("registry.example.com/team/Model@" + kSha256);
    REQUIRE_FALSE(parsed.ok());
    CHECK(parsed.error.part == ReferencePart::path);
    CHECK(parsed.error.offset == 26);
    CHECK_THAT(parsed.error.message, Catch::Contains("character 27"));
}
