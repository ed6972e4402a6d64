#include "lookups.hpp"

namespace miw::server {

RegistryCacheSettings RegistryLookups::cache_settings(const RegistrySettings& settings) {
    RegistryCacheSettings s;
    s.negative_ttl = settings.negative_ttl;
    s.found_ttl = settings.found_ttl;
    s.fetch_timeout = settings.timeout;
    s.workers = kConcurrentLookups;
    return s;
}

namespace {

std::vector<const Keyring*> keyrings(const KubeletKeyring& file, const CredentialProviders* plugins) {
    std::vector<const Keyring*> out{&file};
    if (plugins != nullptr) out.push_back(plugins);
    return out;
}

}  // namespace

RegistryLookups::RegistryLookups(std::unique_ptr<CurlTransport> transport, std::unique_ptr<CredentialProviders> providers,
                                 std::unique_ptr<HostsDirectory> dir_hosts, RegistrySettings settings, OperatorLog log)
    : settings_(std::move(settings)),
      transport_(std::move(transport)),
      providers_(std::move(providers)),
      keyring_(keyrings(settings_.credentials, providers_.get())),
      flag_hosts_(settings_.insecure_hosts),
      dir_hosts_(std::move(dir_hosts)),
      authorizer_(*transport_, keyring_, [this](std::string_view authority, std::string_view host) { return insecure(authority, host); }),
      client_(hosts(), authorizer_, settings_.platform, settings_.allow),
      logged_(client_, std::move(log)),
      cache_(logged_, cache_settings(settings_)),
      source_(cache_, settings_.timeout) {}

Result<std::unique_ptr<RegistryLookups>> RegistryLookups::create(RegistrySettings settings, OperatorLog log) {
    auto transport = CurlTransport::create(settings.ca_file);
    if (!transport) return fail(transport.error());
    std::unique_ptr<CredentialProviders> providers;
    if (settings.credential_providers) {
        auto made = CredentialProviders::create(*settings.credential_providers, settings.credential_provider_bin_dir, settings.timeout);
        if (!made) return fail(made.error());
        providers = std::move(*made);
    }
    std::unique_ptr<HostsDirectory> dir_hosts;
    if (!settings.hosts_dir.empty()) {
        auto loaded = HostsDirectory::load(settings.hosts_dir, FlagRegistryHosts(settings.insecure_hosts));
        if (!loaded) return fail(loaded.error());
        dir_hosts = std::move(*loaded);
    }
    return std::unique_ptr<RegistryLookups>(new RegistryLookups(std::move(*transport), std::move(providers), std::move(dir_hosts), std::move(settings), std::move(log)));
}

}  // namespace miw::server
