#include "lookups.hpp"

#include "config_files.hpp"

#include <array>

namespace miw::server {

namespace {

// The parts read from files, each watched on its own.
enum Part : std::size_t { kCa, kHosts, kAuth, kProviders, kParts };
constexpr std::array<const char*, kParts> kPartFlags = {"--registry-ca", "--registry-hosts-dir", "--registry-auth", "--image-credential-provider-config"};

std::vector<const Keyring*> keyrings(const KubeletKeyring& file, const CredentialProviders* plugins) {
    std::vector<const Keyring*> out{&file};
    if (plugins != nullptr) out.push_back(plugins);
    return out;
}

// What each part's files are now, taken before they are read: a file
// replaced while it is read is read again on the next look. The hosts part is
// the directory's; its CA files' are added once it is read (ca_files_print).
std::array<std::string, kParts> fingerprints(const RegistrySettings& s) {
    std::array<std::string, kParts> out;
    out[kCa] = files_fingerprint({s.ca_file});
    out[kHosts] = files_fingerprint({s.hosts_dir});
    out[kAuth] = files_fingerprint({s.auth_file});
    out[kProviders] = files_fingerprint({s.credential_provider_config});
    return out;
}

// The CA files a hosts directory's hosts.toml name, wherever they are.
std::string ca_files_print(const HostsDirectory* read) { return read != nullptr ? files_fingerprint(read->ca_files()) : std::string(); }

}  // namespace

struct RegistryLookups::Parts {
    Parts(const RegistrySettings& settings, std::shared_ptr<CurlTransport> t, std::shared_ptr<CredentialProviders> plugins,
          std::shared_ptr<const KubeletKeyring> file_keyring, std::shared_ptr<const HostsDirectory> dir, std::array<std::string, kParts> read_from)
        : prints(std::move(read_from)),
          transport(std::move(t)),
          providers(std::move(plugins)),
          auth(std::move(file_keyring)),
          dir_hosts(std::move(dir)),
          flag_hosts(settings.insecure_hosts),
          keyring(keyrings(*auth, providers.get())),
          authorizer(*transport, keyring, [this](std::string_view authority, std::string_view host) { return insecure(authority, host); }),
          client(hosts(), authorizer, settings.platform, settings.allow),
          signatures(hosts(), authorizer, *transport, settings.allow) {}

    const RegistryHosts& hosts() const { return dir_hosts ? static_cast<const RegistryHosts&>(*dir_hosts) : flag_hosts; }
    bool insecure(std::string_view authority, std::string_view host) const {
        return dir_hosts ? dir_hosts->insecure(authority, host) : flag_hosts.insecure(authority, host);
    }

