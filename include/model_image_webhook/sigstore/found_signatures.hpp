// The signatures found for one pinned digest, as its registry holds them
// (design.md 1.11): sigstore bundles attached as OCI referrers (cosign v3),
// and the layers of a legacy `sha256-HEX.sig` manifest (cosign v2 and
// before). Gathered by src/server/registry/signature_fetcher.cpp (each blob
// checked against its descriptor's digest), judged by src/sigstore/.
#pragma once

#include <string>
#include <vector>

namespace miw::sigstore {

// One `application/vnd.dev.cosign.simplesigning.v1+json` layer.
struct SimpleSignature {
    std::string payload;  // the blob: what the signature signs
    std::string signature;  // dev.cosignproject.cosign/signature, base64 as written
    // dev.sigstore.cosign/certificate; empty: a key's. (Its chain annotation
    // is not read: the chain comes from the trust root alone.)
    std::string certificate_pem;
    std::string rekor_bundle;  // dev.sigstore.cosign/bundle; empty: not logged
};

struct FoundSignatures {
    std::vector<std::string> bundles;  // each referrer's bundle, as JSON
    std::vector<SimpleSignature> simple;
    std::size_t other_referrers = 0;  // referrers that are no sigstore bundle (SBOMs, attestations of other kinds)
};

}  // namespace miw::sigstore
