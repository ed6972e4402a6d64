// A --signature-policy's ClusterImagePolicies judged against the signatures
// found for a digest (design.md 1.11), as sigstore policy-controller judges
// them: within one policy any authority suffices; a key authority by its
// key (and a log entry only when it names ctlog), a keyless one by the
// Fulcio chain, SCT and log entry of its trust root and by one of its
// identities (issuer and subject exact, or Go regexps matched anywhere in
// the value as regexp.MatchString does, with RE2). A cosign v3 bundle counts
// only when its statement's predicateType is cosign's signature's; a legacy
// simple-signing payload only when it names the pinned digest.
#pragma once

#include "verify.hpp"

#include "model_image_webhook/result.hpp"
#include "model_image_webhook/signature_check.hpp"
#include "model_image_webhook/signature_policy.hpp"
#include "model_image_webhook/sigstore/found_signatures.hpp"
#include "model_image_webhook/sigstore/trusted_root.hpp"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace miw::sigstore {

// What `cosign sign` (v3) signs an image with: an in-toto statement of this predicate type.
inline constexpr std::string_view kCosignSignPredicate = "https://sigstore.dev/cosign/sign/v1";

class ImagePolicyVerifier {
public:
    // default_root: --trusted-root, else the public-good root, for the
    // authorities that name no TrustRoot. Fails on a key or a TrustRoot that
    // does not read, or a pattern RE2 refuses, naming the policy and authority.
    static Result<std::shared_ptr<const ImagePolicyVerifier>> create(const SignaturePolicy& policy, const TrustedRoot& default_root);

    // digest: "sha256:<hex>", the pinned one. now: Unix seconds.
    SignatureOutcome verify(const FoundSignatures& found, std::string_view digest, std::size_t policy, std::int64_t now) const;

    std::size_t policy_count() const { return policies_.size(); }

    struct Authority {
        std::string name;
        SignerPolicy signer;
        TrustedRoot root;
    };

private:
    std::vector<std::vector<Authority>> policies_;
};

}  // namespace miw::sigstore
