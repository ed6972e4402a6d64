// verify-bundle: one Sigstore bundle verified, as sigstore-conformance's CLI
// protocol drives a client (its docs/cli_protocol.md): exit 0 verified, 1 not
// (the reason on stderr), 2 a usage error.
#include "commands.hpp"
#include "input.hpp"
#include "public_good_trusted_root.hpp"

#include "../sigstore/crypto.hpp"
#include "../sigstore/verify.hpp"

#include "model_image_webhook/text.hpp"

#include <cxxopts.hpp>

#include <sys/stat.h>

#include <ctime>
#include <iostream>

namespace miw::cli {

namespace {

constexpr std::string_view kCommand = "verify-bundle";

// A digest ("sha256:" and 64 hex digits, and no file of that name), or a file's bytes.
Result<sigstore::Artifact> artifact_of(const std::string& given) {
    sigstore::Artifact out;
    struct stat st {};
    // Lowercase hex, as a digest is written; anything else names a file.
    if (given.rfind("sha256:", 0) == 0 && given.size() == 71 && given.find_first_of("ABCDEF", 7) == std::string::npos && ::stat(given.c_str(), &st) != 0) {
        if (std::optional<std::string> digest = hex_decode(std::string_view(given).substr(7))) {
            out.sha256 = std::move(*digest);
            return out;
        }
    }
    Result<std::string> bytes = read_input(given);
    if (!bytes) return fail(bytes.error());
    out.has_bytes = true;
    out.bytes = std::move(*bytes);
    out.sha256 = sigstore::sha256(out.bytes);
    return out;
}

}  // namespace

int run_verify_bundle(int argc, char** argv) {
    cxxopts::Options options("model-image-webhook verify-bundle",
                             "Verify a Sigstore bundle over a file or a digest, against a key or a keyless signer's identity.");
    options.add_options()
        ("staging", "the Sigstore staging instance (its trusted root is not shipped: give --trusted-root)")
        ("bundle", "the bundle (JSON)", cxxopts::value<std::string>())
        ("certificate-identity", "the signing certificate's identity (SAN), compared exactly", cxxopts::value<std::string>())
        ("certificate-oidc-issuer", "the signing certificate's OIDC issuer, compared exactly", cxxopts::value<std::string>())
        ("key", "a PEM public key the signature must verify with", cxxopts::value<std::string>())
        ("trusted-root", "a trusted_root.json (default: the Sigstore public-good instance's, shipped)", cxxopts::value<std::string>())
        ("artifact", "the file, or sha256:HEX", cxxopts::value<std::string>())
        ("h,help", "show this help");
    options.parse_positional({"artifact"});
    options.positional_help("FILE_OR_DIGEST");
    cxxopts::ParseResult parsed;
    try {
        parsed = options.parse(argc, argv);
    } catch (const cxxopts::exceptions::exception& e) {
        return usage_error(kCommand, e.what());
    }
    if (parsed.count("help")) {
        std::cout << options.help() << "\n";
        return 0;
    }
    if (!parsed.count("bundle") || !parsed.count("artifact")) return usage_error(kCommand, "--bundle FILE and FILE_OR_DIGEST are required");
    sigstore::SignerPolicy signer;
    if (parsed.count("key")) {
        Result<std::string> pem = read_input(parsed["key"].as<std::string>());
        if (!pem) return usage_error(kCommand, "--key: " + pem.error());
        signer.key_pem = std::move(*pem);
    } else if (parsed.count("certificate-identity") && parsed.count("certificate-oidc-issuer")) {
        signer.identity = parsed["certificate-identity"].as<std::string>();
        signer.issuer = parsed["certificate-oidc-issuer"].as<std::string>();
    } else {
        return usage_error(kCommand, "give --key PEM, or --certificate-identity and --certificate-oidc-issuer");
    }
    std::string root_text;
    if (parsed.count("trusted-root")) {
        Result<std::string> text = read_input(parsed["trusted-root"].as<std::string>());
        if (!text) return usage_error(kCommand, "--trusted-root: " + text.error());
        root_text = std::move(*text);
    } else if (parsed.count("staging")) {
        return usage_error(kCommand, "the staging instance's trusted root is not shipped: give --trusted-root");
    } else {
        root_text = kPublicGoodTrustedRoot;
    }
    Result<sigstore::TrustedRoot> root = sigstore::read_trusted_root(std::move(root_text));
    if (!root) {
        std::cerr << "not verified: " << root.error() << "\n";
        return kExitDenied;
    }
    Result<std::string> bundle_text = read_input(parsed["bundle"].as<std::string>());
    if (!bundle_text) return usage_error(kCommand, "--bundle: " + bundle_text.error());
    Result<sigstore::Bundle> bundle = sigstore::read_bundle(std::move(*bundle_text));
    if (!bundle) {
        std::cerr << "not verified: " << bundle.error() << "\n";
        return kExitDenied;
    }
    Result<sigstore::Artifact> artifact = artifact_of(parsed["artifact"].as<std::string>());
    if (!artifact) return usage_error(kCommand, artifact.error());
    Result<sigstore::Verified> verified = sigstore::verify_bundle(*bundle, std::move(*root), *artifact, signer, static_cast<std::int64_t>(std::time(nullptr)));
    if (!verified) {
        std::cerr << "not verified: " << verified.error() << "\n";
        return kExitDenied;
    }
    std::cout << "verified\n";
    return kExitAllowed;
}

}  // namespace miw::cli
