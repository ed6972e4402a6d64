#include "model_image_webhook/signature_check.hpp"

#include "model_image_webhook/warning.hpp"

#include <algorithm>

namespace miw {

std::string_view to_string(SignatureStatus status) {
    switch (status) {
        case SignatureStatus::verified: return "verified";
        case SignatureStatus::unsigned_image: return "unsigned";
        case SignatureStatus::mismatch: return "mismatch";
        case SignatureStatus::unavailable: return "unavailable";
    }
    return "unavailable";
}

namespace {

// Why a policy did not pass, and what to do: a refusal's words, which a warning repeats.
std::string failure_words(const ImagePolicy& policy, const SignatureOutcome& outcome) {
    const std::string named = "the ClusterImagePolicy " + policy.name;
    switch (outcome.status) {
        case SignatureStatus::verified: return {};
        case SignatureStatus::unsigned_image:
            return named + " asks for a signature and none of this digest was found (" + outcome.detail +
                   "): sign the image (cosign sign) as an authority of the policy names, or pin a digest that is signed";
        case SignatureStatus::mismatch:
            return "no authority of " + named + " verifies a signature of this digest (" + outcome.detail +
                   "): pin a digest signed by the identity or key the policy names, or fix the policy";
        case SignatureStatus::unavailable:
            return "the signatures of this digest could not be fetched for " + named + " (" + outcome.detail +
                   "), and an image whose signature cannot be checked is not admitted; retry once the registry answers";
    }
    return {};
}

}  // namespace

std::vector<std::size_t> matching_policies(const SignaturePolicy& policy, std::string_view reference) {
    std::vector<std::size_t> out;
    for (std::size_t i = 0; i < policy.policies.size(); ++i) {
        for (const ImageGlob& glob : policy.policies[i].images) {
            if (glob.matches(reference)) {
                out.push_back(i);
                break;
            }
        }
    }
    return out;
}

SignatureVerdict check_signatures(std::string_view field, std::string_view reference, const SignaturePolicy* policy, const SignatureSource* source,
                                  const PullSecretsRef* who) {
    SignatureVerdict out;
    if (policy == nullptr || source == nullptr) return out;
    for (std::size_t index = 0; index < policy->policies.size(); ++index) {
        const ImagePolicy& matched = policy->policies[index];
        if (std::none_of(matched.images.begin(), matched.images.end(), [&](const ImageGlob& glob) { return glob.matches(reference); })) continue;
        const SignatureOutcome outcome = source->verify(reference, index, who);
        if (outcome.status == SignatureStatus::verified) continue;
        if (matched.enforce) {
            // The first refusal is told; any other matching policy's is the same image's.
            if (!out.refusal) out.refusal = failure_words(matched, outcome);
            continue;
        }
        out.warnings.push_back(Warning(field)
                                   .say(": the ClusterImagePolicy ")
                                   .bare(matched.name, 63)
                                   .say(" (warn) does not verify the model image (")
                                   .say(to_string(outcome.status))
                                   .say(": ")
                                   .bare(outcome.detail, 120)
                                   .say(")")
                                   .text());
    }
    return out;
}

}  // namespace miw
