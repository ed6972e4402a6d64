#include "signature_options.hpp"

#include "input.hpp"
#include "public_good_trusted_root.hpp"

#include "model_image_webhook/sigstore/trusted_root.hpp"

namespace miw::cli {

void add_signature_options(cxxopts::Options& options) {
    options.add_options()
        ("signature-policy", "FILE of ClusterImagePolicy and TrustRoot documents (sigstore policy-controller's shape): the model image must be signed "
                             "as a matching policy says (docs/signatures.md)", cxxopts::value<std::string>()->default_value(""))
        ("trusted-root", "a sigstore trusted_root.json for keyless authorities that name no trustRootRef (default: the Sigstore public-good "
                         "instance's, shipped)", cxxopts::value<std::string>()->default_value(""));
}

Result<SignatureSetup> signature_setup_from_options(const cxxopts::ParseResult& parsed) {
    const std::string policy_file = parsed["signature-policy"].as<std::string>();
    const std::string root_file = parsed["trusted-root"].as<std::string>();
    SignatureSetup out;
    if (policy_file.empty()) {
        if (!root_file.empty()) return fail("--trusted-root serves the keyless authorities of --signature-policy, which is not given");
        return out;
    }
    Result<std::string> text = read_input(policy_file);
    if (!text) return fail("--signature-policy: " + text.error());
    Result<SignaturePolicy> policy = read_signature_policy(*text);
    if (!policy) return fail("--signature-policy " + policy_file + ": " + policy.error());
    std::string root_text = kPublicGoodTrustedRoot;
    if (!root_file.empty()) {
        Result<std::string> read = read_input(root_file);
        if (!read) return fail("--trusted-root: " + read.error());
        root_text = std::move(*read);
    }
    Result<sigstore::TrustedRoot> root = sigstore::read_trusted_root(std::move(root_text));
    if (!root) return fail("--trusted-root " + (root_file.empty() ? std::string("(the shipped public-good root)") : root_file) + ": " + root.error());
    auto verifier = sigstore::ImagePolicyVerifier::create(*policy, *root);
    if (!verifier) return fail("--signature-policy " + policy_file + ": " + verifier.error());
    out.policy = std::make_shared<const SignaturePolicy>(std::move(*policy));
    out.verifier = std::move(*verifier);
    return out;
}

OfflineSignatures offline_signatures(const SignatureSetup& setup, const server::RegistryLookups* lookups) {
    OfflineSignatures out;
    if (!setup.policy || lookups == nullptr) return out;
    out.checks = lookups->signature_checks(setup.verifier);
    out.source = std::make_unique<server::TimedSignatureSource>(*out.checks, lookups->timeout());
    return out;
}

}  // namespace miw::cli
