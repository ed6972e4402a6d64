// The OCI distribution client of --registry-check (design.md 1.6): for a
// digest-pinned reference, the hosts its registry is served by are asked in
// order (GET /v2/<name>/manifests/<digest>, no HEAD first) through the
// authorizer; the content is checked against the digest, an index's
// --registry-platform entry read as containerd's matcher picks it, and what
// the manifest holds (media types, sizes) told for the core to judge.
// No Boost, no libcurl in this header.
#pragma once

#include "authorizer.hpp"
#include "hosts.hpp"
#include "transport.hpp"

#include "model_image_webhook/registry/allow_list.hpp"
#include "model_image_webhook/registry/locator.hpp"
#include "model_image_webhook/registry/cache.hpp"

#include <string>

namespace miw::server {

// A manifest (or index) over this is a failure to look, as the kubelet caps it.
inline constexpr std::size_t kMaxManifestBytes = 4u << 20;

class RegistryClient : public RegistryFetcher {
public:
    // allow: --registry-allow; a registry outside it is never asked.
    RegistryClient(const RegistryHosts& hosts, const Authorizer& authorizer, std::string platform, RegistryAllowList allow = {})
        : hosts_(hosts), authorizer_(authorizer), platform_(std::move(platform)), allow_(std::move(allow)) {}

    using RegistryFetcher::fetch;
    RegistryLookup fetch(std::string_view reference, const PullCredentials& who, Deadline deadline) const override;

private:
    RegistryLookup fetch_from(const RegistryHost& host, const RegistryLocator& locator, const Keyring* first, Deadline deadline) const;

    const RegistryHosts& hosts_;
    const Authorizer& authorizer_;
    std::string platform_;  // --registry-platform
    RegistryAllowList allow_;
};

// What an answer that is neither the content asked for nor a 404 means, as
// a tenant may read it (a refused connection, a timeout and a TLS failure
// alike; the transport's own words in log_detail). where: the host's
// authority; path: what was asked.
RegistryLookup not_looked(const HttpResponse& answer, const std::string& where, const std::string& path);

// "sha256:<hex>" of bytes, for the algorithm the digest names; empty for one not known.
std::string digest_of(std::string_view algorithm, std::string_view bytes);

}  // namespace miw::server
