// What --registry-check needs to look digests up, put together once: the
// transport (libcurl), the hosts of each registry, the keyring and the
// authorizer over them, the distribution client, and the cache in front of
// it with its workers. The server and the offline commands both build it
// from RegistrySettings. No Boost, no libcurl here.
#pragma once

#include "authorizer.hpp"
#include "client.hpp"
#include "credential_providers.hpp"
#include "curl_transport.hpp"
#include "hosts.hpp"
#include "hosts_dir.hpp"

#include "model_image_webhook/registry/cache.hpp"
#include "model_image_webhook/registry/kubelet_keyring.hpp"
#include "model_image_webhook/result.hpp"

#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace miw::server {

// Looks over the network at once, at most (docs/operations.md, "Memory budget").
inline constexpr std::size_t kConcurrentLookups = 4;

struct RegistrySettings {
    std::string ca_file;  // --registry-ca: added to the system's roots
    std::vector<std::string> insecure_hosts;  // --registry-insecure: authorities (host[:port]) or hosts spoken to over plain HTTP
    std::string hosts_dir;  // --registry-hosts-dir: containerd's config_path (mirrors); empty: none
    KubeletKeyring credentials;  // --registry-auth
    std::optional<CredentialProviderConfig> credential_providers;  // --image-credential-provider-config
    std::string credential_provider_bin_dir;  // --image-credential-provider-bin-dir
    std::string platform = "linux/amd64";  // --registry-platform: an index's entry that is judged and sized
    std::chrono::milliseconds timeout{3000};  // --registry-timeout: one look, end to end
    std::chrono::milliseconds negative_ttl{30000};  // --registry-negative-ttl: how long a miss or a failure is kept
    std::chrono::milliseconds found_ttl{600000};  // --registry-found-ttl: how long a found digest is kept
    RegistryAllowList allow;  // --registry-allow: the registries that may be asked; empty: any
};

// Where what only the operator may read goes (the transport's words, a
// plugin's stderr), one line a look: the reference, and the cause.
using OperatorLog = std::function<void(std::string_view reference, std::string_view detail)>;

class RegistryLookups {
public:
    // Fails when the transport cannot be set up (an unreadable --registry-ca).
    static Result<std::unique_ptr<RegistryLookups>> create(RegistrySettings settings, OperatorLog log = {});

    const RegistryCache& cache() const { return cache_; }
    std::chrono::milliseconds timeout() const { return settings_.timeout; }

    // The source the rules ask, each look bounded by --registry-timeout.
    const RegistrySource& source() const { return source_; }
    // The --registry-hosts-dir read at start; null without one.
    const HostsDirectory* hosts_directory() const { return dir_hosts_.get(); }

private:
    // The client, each look's operator words written to the log.
    class LoggedFetcher : public RegistryFetcher {
    public:
        LoggedFetcher(const RegistryFetcher& inner, OperatorLog log) : inner_(inner), log_(std::move(log)) {}
        using RegistryFetcher::fetch;
        RegistryLookup fetch(std::string_view reference, const PullCredentials& who, Deadline deadline) const override {
            RegistryLookup found = inner_.fetch(reference, who, deadline);
            if (log_ && !found.log_detail.empty()) log_(reference, found.log_detail);
            return found;
        }

    private:
        const RegistryFetcher& inner_;
        OperatorLog log_;
    };

    RegistryLookups(std::unique_ptr<CurlTransport> transport, std::unique_ptr<CredentialProviders> providers, std::unique_ptr<HostsDirectory> dir_hosts,
                    RegistrySettings settings, OperatorLog log);
    const RegistryHosts& hosts() const { return dir_hosts_ ? static_cast<const RegistryHosts&>(*dir_hosts_) : flag_hosts_; }
    bool insecure(std::string_view authority, std::string_view host) const {
        return dir_hosts_ ? dir_hosts_->insecure(authority, host) : flag_hosts_.insecure(authority, host);
    }
    static RegistryCacheSettings cache_settings(const RegistrySettings& settings);

    RegistrySettings settings_;
    std::unique_ptr<CurlTransport> transport_;
    std::unique_ptr<CredentialProviders> providers_;  // null: no plugins configured
    UnionKeyring keyring_;  // --registry-auth, then the plugins, as the kubelet's node keyring
    FlagRegistryHosts flag_hosts_;
    std::unique_ptr<HostsDirectory> dir_hosts_;  // --registry-hosts-dir; null: the flags' hosts
    Authorizer authorizer_;
    RegistryClient client_;
    LoggedFetcher logged_;
    RegistryCache cache_;  // last of the parts: its workers stop before what they use goes
    CachedRegistrySource source_;
};

}  // namespace miw::server
