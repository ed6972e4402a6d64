// A Sigstore bundle verified as sigstore-go and cosign verify it (bundles
// v0.1 to v0.3; message signatures and DSSE envelopes; a key, or a Fulcio
// certificate with its identity, chain and SCT; Rekor v1 entries by their
// signed entry timestamp and by an inclusion proof with a signed checkpoint).
// Pure: bytes in, a verdict out; OpenSSL inside, no network.
#pragma once

#include "model_image_webhook/result.hpp"
#include "model_image_webhook/sigstore/bundle.hpp"
#include "model_image_webhook/sigstore/trusted_root.hpp"

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace miw::sigstore {

// A certificate's identities (its SANs) and OIDC issuer: whether a policy takes them.
using IdentityMatcher = std::function<bool(const std::vector<std::string>& sans, const std::string& issuer)>;

// Whom the signature must be from: a key (PEM), or the exact certificate
// identity (SAN) and OIDC issuer of a keyless signature, or a matcher of
// them (a policy's identities, patterns among them).
struct SignerPolicy {
    std::string key_pem;  // non-empty: a key
    std::string identity;
    std::string issuer;
    IdentityMatcher identity_matches;  // set: asked instead of identity and issuer
    // A key's signature needs a transparency log entry (a policy's ctlog);
    // false: the log entries and timestamps are not read, the key alone
    // decides (signed with --tlog-upload=false). Keyless always needs one.
    bool require_tlog = true;
};

// What was signed: the artifact's bytes, or only its SHA-256.
struct Artifact {
    bool has_bytes = false;
    std::string bytes;
    std::string sha256;  // raw, 32 bytes
};

struct Verified {
    std::int64_t signed_at = 0;  // the log's time of the signature
};

Result<Verified> verify_bundle(const Bundle& bundle, TrustedRoot root, const Artifact& artifact, const SignerPolicy& signer, std::int64_t now);

}  // namespace miw::sigstore
