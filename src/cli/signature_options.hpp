// --signature-policy and --trusted-root (design.md 1.11), shared by serve,
// review and test: the policy the rules match, and the verifier that judges
// a digest's signatures against it.
#pragma once

#include "../server/registry/lookups.hpp"
#include "../sigstore/image_policy.hpp"

#include "model_image_webhook/result.hpp"
#include "model_image_webhook/signature_policy.hpp"

#include <cxxopts.hpp>

#include <memory>

namespace miw::cli {

void add_signature_options(cxxopts::Options& options);

struct SignatureSetup {
    std::shared_ptr<const SignaturePolicy> policy;  // null: no --signature-policy
    std::shared_ptr<const sigstore::ImagePolicyVerifier> verifier;
};

// Reads the policy file and the trusted root (the shipped public-good one
// where --trusted-root is not given); fails naming the file and the field.
Result<SignatureSetup> signature_setup_from_options(const cxxopts::ParseResult& parsed);

// What an offline command's rules ask, over its registry lookups; both null without a policy.
struct OfflineSignatures {
    std::unique_ptr<server::SignatureChecks> checks;
    std::unique_ptr<server::TimedSignatureSource> source;
};
OfflineSignatures offline_signatures(const SignatureSetup& setup, const server::RegistryLookups* lookups);

}  // namespace miw::cli
