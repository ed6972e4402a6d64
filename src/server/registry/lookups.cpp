#include "lookups.hpp"

namespace miw::server {

RegistryCacheSettings RegistryLookups::cache_settings(const RegistrySettings& settings) {
    RegistryCacheSettings s;
    s.negative_ttl = settings.negative_ttl;
    s.fetch_timeout = settings.timeout;
    s.workers = kConcurrentLookups;
    return s;
}

RegistryLookups::RegistryLookups(std::unique_ptr<CurlTransport> transport, RegistrySettings settings)
    : settings_(std::move(settings)),
      transport_(std::move(transport)),
      hosts_(settings_.insecure_hosts),
      authorizer_(*transport_, settings_.credentials, [this](std::string_view authority, std::string_view host) { return hosts_.insecure(authority, host); }),
      client_(hosts_, authorizer_, settings_.platform),
      cache_(client_, cache_settings(settings_)),
      source_(cache_, settings_.timeout) {}

Result<std::unique_ptr<RegistryLookups>> RegistryLookups::create(RegistrySettings settings) {
    auto transport = CurlTransport::create(settings.ca_file);
    if (!transport) return fail(transport.error());
    return std::unique_ptr<RegistryLookups>(new RegistryLookups(std::move(*transport), std::move(settings)));
}

}  // namespace miw::server
