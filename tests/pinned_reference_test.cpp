// The digest contract: which references pin one image, and what the user is
// told when one does not.
#include "model_image_webhook/pinned_reference.hpp"

#include <catch2/catch.hpp>

#include <string>

using miw::check_pinned_reference;
using miw::DigestAlgorithms;

namespace {
const std::string kHex64 = "9372c470eeadd5ecd9c3c74c2b3cb633f8e2f2fad799250a0f70d652b6b825e4";
const std::string kHex128 = kHex64 + kHex64;
const DigestAlgorithms kSha256Only{true, false};
const DigestAlgorithms kBoth{true, true};
const DigestAlgorithms kSha512Only{false, true};
}  // namespace

TEST_CASE("digest-pinned references are accepted", "[pinned_reference]") {
    struct Case {
        const char* name;
        std::string reference;
        DigestAlgorithms algorithms;
    };
    const Case cases[] = {
        {"registry with port and deep path", "registry.example.com:5000/gpustack/models/llama-3.1-8b-instruct@sha256:" + kHex64, kSha256Only},
        {"bare repository", "qwen@sha256:" + kHex64, kSha256Only},
        {"ipv6 registry, brackets are not patterns", "[fd00::1]:5000/team/qwen@sha256:" + kHex64, kSha256Only},
        {"sha512 where allowed", "r.io/team/qwen@sha512:" + kHex128, kBoth},
        {"sha512 alone", "r.io/team/qwen@sha512:" + kHex128, kSha512Only},
    };
    for (const auto& c : cases) {
        DYNAMIC_SECTION(c.name) {
            const auto check = check_pinned_reference(c.reference, c.algorithms);
            INFO(check.detail);
            CHECK(check.ok());
            CHECK(check.warnings.empty());
        }
    }
}

TEST_CASE("a tag beside the digest is allowed with a warning that it is ignored", "[pinned_reference]") {
    const auto check = check_pinned_reference("registry.example.com/gpustack/models/llama:3.1@sha256:" + kHex64, kSha256Only);
    REQUIRE(check.ok());
    REQUIRE(check.warnings.size() == 1);
    CHECK(check.warnings[0].text() == "tag \"3.1\" is ignored; the digest sha256:9372c470eead... is what is pulled");
}

TEST_CASE("references that do not pin one image are refused with the rule and the fix", "[pinned_reference]") {
    struct Case {
        const char* name;
        std::string reference;
        DigestAlgorithms algorithms;
        const char* rule;
        std::vector<std::string> says;
    };
    const Case cases[] = {
        {"tag only", "registry.example.com/team/qwen:v1", kSha256Only, "digest-required",
         {"a tag is mutable", "different weights on different pulls", "registry.example.com/team/qwen@sha256:<64 lowercase hex>"}},
        {"bare name", "registry.example.com/team/qwen", kSha256Only, "digest-required", {"no digest", "registry.example.com/team/qwen@sha256"}},
        {"latest tag", "qwen:latest", kSha256Only, "digest-required", {"qwen@sha256"}},
        {"uppercase hex", "r.io/qwen@sha256:" + std::string(64, 'A'), kSha256Only, "digest-invalid", {"lowercase", "r.io/qwen@sha256:"}},
        {"short hex", "r.io/qwen@sha256:" + kHex64.substr(0, 40), kSha256Only, "digest-invalid", {"40 hex digits", "exactly 64"}},
        {"too long hex", "r.io/qwen@sha256:" + kHex64 + "00", kSha256Only, "digest-invalid", {"66 hex digits"}},
        {"hex under 32 digits", "r.io/qwen@sha256:abc123", kSha256Only, "digest-invalid", {"at least 32"}},
        {"unknown algorithm", "r.io/qwen@md5:" + kHex64, kSha256Only, "digest-invalid", {"\"md5\" is not accepted", "r.io/qwen@sha256"}},
        {"sha512 by default", "r.io/qwen@sha512:" + kHex128, kSha256Only, "digest-invalid", {"--digest-algorithms sha256,sha512"}},
        {"sha256 where only sha512 is allowed", "r.io/qwen@sha256:" + kHex64, kSha512Only, "digest-invalid", {"sha512:<128 lowercase hex>"}},
        {"short sha512", "r.io/qwen@sha512:" + kHex64, kBoth, "digest-invalid", {"exactly 128"}},
        {"digest without algorithm", "r.io/qwen@" + kHex64, kSha256Only, "digest-invalid", {"no ':'"}},
        {"star", "registry.example.com/team/qwen-*@sha256:" + kHex64, kSha256Only, "reference-pattern",
         {"'*' at character 32", "mounted whole", "no listing to select from"}},
        {"question mark", "r.io/qwen?", kSha256Only, "reference-pattern", {"'?'"}},
        {"character class", "r.io/qwen[0-9]", kSha256Only, "reference-pattern", {"'['"}},
        {"brace alternatives", "r.io/{a,b}@sha256:" + kHex64, kSha256Only, "reference-pattern", {"'{'"}},
        {"star inside ipv6 brackets", "[fd00::*]:5000/q@sha256:" + kHex64, kSha256Only, "reference-pattern", {"'['"}},
        {"closing bracket after ipv6 host", "[fd00::1]:5000/q]@sha256:" + kHex64, kSha256Only, "reference-pattern", {"']'"}},
        {"uppercase repository", "r.io/Qwen@sha256:" + kHex64, kSha256Only, "reference-invalid", {"must be lowercase", "(in the path)"}},
        {"space inside", "r.io/qwen @sha256:" + kHex64, kSha256Only, "reference-invalid", {"whitespace"}},
        {"over 1024 characters", "r.io/" + std::string(1100, 'a'), kSha256Only, "reference-too-long", {"1105 characters", "at most 1024"}},
    };
    for (const auto& c : cases) {
        DYNAMIC_SECTION(c.name) {
            const auto check = check_pinned_reference(c.reference, c.algorithms);
            REQUIRE_FALSE(check.ok());
            CHECK(check.rule->id == c.rule);
            for (const auto& fragment : c.says) CHECK_THAT(check.detail, Catch::Contains(fragment));
        }
    }
}
