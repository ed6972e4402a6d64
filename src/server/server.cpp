#include "server.hpp"

#include "cpu_budget.hpp"
#include "kube_client.hpp"
#include "artifact_watch.hpp"
#include "node_watch.hpp"
#include "registry/lookups.hpp"
#include "listener.hpp"
#include "log.hpp"
#include "session.hpp"
#include "tls.hpp"

#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/signal_set.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/thread_pool.hpp>

#include <malloc.h>

#include <condition_variable>
#include <csignal>
#include <functional>
#include <mutex>
#include <thread>

namespace miw::server {

namespace net = boost::asio;
using std::chrono::milliseconds;

namespace {

// The hosts of --registry-hosts-dir whose certificate is not verified, and what the webhook does not do.
void log_registry_hosts(const std::vector<std::string>& unverified, const std::vector<std::string>& notes) {
    for (const std::string& host : unverified) Log::instance().write("warning", "registry host without certificate verification (skip_verify)", {{"host", host}});
    for (const std::string& note : notes) Log::instance().write("warning", "registry hosts", {{"note", note}});
}

// Runs `work` on its own thread until stopped, each run starting the
// duration the previous one returned after that one started (a fixed rate:
// the time a call takes does not stretch the interval).
class Repeater {
public:
    ~Repeater() { stop(); }

    void start(std::function<milliseconds()> work) {
        thread_ = std::thread([this, work = std::move(work)] {
            std::unique_lock lock(mutex_);
            while (!stopped_) {
                lock.unlock();
                const auto started = std::chrono::steady_clock::now();
                const milliseconds next = work();
                lock.lock();
                wake_.wait_until(lock, started + next, [this] { return stopped_; });
            }
        });
    }
    void stop() {
        {
            std::lock_guard lock(mutex_);
            stopped_ = true;
        }
        wake_.notify_all();
        if (thread_.joinable()) thread_.join();
    }

private:
    std::thread thread_;
    std::mutex mutex_;
    std::condition_variable wake_;
    bool stopped_ = false;
};

// Reviews that may wait on Node lookups run on a pool of this size, off the
// I/O threads: a lookup waits at most its deadline, so a hanging API costs
// each request no more than its ?timeout=.
constexpr std::size_t kBlockingThreads = 32;

// A crowd of this many connections gone since the heap was last trimmed
// (docs/operations.md, "Memory budget") has the heap trimmed.
constexpr std::int64_t kTrimAfterClosedConnections = 64;

}  // namespace

class Server::Impl {
public:
    explicit Impl(ServeConfig config)
        : config_(std::move(config)),
          state_(config_.policy),
          tls_({config_.tls_cert, config_.tls_key, config_.client_ca}, state_.metrics),
          context_{state_, config_.limits, {}, nullptr, {}},
          cpu_budget_(detect_cpu_budget()),
          threads_(config_.threads != 0 ? config_.threads : cpu_budget_.threads),
          contexts_(make_contexts(threads_)),
          reload_timer_(io()),
          flush_timer_(io()),
          drain_timer_(io()),
          signals_(io(), SIGTERM, SIGINT, SIGHUP) {
        for (auto& c : contexts_) workers_.push_back(c.get());
        // Reviews take the memory for the JSON they read from the bodies' budget.
        state_.review_memory = &context_.bytes_in_flight;
    }

