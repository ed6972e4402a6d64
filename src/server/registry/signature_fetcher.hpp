// Finding a pinned digest's signatures as cosign v3 writes and reads them
// (design.md 1.11), through the hosts and the authorizer of the lookups
// (mirrors, credentials, proxy, deadlines): the OCI 1.1 referrers API
// (GET /v2/NAME/referrers/DIGEST), else, where a registry lacks it
// (distribution 2.8, Docker Hub, ECR), the referrers tag schema's index at
// `sha256-HEX`; every sigstore bundle referrer read (its manifest, then its
// bundle layer), and the legacy `sha256-HEX.sig` manifest's simple-signing
// layers. Every blob is checked against its descriptor's digest; every
// answer is bounded while it is read: a bundle or a payload 1 MiB, 64
// referrers, 64 layers. No Boost, no libcurl here.
#pragma once

#include "authorizer.hpp"
#include "hosts.hpp"
#include "transport.hpp"

#include "model_image_webhook/registry/allow_list.hpp"
#include "model_image_webhook/registry/cache.hpp"
#include "model_image_webhook/registry/locator.hpp"
#include "model_image_webhook/sigstore/found_signatures.hpp"

#include <string>

namespace miw::server {

inline constexpr std::size_t kMaxSignatureBlobBytes = 1u << 20;
inline constexpr std::size_t kMaxReferrers = 64;

// The media types of sigstore bundles begin so (v0.1 to v0.3, and later ones the verifier refuses by name).
inline constexpr std::string_view kSigstoreBundlePrefix = "application/vnd.dev.sigstore.bundle";
inline constexpr std::string_view kSimpleSigningLayer = "application/vnd.dev.cosign.simplesigning.v1+json";

struct SignatureFetch {
    bool fetched = false;  // the registry said what it holds (perhaps nothing)
    sigstore::FoundSignatures found;
    RegistryLookup failure;  // !fetched: why (status unavailable, its failure and words)
};

class SignatureFetcher {
public:
    SignatureFetcher(const RegistryHosts& hosts, const Authorizer& authorizer, const Transport& transport, RegistryAllowList allow = {})
        : hosts_(hosts), authorizer_(authorizer), transport_(transport), allow_(std::move(allow)) {}

    // Each host of the registry in order until one answers.
    SignatureFetch fetch(std::string_view reference, const PullCredentials& who, Deadline deadline) const;

private:
    SignatureFetch fetch_from(const RegistryHost& host, const RegistryLocator& locator, const Keyring* first, Deadline deadline) const;

    const RegistryHosts& hosts_;
    const Authorizer& authorizer_;
    const Transport& transport_;
    RegistryAllowList allow_;
};

}  // namespace miw::server
