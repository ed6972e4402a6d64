// What --registry-check needs to look digests up, put together once: the
// distribution client, the cache in front of it and the time a look may take.
// The server and the offline commands both build it from RegistrySettings.
// No Boost here.
#pragma once

#include "registry_client.hpp"

#include "model_image_webhook/registry_cache.hpp"
#include "model_image_webhook/result.hpp"

#include <chrono>
#include <memory>

namespace miw::server {

struct RegistrySettings {
    RegistryClientConfig client;
    std::chrono::milliseconds timeout{3000};  // --registry-timeout: one look, end to end
    std::chrono::milliseconds negative_ttl{30000};  // --registry-negative-ttl: how long a miss or a failure is kept
};

class RegistryLookups {
public:
    // Fails when the client cannot be set up (an unreadable --registry-ca).
    static Result<std::unique_ptr<RegistryLookups>> create(RegistrySettings settings);

    const RegistryCache& cache() const { return cache_; }
    std::chrono::milliseconds timeout() const { return timeout_; }

    // The source the rules ask, each look bounded by --registry-timeout.
    const RegistrySource& source() const { return source_; }

private:
    RegistryLookups(std::unique_ptr<RegistryClient> client, const RegistrySettings& settings)
        : client_(std::move(client)), cache_(*client_, settings.negative_ttl), timeout_(settings.timeout), source_(cache_, timeout_) {}

    std::unique_ptr<RegistryClient> client_;
    RegistryCache cache_;
    std::chrono::milliseconds timeout_;
    CachedRegistrySource source_;
};

}  // namespace miw::server
