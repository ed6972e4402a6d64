// What the rules make of a model image's signatures (design.md 1.11): every
// policy whose glob matches the reference must pass; an image no policy
// matches is admitted; a policy in enforce mode refuses what it cannot
// verify (a signature that cannot be fetched included: an outage must not
// open the gate), one in warn mode warns. Whether a policy passes is the
// SignatureSource's to say: the server's and the offline commands' fetch
// the signatures through the registry client and verify them with
// src/sigstore/. No I/O here.
#pragma once

#include "model_image_webhook/pinned_reference.hpp"
#include "model_image_webhook/registry/source.hpp"
#include "model_image_webhook/rule.hpp"
#include "model_image_webhook/signature_policy.hpp"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace miw {

inline constexpr Rule kSignatureUnverified{"signature-unverified", kReferenceFields, kReferenceVerdict,
                                           "--signature-policy: a ClusterImagePolicy in enforce mode matches the model image and none of its authorities "
                                           "verifies a signature of the pinned digest, or its signatures cannot be fetched"};

enum class SignatureStatus : unsigned char {
    verified,  // an authority of the policy verified a signature of the digest
    unsigned_image,  // no signature of the digest was found
    mismatch,  // signatures were found, and no authority verified one
    unavailable,  // the signatures could not be fetched: detail says why
};

// "verified", "unsigned", "mismatch", "unavailable": the metric's label.
std::string_view to_string(SignatureStatus status);

struct SignatureOutcome {
    SignatureStatus status = SignatureStatus::unavailable;
    // What was found, or why no authority verified it, or what stopped the
    // fetch, as a tenant may read it (no secret, no port told from another).
    std::string detail;
};

class SignatureSource {
public:
    virtual ~SignatureSource() = default;
    // Whether policy number `policy` of the configured SignaturePolicy passes
    // for a pinned reference; who: whose pull secrets fetch its signatures,
    // null the node's credentials alone.
    virtual SignatureOutcome verify(std::string_view reference, std::size_t policy, const PullSecretsRef* who) const = 0;
};

struct SignatureVerdict {
    std::optional<std::string> refusal;  // the words of an enforce policy's refusal, without the field
    std::vector<std::string> warnings;  // whole warnings
};

// The policies of `policy` that match the reference, by index.
std::vector<std::size_t> matching_policies(const SignaturePolicy& policy, std::string_view reference);

// field: where the reference stands, for warnings. policy or source null:
// nothing is checked.
SignatureVerdict check_signatures(std::string_view field, std::string_view reference, const SignaturePolicy* policy, const SignatureSource* source,
                                  const PullSecretsRef* who = nullptr);

}  // namespace miw
