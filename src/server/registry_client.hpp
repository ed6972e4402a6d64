// The OCI distribution client of --registry-check (design.md 1.6): HEAD then
// GET /v2/<name>/manifests/<digest>, anonymous, Basic or Bearer token auth,
// TLS always verified (system roots and --registry-ca), plain HTTP only for
// --registry-insecure hosts, every answer capped while it is read and every
// look bounded by its deadline. No Boost in this header.
#pragma once

#include "model_image_webhook/registry_cache.hpp"
#include "model_image_webhook/registry_credentials.hpp"
#include "model_image_webhook/result.hpp"

#include <memory>
#include <string>
#include <vector>

namespace miw::server {

// A manifest (or index) over this is a failure to look, as the kubelet caps it.
inline constexpr std::size_t kMaxManifestBytes = 4u << 20;
inline constexpr std::size_t kMaxTokenAnswerBytes = 1u << 20;
// Looks over the network at once, at most (docs/operations.md, "Memory budget").
inline constexpr std::ptrdiff_t kConcurrentLookups = 4;

struct RegistryClientConfig {
    std::string ca_file;  // --registry-ca: added to the system's roots
    std::vector<std::string> insecure_hosts;  // --registry-insecure: authorities (host[:port]) or hosts spoken to over plain HTTP
    RegistryCredentials credentials;  // --registry-auth
    std::string platform = "linux/amd64";  // --registry-platform: an index's entry whose size is told
};

class RegistryClient : public RegistryFetcher {
public:
    // Fails when the CA file cannot be loaded.
    static Result<std::unique_ptr<RegistryClient>> create(RegistryClientConfig config);
    ~RegistryClient() override;

    RegistryLookup fetch(std::string_view reference, Deadline deadline) const override;

private:
    struct Impl;
    explicit RegistryClient(std::unique_ptr<Impl> impl);
    std::unique_ptr<Impl> impl_;
};

}  // namespace miw::server
