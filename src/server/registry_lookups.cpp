#include "registry_lookups.hpp"

namespace miw::server {

Result<std::unique_ptr<RegistryLookups>> RegistryLookups::create(RegistrySettings settings) {
    auto client = RegistryClient::create(settings.client);
    if (!client) return fail(client.error());
    return std::unique_ptr<RegistryLookups>(new RegistryLookups(std::move(*client), settings));
}

}  // namespace miw::server