    Status start() {
        state_.version_known = !config_.auto_version;
        state_.node_lookup_timeout = config_.node_lookup_timeout;
        state_.enforcement = config_.enforcement;
        if (!config_.auto_version) state_.metrics.set_apiserver_version(config_.policy.apiserver.text);
        if (Status loaded = tls_.load(); !loaded) return loaded;
        state_.certificate_loaded = true;
        if (config_.api) {
            client_.emplace(*config_.api);
            api_nodes_.emplace(*client_, config_.node_cache_ttl, config_.node_lookup_timeout);
            state_.nodes = &*api_nodes_;
            if (config_.watch_nodes) {
                watched_nodes_.emplace(node_cache_, *api_nodes_);
                node_watch_.emplace(*client_, node_cache_, state_.metrics);
                state_.nodes = &*watched_nodes_;
            }
            if (config_.watch_artifacts) {
                artifact_watch_.emplace(*client_, artifact_cache_, state_.metrics);
                state_.artifacts = &artifact_cache_;
            }
        }
        if (config_.registry) {
            auto lookups = RegistryLookups::create(*config_.registry, [](std::string_view reference, std::string_view detail) {
                Log::instance().write("warning", "registry lookup", {{"reference", reference}, {"detail", detail}});
            });
            if (!lookups) return fail(lookups.error());
            registry_ = std::move(*lookups);
            state_.registry = &registry_->cache();
            state_.registry_timeout = registry_->timeout();
            if (config_.signature_verifier) {
                signatures_ = registry_->signature_checks(config_.signature_verifier, [metrics = &state_.metrics] { metrics->signature_fetch(); });
                state_.signatures = signatures_.get();
            }
            log_registry_hosts(registry_->hosts_unverified(), registry_->hosts_notes());
            registry_->start_reloading([metrics = &state_.metrics](const RegistryReload& r) {
                std::string changed;
                for (const std::string& flag : r.changed) changed += (changed.empty() ? "" : ",") + flag;
                if (r.applied) Log::instance().write("info", "registry files re-read", {{"changed", changed}});
                if (!r.error.empty()) Log::instance().write("error", "registry file not re-read: its last good version serves", {{"error", r.error}});
                if (r.applied) metrics->registry_config_reload(true);
                if (!r.error.empty()) metrics->registry_config_reload(false);
                log_registry_hosts(r.unverified, r.notes);
            });
            if (client_ && config_.pull_secrets) {
                pull_secrets_.emplace(
                    [client = &*client_](const std::string& path, std::size_t max_body, Deadline deadline) {
                        KubeClient::Response r = client->get(path, max_body, deadline);
                        return ApiGetAnswer{r.status, std::move(r.body), std::move(r.error)};
                    },
                    PullSecretSettings{}, [metrics = &state_.metrics](std::string_view kind, std::string_view result) { metrics->pull_secret_read(kind, result); },
                    [](std::string_view what, std::string_view why) {
                        Log::instance().write("warning", "pull secret not used", {{"object", what}, {"why", why}});
                    });
                state_.pull_secrets = &*pull_secrets_;
            }
        }
        if (config_.api || registry_) {
            blocking_.emplace(kBlockingThreads);
            context_.blocking = &*blocking_;
        }
        // Memory a hostile client made the server take must go back to the
        // system when its connection ends. glibc's threshold for mmap'ing a
        // block moves up (to 32 MiB) after the first large free, and from then
        // on multi-megabyte bodies and answers come from the heap, which is
        // not returned: a fixed threshold keeps every large block mmap'ed.
        mallopt(M_MMAP_THRESHOLD, 256 * 1024);
        mallopt(M_TRIM_THRESHOLD, 1024 * 1024);
        // OpenSSL writes to the sockets itself, with write(): a client that
        // has gone away must be an EPIPE on its connection, not a signal that
        // ends the process.
        std::signal(SIGPIPE, SIG_IGN);

        const auto admission = parse_listen_address(config_.listen);
        if (!admission) return fail("--listen " + admission.error());
        const auto metrics = config_.metrics_listen.empty() ? Result<net::ip::tcp::endpoint>(net::ip::tcp::endpoint()) : parse_listen_address(config_.metrics_listen);
        if (!metrics) return fail("--metrics-listen " + metrics.error());
        // Binding throws: the one place at start-up where an exception is the error.
        try {
            listeners_.push_back(std::make_shared<Listener>(io(), workers_, *admission, context_, Port::admission, &tls_));
            if (!config_.metrics_listen.empty()) {
                listeners_.push_back(std::make_shared<Listener>(io(), workers_, *metrics, context_, Port::metrics_only, nullptr));
            }
        } catch (const boost::system::system_error& e) {
            return fail(std::string("cannot listen: ") + e.what());
        }
        return done();
    }

