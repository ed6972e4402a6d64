// What --registry-check needs to look digests up, put together: the
// transport (libcurl), the hosts of each registry, the keyring and the
// authorizer over them, the distribution client, and the cache in front of
// it with its workers. The server and the offline commands both build it
// from RegistrySettings.
//
// The files the nodes' configuration gives (--registry-auth, --registry-ca,
// --registry-hosts-dir and its CA files, --image-credential-provider-config)
// are read into one set of parts; `serve` re-reads them when they change
// (design.md 1.8: a Secret or ConfigMap volume swaps its `..data` link, a
// CronJob rotates an ECR dockerconfigjson every 12 h), as containerd
// re-reads hosts.toml on every pull. A file that no longer reads keeps the
// last good one, said in the log and a metric; a look under way finishes
// with the parts it began with. The cache (found digests, its workers)
// outlives every set. No Boost, no libcurl here.
#pragma once

#include "authorizer.hpp"
#include "client.hpp"
#include "credential_providers.hpp"
#include "curl_transport.hpp"
#include "hosts.hpp"
#include "hosts_dir.hpp"
#include "signature_checks.hpp"
#include "signature_fetcher.hpp"

#include "model_image_webhook/registry/allow_list.hpp"
#include "model_image_webhook/registry/cache.hpp"
#include "model_image_webhook/registry/kubelet_keyring.hpp"
#include "model_image_webhook/result.hpp"

#include <chrono>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

namespace miw::server {

// Looks over the network at once, at most (docs/operations.md, "Memory budget").
inline constexpr std::size_t kConcurrentLookups = 4;

struct RegistrySettings {
    std::string ca_file;  // --registry-ca: added to the system's roots
    std::vector<std::string> insecure_hosts;  // --registry-insecure: authorities (host[:port]) or hosts spoken to over plain HTTP
    std::string hosts_dir;  // --registry-hosts-dir: containerd's config_path (mirrors); empty: none
    std::string auth_file;  // --registry-auth: a .dockerconfigjson; empty: none
    std::string credential_provider_config;  // --image-credential-provider-config; empty: no plugins
    std::string credential_provider_bin_dir;  // --image-credential-provider-bin-dir
    std::string platform = "linux/amd64";  // --registry-platform: an index's entry that is judged and sized
    std::chrono::milliseconds timeout{3000};  // --registry-timeout: one look, end to end
    std::chrono::milliseconds negative_ttl{30000};  // --registry-negative-ttl: how long a miss or a failure is kept
    std::chrono::milliseconds found_ttl{600000};  // --registry-found-ttl: how long a found digest is kept
    std::chrono::milliseconds reload_interval{10000};  // --registry-reload-interval: how often serve looks at the files
    RegistryAllowList allow;  // --registry-allow: the registries that may be asked; empty: any
};

// Where what only the operator may read goes (the transport's words, a
// plugin's stderr), one line a look: the reference, and the cause.
using OperatorLog = std::function<void(std::string_view reference, std::string_view detail)>;

// Told of each reload: whether the files that changed were applied, what
// changed or what could not be read, and the notes of a new hosts
// directory (skip_verify, client certificates) for the log.
struct RegistryReload {
    bool applied = false;
    std::vector<std::string> changed;  // the flags whose files changed and were read: "--registry-auth", ...
    std::string error;  // what could not be read, naming the file; its last good version stays
    std::vector<std::string> unverified;
    std::vector<std::string> notes;
};
using ReloadObserver = std::function<void(const RegistryReload&)>;

class RegistryLookups {
public:
    // Fails when a file cannot be read (an unreadable --registry-ca, a
    // --registry-auth that is no docker config, a plugin not in its bin dir).
    static Result<std::unique_ptr<RegistryLookups>> create(RegistrySettings settings, OperatorLog log = {});
    ~RegistryLookups();
    RegistryLookups(const RegistryLookups&) = delete;
    RegistryLookups& operator=(const RegistryLookups&) = delete;

    const RegistryCache& cache() const { return cache_; }
    std::chrono::milliseconds timeout() const { return settings_.timeout; }

    // The source the rules ask, each look bounded by --registry-timeout.
    const RegistrySource& source() const { return source_; }
    // A digest's signatures (--signature-policy), fetched with the current parts.
    SignatureFetch fetch_signatures(std::string_view reference, const PullCredentials& who, Deadline deadline) const;
    // The checks of --signature-policy over these lookups' fetcher, their
    // timeout and TTLs.
    std::unique_ptr<SignatureChecks> signature_checks(std::shared_ptr<const sigstore::ImagePolicyVerifier> verifier, std::function<void()> fetched = {}) const;
    // The --registry-hosts-dir's notes as read at start (skip_verify hosts, client certificates).
    std::vector<std::string> hosts_unverified() const;
    std::vector<std::string> hosts_notes() const;

    // Re-reads the files whose fingerprint changed, now; what serve's watch does every reload interval.
    RegistryReload reload();
    // Watches the files every reload interval on a thread of its own, until destroyed.
    void start_reloading(ReloadObserver observe);

    // The parts looks are made with now (one reading of the files).
    struct Parts;

private:
    // The current parts' client, each look's operator words written to the log.
    class CurrentClient : public RegistryFetcher {
    public:
        CurrentClient(const RegistryLookups& owner, OperatorLog log) : owner_(owner), log_(std::move(log)) {}
        using RegistryFetcher::fetch;
        RegistryLookup fetch(std::string_view reference, const PullCredentials& who, Deadline deadline) const override;

    private:
        const RegistryLookups& owner_;
        OperatorLog log_;
    };

    RegistryLookups(RegistrySettings settings, std::shared_ptr<const Parts> parts, OperatorLog log);
    std::shared_ptr<const Parts> current() const;
    static RegistryCacheSettings cache_settings(const RegistrySettings& settings);

    RegistrySettings settings_;
    mutable std::mutex parts_mutex_;
    std::shared_ptr<const Parts> parts_;
    OperatorLog log_;
    CurrentClient client_;
    RegistryCache cache_;  // its workers stop before the parts they use go
    CachedRegistrySource source_;

    std::mutex reload_mutex_;  // one reload at a time
    std::vector<std::string> failed_prints_;  // by part: the fingerprint that last failed, not read again until it changes
    std::mutex watch_mutex_;
    std::condition_variable watch_wake_;
    bool stopping_ = false;
    std::thread watcher_;
};

}  // namespace miw::server