    std::array<std::string, kParts> prints;  // what each part was read from, as files_fingerprint told it
    std::shared_ptr<CurlTransport> transport;
    std::shared_ptr<CredentialProviders> providers;  // null: no plugins configured
    std::shared_ptr<const KubeletKeyring> auth;  // --registry-auth (empty without one)
    std::shared_ptr<const HostsDirectory> dir_hosts;  // --registry-hosts-dir; null: the flags' hosts
    FlagRegistryHosts flag_hosts;
    UnionKeyring keyring;  // --registry-auth, then the plugins, as the kubelet's node keyring
    Authorizer authorizer;
    RegistryClient client;
    SignatureFetcher signatures;
};

namespace {

using Parts = RegistryLookups::Parts;

Result<std::shared_ptr<CurlTransport>> read_transport(const RegistrySettings& settings) {
    auto made = CurlTransport::create(settings.ca_file);
    if (!made) return fail(made.error());
    return std::shared_ptr<CurlTransport>(std::move(*made));
}

Result<std::shared_ptr<const KubeletKeyring>> read_auth(const RegistrySettings& settings) {
    if (settings.auth_file.empty()) return std::make_shared<const KubeletKeyring>();
    Result<KubeletKeyring> read = read_auth_file(settings.auth_file);
    if (!read) return fail(read.error());
    return std::make_shared<const KubeletKeyring>(std::move(*read));
}

Result<std::shared_ptr<CredentialProviders>> read_providers(const RegistrySettings& settings) {
    if (settings.credential_provider_config.empty()) return std::shared_ptr<CredentialProviders>();
    Result<CredentialProviderConfig> config = read_provider_config_file(settings.credential_provider_config);
    if (!config) return fail(config.error());
    auto made = CredentialProviders::create(std::move(*config), settings.credential_provider_bin_dir, settings.timeout);
    if (!made) return fail(made.error());
    return std::shared_ptr<CredentialProviders>(std::move(*made));
}

Result<std::shared_ptr<const HostsDirectory>> read_hosts(const RegistrySettings& settings) {
    if (settings.hosts_dir.empty()) return std::shared_ptr<const HostsDirectory>();
    auto loaded = HostsDirectory::load(settings.hosts_dir, FlagRegistryHosts(settings.insecure_hosts));
    if (!loaded) return fail(loaded.error());
    return std::shared_ptr<const HostsDirectory>(std::move(*loaded));
}

}  // namespace

RegistryCacheSettings RegistryLookups::cache_settings(const RegistrySettings& settings) {
    RegistryCacheSettings s;
    s.negative_ttl = settings.negative_ttl;
    s.found_ttl = settings.found_ttl;
    s.fetch_timeout = settings.timeout;
    s.workers = kConcurrentLookups;
    return s;
}

RegistryLookups::RegistryLookups(RegistrySettings settings, std::shared_ptr<const Parts> parts, OperatorLog log)
    : settings_(std::move(settings)),
      parts_(std::move(parts)),
      log_(log),
      client_(*this, std::move(log)),
      cache_(client_, cache_settings(settings_)),
      source_(cache_, settings_.timeout),
      failed_prints_(kParts) {}

RegistryLookups::~RegistryLookups() {
    {
        std::lock_guard lock(watch_mutex_);
        stopping_ = true;
    }
    watch_wake_.notify_all();
    if (watcher_.joinable()) watcher_.join();
}

Result<std::unique_ptr<RegistryLookups>> RegistryLookups::create(RegistrySettings settings, OperatorLog log) {
    std::array<std::string, kParts> prints = fingerprints(settings);
    auto transport = read_transport(settings);
    if (!transport) return fail(transport.error());
    auto providers = read_providers(settings);
    if (!providers) return fail(providers.error());
    auto auth = read_auth(settings);
    if (!auth) return fail(auth.error());
    auto hosts = read_hosts(settings);
    if (!hosts) return fail(hosts.error());
    prints[kHosts] += ca_files_print(hosts->get());
    auto parts = std::make_shared<const Parts>(settings, std::move(*transport), std::move(*providers), std::move(*auth), std::move(*hosts), std::move(prints));
    return std::unique_ptr<RegistryLookups>(new RegistryLookups(std::move(settings), std::move(parts), std::move(log)));
}

std::shared_ptr<const RegistryLookups::Parts> RegistryLookups::current() const {
    std::lock_guard lock(parts_mutex_);
    return parts_;
}

RegistryLookup RegistryLookups::CurrentClient::fetch(std::string_view reference, const PullCredentials& who, Deadline deadline) const {
    // Held until the look ends: a reload meanwhile leaves this look its parts.
    const std::shared_ptr<const Parts> parts = owner_.current();
    RegistryLookup found = parts->client.fetch(reference, who, deadline);
    if (log_ && !found.log_detail.empty()) log_(reference, found.log_detail);
    return found;
}

SignatureFetch RegistryLookups::fetch_signatures(std::string_view reference, const PullCredentials& who, Deadline deadline) const {
    const std::shared_ptr<const Parts> parts = current();
    SignatureFetch fetched = parts->signatures.fetch(reference, who, deadline);
    if (log_ && !fetched.fetched && !fetched.failure.log_detail.empty()) log_(reference, fetched.failure.log_detail);
    return fetched;
}

std::unique_ptr<SignatureChecks> RegistryLookups::signature_checks(std::shared_ptr<const sigstore::ImagePolicyVerifier> verifier, std::function<void()> fetched) const {
    SignatureCheckSettings settings;
    settings.fetched = std::move(fetched);
    settings.fetch_timeout = settings_.timeout;
    settings.verified_ttl = settings_.found_ttl;
    settings.negative_ttl = settings_.negative_ttl;
    return std::make_unique<SignatureChecks>([this](std::string_view reference, const PullCredentials& who, Deadline deadline) { return fetch_signatures(reference, who, deadline); },
                                             std::move(verifier), settings);
}

std::vector<std::string> RegistryLookups::hosts_unverified() const {
    const auto parts = current();
    return parts->dir_hosts ? parts->dir_hosts->unverified() : std::vector<std::string>();
}

std::vector<std::string> RegistryLookups::hosts_notes() const {
    const auto parts = current();
    return parts->dir_hosts ? parts->dir_hosts->notes() : std::vector<std::string>();
}

RegistryReload RegistryLookups::reload() {
    std::lock_guard one_at_a_time(reload_mutex_);
    const std::shared_ptr<const Parts> old = current();
    std::array<std::string, kParts> now = fingerprints(settings_);
    const std::string hosts_dir_print = now[kHosts];
    now[kHosts] += ca_files_print(old->dir_hosts.get());
    std::array<bool, kParts> changed{};
    bool any = false;
    for (std::size_t p = 0; p < kParts; ++p) {
        // A version that failed is not read again until it changes: one line in the log, not one a minute.
        changed[p] = now[p] != old->prints[p] && now[p] != failed_prints_[p];
        any = any || changed[p];
    }
    RegistryReload out;
    if (!any) return out;

    std::array<std::string, kParts> prints = old->prints;
    const auto failed = [&](std::size_t p, const std::string& error) {
        failed_prints_[p] = now[p];
        out.error += (out.error.empty() ? "" : "; ") + error;
    };
    const auto read = [&](std::size_t p) {
        prints[p] = now[p];
        failed_prints_[p].clear();
        out.changed.emplace_back(kPartFlags[p]);
    };
    std::shared_ptr<const HostsDirectory> hosts = old->dir_hosts;
    if (changed[kHosts]) {
        if (auto r = read_hosts(settings_)) {
            hosts = std::move(*r);
            now[kHosts] = hosts_dir_print + ca_files_print(hosts.get());
            read(kHosts);
            if (hosts) {
                out.unverified = hosts->unverified();
                out.notes = hosts->notes();
            }
        } else {
            failed(kHosts, r.error());
        }
    }
    // A new transport for a new CA or new hosts' CA files: the old one keeps what it read of them.
    std::shared_ptr<CurlTransport> transport = old->transport;
    if (changed[kCa] || (changed[kHosts] && prints[kHosts] == now[kHosts])) {
        if (auto r = read_transport(settings_)) {
            transport = std::move(*r);
            if (changed[kCa]) read(kCa);
        } else {
            failed(kCa, r.error());
        }
    }
    // A part that changed, read anew; one that does not read keeps the last good.
    const auto refresh = [&](std::size_t p, auto reader, auto& part) {
        if (!changed[p]) return;
        if (auto r = reader(settings_)) {
            part = std::move(*r);
            read(p);
        } else {
            failed(p, r.error());
        }
    };
    std::shared_ptr<const KubeletKeyring> auth = old->auth;
    refresh(kAuth, read_auth, auth);
    std::shared_ptr<CredentialProviders> providers = old->providers;
    refresh(kProviders, read_providers, providers);
    if (out.changed.empty()) return out;  // nothing new could be read: the last good parts stay
    auto parts = std::make_shared<const Parts>(settings_, std::move(transport), std::move(providers), std::move(auth), std::move(hosts), std::move(prints));
    {
        std::lock_guard lock(parts_mutex_);
        parts_ = std::move(parts);
    }
    // What a registry refused under the old credentials or hosts may be found under the new ones now.
    cache_.forget_misses();
    out.applied = true;
    return out;
}

void RegistryLookups::start_reloading(ReloadObserver observe) {
    watcher_ = std::thread([this, observe = std::move(observe)] {
        std::unique_lock lock(watch_mutex_);
        while (!watch_wake_.wait_for(lock, settings_.reload_interval, [this] { return stopping_; })) {
            lock.unlock();
            const RegistryReload r = reload();
            if (observe && (r.applied || !r.error.empty())) observe(r);
            lock.lock();
        }
    });
}

}  // namespace miw::server