    int run() {
        for (auto& l : listeners_) l->run();
        if (config_.auto_version) start_version_refresh();
        if (node_watch_) node_watch_->start();
        if (artifact_watch_) artifact_watch_->start();
        schedule_reload();
        schedule_housekeeping();
        on_signal();
        const auto& at = listeners_.front()->local_endpoint();
        Log::instance().info("serving", {{"listen", at.address().to_string() + ":" + std::to_string(at.port())},
                                         {"metricsListen", config_.metrics_listen},
                                         {"kubeVersion", config_.kube_version_flag},
                                         {"kubeApi", client_ ? client_->describe() : std::string("none")},
                                         {"mtls", !config_.client_ca.empty()},
                                         {"nodeWatch", node_watch_.has_value()},
                                         {"enforcement", to_string(config_.enforcement)},
                                         {"registryCheck", to_string(config_.policy.registry_check)},
                                         {"registryPullSecrets", pull_secrets_.has_value()},
                                         {"signaturePolicies", static_cast<long long>(config_.policy.signature_policy ? config_.policy.signature_policy->policies.size() : 0)},
                                         {"threads", static_cast<long long>(threads_)},
                                         {"threadsFrom", config_.threads != 0 ? std::string("--threads") : cpu_budget_.explained}});
        // Worker contexts have no work of their own between connections: keep them running.
        std::vector<net::executor_work_guard<net::io_context::executor_type>> keep_running;
        for (unsigned i = 1; i < threads_; ++i) keep_running.emplace_back(contexts_[i]->get_executor());
        // I/O threads review one request after another: each keeps the large arena.
        const auto run_io = [this](unsigned i) {
            set_thread_review_arena(kLargeReviewArenaBytes);
            contexts_[i]->run();
        };
        std::vector<std::thread> io_threads;
        for (unsigned i = 1; i < threads_; ++i) io_threads.emplace_back(run_io, i);
        run_io(0);  // this thread runs the first context, io()
        for (auto& c : contexts_) c->stop();
        for (auto& t : io_threads) t.join();
        if (blocking_) blocking_->join();
        version_refresh_.stop();
        if (node_watch_) node_watch_->stop();
        if (artifact_watch_) artifact_watch_->stop();
        Log::instance().flush();
        return 0;
    }

private:
    // One io_context per I/O thread; the first also runs the listeners,
    // signals and timers.
    static std::vector<std::unique_ptr<net::io_context>> make_contexts(unsigned count) {
        std::vector<std::unique_ptr<net::io_context>> out;
        for (unsigned i = 0; i < count; ++i) out.push_back(std::make_unique<net::io_context>(1));
        return out;
    }
    net::io_context& io() { return *contexts_.front(); }

    void start_version_refresh() {
        const milliseconds refresh = config_.version_refresh_interval;
        const milliseconds retry = std::min(refresh, milliseconds(2000));
        version_refresh_.start([this, refresh, retry]() -> milliseconds {
            const Result<std::string> fetched = fetch_apiserver_version(*client_, std::chrono::seconds(5));
            if (!fetched) {
                Log::instance().error("apiserver version not read", {{"api", client_->describe()}, {"reason", fetched.error()}});
                return state_.version_known ? refresh : retry;
            }
            const std::string& seen = *fetched;
            const auto version = ApiserverVersion::from_text(seen);
            const bool changed = state_.policy.get()->apiserver.text != seen;
            state_.policy.set_apiserver_version(version);
            state_.metrics.set_apiserver_version(seen);
            // An unreadable version keeps /readyz failing: every CREATE would be refused by it.
            const bool readable = version.parsed.has_value();
            if (changed || readable != state_.version_known) {
                if (readable) Log::instance().info("apiserver version", {{"version", seen}});
                else Log::instance().error("apiserver version is not readable; not ready until it is", {{"version", seen}});
            }
            state_.version_known = readable;
            return readable ? refresh : retry;
        });
    }

    // The certificate files, checked every --tls-reload-interval.
    void schedule_reload() {
        reload_timer_.expires_after(config_.tls_reload_interval);
        reload_timer_.async_wait([this](boost::system::error_code ec) {
            if (ec) return;
            tls_.poll();
            schedule_reload();
        });
    }

