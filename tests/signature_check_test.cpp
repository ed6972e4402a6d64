// The rules of --signature-policy over a scripted source: which policies
// match, what enforce refuses and warn warns, and that an image no policy
// matches is never asked about.
#include "model_image_webhook/signature_check.hpp"

#include <catch2/catch.hpp>

#include <map>

using namespace miw;

namespace {

ImagePolicy policy(std::string name, std::vector<std::string> globs, bool enforce = true) {
    ImagePolicy p;
    p.name = std::move(name);
    for (const std::string& g : globs) p.images.push_back(*ImageGlob::compile(g));
    p.enforce = enforce;
    return p;
}

// Answers by policy index, and counts each question.
class ScriptedSignatures : public SignatureSource {
public:
    explicit ScriptedSignatures(std::map<std::size_t, SignatureOutcome> answers) : answers_(std::move(answers)) {}
    SignatureOutcome verify(std::string_view, std::size_t index, const PullSecretsRef*) const override {
        ++asked;
        return answers_.at(index);
    }
    mutable int asked = 0;

private:
    std::map<std::size_t, SignatureOutcome> answers_;
};

constexpr std::string_view kField = "spec.source.image.reference";
constexpr std::string_view kReference = "registry.example.com/models/qwen@sha256:1111111111111111111111111111111111111111111111111111111111111111";

}  // namespace

TEST_CASE("a policy whose glob matches is asked; one that does not is not", "[signature_check]") {
    SignaturePolicy set;
    set.policies = {policy("models", {"registry.example.com/models/**"}), policy("other", {"registry.example.com/other/*"})};
    CHECK(matching_policies(set, kReference) == std::vector<std::size_t>{0});
    ScriptedSignatures source({{0, {SignatureStatus::verified, "verified by a"}}});
    const SignatureVerdict v = check_signatures(kField, kReference, &set, &source);
    CHECK_FALSE(v.refusal);
    CHECK(v.warnings.empty());
    CHECK(source.asked == 1);
}

TEST_CASE("an image no policy matches is admitted without a question", "[signature_check]") {
    SignaturePolicy set;
    set.policies = {policy("other", {"quay.io/**"})};
    ScriptedSignatures source({});
    const SignatureVerdict v = check_signatures(kField, kReference, &set, &source);
    CHECK_FALSE(v.refusal);
    CHECK(source.asked == 0);
}

TEST_CASE("enforce refuses each way a policy fails, naming it and what to do", "[signature_check]") {
    struct Case {
        const char* name;
        SignatureOutcome outcome;
        const char* words;
    };
    const Case cases[] = {
        {"nothing found", {SignatureStatus::unsigned_image, "no sigstore bundle referrer and no .sig tag"},
         "the ClusterImagePolicy models asks for a signature and none of this digest was found (no sigstore bundle referrer and no .sig tag): sign the image"},
        {"no authority verifies", {SignatureStatus::mismatch, "a: the signature does not verify"},
         "no authority of the ClusterImagePolicy models verifies a signature of this digest (a: the signature does not verify): pin a digest signed"},
        {"the registry does not answer", {SignatureStatus::unavailable, "unreachable: the registry r could not be reached"},
         "could not be fetched for the ClusterImagePolicy models (unreachable: the registry r could not be reached), and an image whose signature cannot be checked is not admitted"},
    };
    for (const Case& c : cases) {
        SECTION(c.name) {
            SignaturePolicy set;
            set.policies = {policy("models", {"**"})};
            ScriptedSignatures source({{0, c.outcome}});
            const SignatureVerdict v = check_signatures(kField, kReference, &set, &source);
            REQUIRE(v.refusal);
            CHECK_THAT(*v.refusal, Catch::Contains(c.words));
            CHECK(v.warnings.empty());
        }
    }
}

TEST_CASE("warn admits with a warning that names the policy and why", "[signature_check]") {
    SignaturePolicy set;
    set.policies = {policy("staging", {"**"}, false)};
    ScriptedSignatures source({{0, {SignatureStatus::unsigned_image, "no sigstore bundle referrer and no .sig tag"}}});
    const SignatureVerdict v = check_signatures(kField, kReference, &set, &source);
    CHECK_FALSE(v.refusal);
    REQUIRE(v.warnings.size() == 1);
    CHECK(v.warnings[0] ==
          "spec.source.image.reference: the ClusterImagePolicy staging (warn) does not verify the model image (unsigned: no sigstore bundle referrer and no .sig tag)");
}

TEST_CASE("every matching policy must pass: one enforce failure refuses whatever the others say", "[signature_check]") {
    SignaturePolicy set;
    set.policies = {policy("passes", {"**"}), policy("warns", {"registry.example.com/**"}, false), policy("refuses", {"*.example.com/models/*"})};
    ScriptedSignatures source({{0, {SignatureStatus::verified, ""}}, {1, {SignatureStatus::mismatch, "b: other key"}}, {2, {SignatureStatus::unsigned_image, "none"}}});
    const SignatureVerdict v = check_signatures(kField, kReference, &set, &source);
    REQUIRE(v.refusal);
    CHECK_THAT(*v.refusal, Catch::Contains("ClusterImagePolicy refuses"));
    CHECK(v.warnings.size() == 1);
    CHECK(source.asked == 3);
}

TEST_CASE("without a policy or a source nothing is checked", "[signature_check]") {
    SignaturePolicy set;
    set.policies = {policy("models", {"**"})};
    ScriptedSignatures source({});
    CHECK_FALSE(check_signatures(kField, kReference, nullptr, &source).refusal);
    CHECK_FALSE(check_signatures(kField, kReference, &set, nullptr).refusal);
    CHECK(source.asked == 0);
}

TEST_CASE("each status has its metric label", "[signature_check]") {
    CHECK(to_string(SignatureStatus::verified) == "verified");
    CHECK(to_string(SignatureStatus::unsigned_image) == "unsigned");
    CHECK(to_string(SignatureStatus::mismatch) == "mismatch");
    CHECK(to_string(SignatureStatus::unavailable) == "unavailable");
}