    // Each second: the heap trimmed once a crowd of connections has gone (a
    // burst of handshakes, an attack); glibc keeps freed memory inside its
    // heaps otherwise. Steady traffic does not trim. (The log writes itself,
    // off the I/O threads.)
    void schedule_housekeeping() {
        flush_timer_.expires_after(std::chrono::seconds(1));
        flush_timer_.async_wait([this](boost::system::error_code ec) {
            if (ec) return;
            const std::int64_t open = state_.metrics.open_connections();
            connections_high_ = std::max(connections_high_, open);
            if (connections_high_ - open >= kTrimAfterClosedConnections) {
                malloc_trim(0);
                connections_high_ = open;
            }
            schedule_housekeeping();
        });
    }

    // SIGTERM/SIGINT: fail /readyz at once, keep answering (each answer
    // closing its connection) for --shutdown-delay, then stop accepting, close
    // the connections with no request in progress and exit when the rest are
    // done or --shutdown-timeout passes. SIGHUP: check the certificate files now.
    void on_signal() {
        signals_.async_wait([this](boost::system::error_code ec, int signal) {
            if (ec) return;
            if (signal == SIGHUP) {
                tls_.poll();
                return on_signal();
            }
            if (state_.draining.exchange(true)) return;
            Log::instance().info("shutting down", {{"signal", static_cast<long long>(signal)}, {"delayMs", static_cast<long long>(config_.shutdown_delay.count())}});
            drain_timer_.expires_after(config_.shutdown_delay);
            drain_timer_.async_wait([this](boost::system::error_code wait_ec) {
                if (wait_ec) return;
                for (auto& l : listeners_) l->stop();
                reload_timer_.cancel();
                give_up_ = std::chrono::steady_clock::now() + config_.shutdown_timeout;
                wait_for_connections();
            });
        });
    }

    void wait_for_connections() {
        if (state_.metrics.open_connections() == 0 || std::chrono::steady_clock::now() >= give_up_) {
            Log::instance().info("stopped", {{"openConnections", static_cast<long long>(state_.metrics.open_connections())}});
            for (auto& c : contexts_) c->stop();
            return;
        }
        context_.registry.close_idle();
        drain_timer_.expires_after(milliseconds(50));
        drain_timer_.async_wait([this](boost::system::error_code ec) {
            if (!ec) wait_for_connections();
        });
    }

    ServeConfig config_;
    ServerState state_;
    TlsContextProvider tls_;
    std::optional<KubeClient> client_;
    std::optional<ApiNodeSource> api_nodes_;
    NodeCache node_cache_{"the Kubernetes API"};
    std::optional<WatchedNodeSource> watched_nodes_;
    std::optional<NodeWatch> node_watch_;
    // A ModelArtifact created a moment ago may not have reached the watch: the origin says so.
    ArtifactCache artifact_cache_{"the ModelArtifacts the server watches (one created a moment ago may not have reached it yet: retry)"};
    std::optional<ArtifactWatch> artifact_watch_;
    ServerContext context_;
    std::unique_ptr<RegistryLookups> registry_;  // --registry-check on, or --signature-policy
    std::unique_ptr<SignatureChecks> signatures_;  // --signature-policy
    std::optional<PullSecrets> pull_secrets_;  // --registry-pull-secrets, with an API to read them from
    std::optional<net::thread_pool> blocking_;
    CpuBudget cpu_budget_;
    unsigned threads_;
    std::vector<std::unique_ptr<net::io_context>> contexts_;
    std::vector<net::io_context*> workers_;
    std::vector<std::shared_ptr<Listener>> listeners_;
    Repeater version_refresh_;
    net::steady_timer reload_timer_;
    net::steady_timer flush_timer_;
    net::steady_timer drain_timer_;
    net::signal_set signals_;
    std::chrono::steady_clock::time_point give_up_;
    std::int64_t connections_high_ = 0;  // the most open at once since the heap was last trimmed
};

Server::Server(ServeConfig config) : impl_(std::make_unique<Impl>(std::move(config))) {}
Server::~Server() = default;
Status Server::start() { return impl_->start(); }
int Server::run() { return impl_->run(); }

}  // namespace miw::server
