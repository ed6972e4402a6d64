// `model-image-webhook serve`: the HTTPS admission webhook server.
#include "commands.hpp"
#include "policy_options.hpp"

#include "../server/kube_client.hpp"
#include "../server/listener.hpp"
#include "../server/log.hpp"
#include "../server/router.hpp"
#include "../server/tls.hpp"

#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/signal_set.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/thread_pool.hpp>

#include <condition_variable>
#include <csignal>
#include <cstdlib>
#include <functional>
#include <malloc.h>
#include <iostream>
#include <thread>

namespace miw::cli {

namespace {

namespace net = boost::asio;
using server::Log;
using std::chrono::milliseconds;

int startup_error(const std::string& message) { return usage_error("serve", message); }

// Every flag can come from the environment as MIW_<FLAG>, for containers;
// the command line wins.
std::vector<std::string> arguments_with_environment(int argc, char** argv, const cxxopts::Options& options) {
    std::vector<std::string> args(argv, argv + argc);
    for (const auto& group : options.groups()) {
        for (const auto& option : options.group_help(group).options) {
            if (option.l.empty()) continue;
            const std::string& name = option.l.front();
            if (name == "help") continue;
            std::string env = "MIW_";
            for (char c : name) env += c == '-' ? '_' : static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
            const char* value = std::getenv(env.c_str());
            if (value == nullptr) continue;
            bool given = false;
            for (int i = 1; i < argc; ++i) {
                const std::string a = argv[i];
                given = given || a == "--" + name || a.rfind("--" + name + "=", 0) == 0;
            }
            if (!given) args.push_back("--" + name + "=" + value);
        }
    }
    return args;
}

// Runs `work` on its own thread until stopped, each run starting the
// duration the previous one returned after that one started (a fixed rate:
// the time a call takes does not stretch the interval).
class Repeater {
public:
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

}  // namespace

int run_serve(int argc, char** argv) {
    cxxopts::Options options("model-image-webhook serve", "Serve the admission webhook over HTTPS. Every flag can also be set as MIW_<FLAG>, e.g. MIW_TLS_CERT.");
    options.add_options()
        ("listen", "HOST:PORT to serve HTTPS on", cxxopts::value<std::string>()->default_value("0.0.0.0:8443"))
        ("tls-cert", "PEM certificate chain (re-read when it changes)", cxxopts::value<std::string>())
        ("tls-key", "PEM private key (re-read when it changes)", cxxopts::value<std::string>())
        ("client-ca", "PEM CA bundle: require client certificates signed by it (mTLS)", cxxopts::value<std::string>()->default_value(""))
        ("tls-reload-interval", "how often the certificate files are checked for changes", cxxopts::value<std::string>()->default_value("10s"))
        ("metrics-listen", "HOST:PORT to serve /metrics, /healthz and /readyz on in plain HTTP (empty: off)", cxxopts::value<std::string>()->default_value(""))
        ("max-body-bytes", "largest request body accepted (413 above it)", cxxopts::value<std::size_t>()->default_value(std::to_string(8u << 20)))
        ("max-header-bytes", "largest request header accepted (431 above it)", cxxopts::value<std::size_t>()->default_value("16384"))
        ("max-connections", "open connections at most; more are closed at once", cxxopts::value<std::size_t>()->default_value("1024"))
        ("max-handshakes", "TLS handshakes in progress at most; more connections wait in the accept backlog", cxxopts::value<std::size_t>()->default_value("256"))
        ("max-body-bytes-in-flight", "request body bytes read or reviewed at once at most (503 above it)",
         cxxopts::value<std::size_t>()->default_value(std::to_string(24u << 20)))
        ("handshake-timeout", "TLS handshake deadline", cxxopts::value<std::string>()->default_value("5s"))
        ("header-timeout", "deadline for a new connection's first request header, from the end of the handshake", cxxopts::value<std::string>()->default_value("5s"))
        ("read-timeout", "deadline for a whole request, from its first byte", cxxopts::value<std::string>()->default_value("10s"))
        ("write-timeout", "deadline for writing an answer", cxxopts::value<std::string>()->default_value("10s"))
        ("idle-timeout", "how long a kept-alive connection may wait for its next request", cxxopts::value<std::string>()->default_value("120s"))
        ("threads", "worker threads (0: one per core)", cxxopts::value<unsigned>()->default_value("0"))
        ("shutdown-delay", "after SIGTERM, how long to keep answering (with Connection: close) before closing the listener",
         cxxopts::value<std::string>()->default_value("5s"))
        ("shutdown-timeout", "after the delay, how long in-flight requests may take before the process exits", cxxopts::value<std::string>()->default_value("20s"))
        ("kube-api-url", "https://HOST:PORT of the Kubernetes API (default: in-cluster)", cxxopts::value<std::string>()->default_value(""))
        ("kube-token-file", "bearer token file for the Kubernetes API", cxxopts::value<std::string>()->default_value(""))
        ("kube-ca-file", "CA bundle of the Kubernetes API", cxxopts::value<std::string>()->default_value(""))
        ("version-refresh-interval", "how often --kube-version auto asks the apiserver again", cxxopts::value<std::string>()->default_value("5m"))
        ("node-cache-ttl", "how long a Node read from the API is reused", cxxopts::value<std::string>()->default_value("30s"))
        ("node-lookup-timeout", "deadline of a Node lookup (also bounded by the request's ?timeout=)", cxxopts::value<std::string>()->default_value("2s"))
        ("h,help", "show this help");
    add_policy_options(options, "auto");

    const std::vector<std::string> args = arguments_with_environment(argc, argv, options);
    std::vector<char*> arg_pointers;
    for (const auto& a : args) arg_pointers.push_back(const_cast<char*>(a.c_str()));
    std::string error;
    const auto command_line = parse_command_line(options, static_cast<int>(arg_pointers.size()), arg_pointers.data(), error);
    if (!command_line) return startup_error(error);
    const cxxopts::ParseResult& parsed = *command_line;
    if (parsed.count("help")) {
        std::cout << options.help() << "\n";
        return 0;
    }
    if (!parsed.count("tls-cert") || !parsed.count("tls-key")) return startup_error("--tls-cert and --tls-key are required");

    std::map<std::string, milliseconds> durations;
    for (const char* name : {"tls-reload-interval", "handshake-timeout", "header-timeout", "read-timeout", "write-timeout", "idle-timeout", "shutdown-delay", "shutdown-timeout",
                             "version-refresh-interval", "node-cache-ttl", "node-lookup-timeout"}) {
        const std::string text = parsed[name].as<std::string>();
        const auto d = server::parse_duration(text);
        if (!d) return startup_error("--" + std::string(name) + " \"" + text + "\" is not a duration such as 500ms, 10s or 5m");
        durations[name] = *d;
    }

    const std::string kube_version = parsed["kube-version"].as<std::string>();
    const bool auto_version = kube_version == "auto";
    const auto configured = policy_from_options(parsed, auto_version ? std::string() : kube_version, error);
    if (!configured) return startup_error(error + (auto_version ? "" : ", or auto"));
    const PolicyConfig& policy = *configured;

    std::optional<server::KubeApiConfig> api;
    if (const std::string url = parsed["kube-api-url"].as<std::string>(); !url.empty()) {
        server::KubeApiConfig config;
        if (!server::parse_api_url(url, config)) return startup_error("--kube-api-url \"" + url + "\" is not https://HOST[:PORT]");
        config.token_file = parsed["kube-token-file"].as<std::string>();
        config.ca_file = parsed["kube-ca-file"].as<std::string>();
        api = config;
    } else {
        api = server::in_cluster_config();
    }
    if (auto_version && !api) {
        return startup_error("--kube-version auto reads the apiserver version, but there is no Kubernetes API to ask (not in a cluster, no --kube-api-url); "
                             "give the version, e.g. --kube-version v1.35.0");
    }

    server::ServerState state(policy);
    state.version_known = !auto_version;
    state.node_lookup_timeout = durations["node-lookup-timeout"];
    if (!auto_version) state.metrics.set_apiserver_version(kube_version);

    server::TlsContextProvider tls({parsed["tls-cert"].as<std::string>(), parsed["tls-key"].as<std::string>(), parsed["client-ca"].as<std::string>()},
                                   state.metrics);
    if (!tls.load(error)) return startup_error(error);
    state.certificate_loaded = true;

    std::optional<server::KubeClient> client;
    std::optional<server::ApiNodeSource> api_nodes;
    if (api) {
        client.emplace(*api);
        api_nodes.emplace(*client, durations["node-cache-ttl"], durations["node-lookup-timeout"]);
        state.nodes = &*api_nodes;
    }

    server::ServerContext context{state, {}, {}, nullptr, {}};
    context.limits.max_body_bytes = parsed["max-body-bytes"].as<std::size_t>();
    context.limits.max_header_bytes = parsed["max-header-bytes"].as<std::size_t>();
    context.limits.max_connections = parsed["max-connections"].as<std::size_t>();
    context.limits.max_handshakes = parsed["max-handshakes"].as<std::size_t>();
    context.limits.max_body_bytes_in_flight = parsed["max-body-bytes-in-flight"].as<std::size_t>();
    if (context.limits.max_body_bytes_in_flight < context.limits.max_body_bytes) {
        return startup_error("--max-body-bytes-in-flight must be at least --max-body-bytes, or the largest body could never be read");
    }
    context.limits.handshake_timeout = durations["handshake-timeout"];
    context.limits.header_timeout = durations["header-timeout"];
    context.limits.read_timeout = durations["read-timeout"];
    context.limits.write_timeout = durations["write-timeout"];
    context.limits.idle_timeout = durations["idle-timeout"];

    // Reviews that may wait on Node lookups run here, off the I/O threads.
    std::optional<net::thread_pool> blocking;
    if (api_nodes) {
        blocking.emplace(32);
        context.blocking = &*blocking;
    }

    // Memory a hostile client made the server take must go back to the system
    // when its connection ends. glibc's threshold for mmap'ing a block moves up
    // (to 32 MiB) after the first large free, and from then on multi-megabyte
    // bodies and answers come from the heap, which is not returned: a fixed
    // threshold keeps every large block mmap'ed and unmapped on free.
    mallopt(M_MMAP_THRESHOLD, 256 * 1024);
    mallopt(M_TRIM_THRESHOLD, 1024 * 1024);

    // OpenSSL writes to the sockets itself, with write(): a client that has
    // gone away must be an EPIPE on its connection, not a signal that ends
    // the process.
    std::signal(SIGPIPE, SIG_IGN);

    unsigned threads = parsed["threads"].as<unsigned>();
    if (threads == 0) threads = std::max(1u, std::thread::hardware_concurrency());
    // One io_context per I/O thread; the first also runs the listeners,
    // signals and timers.
    std::vector<std::unique_ptr<net::io_context>> contexts;
    std::vector<net::io_context*> workers;
    for (unsigned i = 0; i < threads; ++i) {
        contexts.push_back(std::make_unique<net::io_context>(1));
        workers.push_back(contexts.back().get());
    }
    net::io_context& io = *contexts.front();

    std::vector<std::shared_ptr<server::Listener>> listeners;
    try {
        net::ip::tcp::endpoint endpoint;
        if (!server::parse_listen_address(parsed["listen"].as<std::string>(), endpoint, error)) return startup_error("--listen " + error);
        listeners.push_back(std::make_shared<server::Listener>(io, workers, endpoint, context, server::Port::admission, &tls));
        if (const std::string metrics = parsed["metrics-listen"].as<std::string>(); !metrics.empty()) {
            if (!server::parse_listen_address(metrics, endpoint, error)) return startup_error("--metrics-listen " + error);
            listeners.push_back(std::make_shared<server::Listener>(io, workers, endpoint, context, server::Port::metrics_only, nullptr));
        }
    } catch (const boost::system::system_error& e) {
        return startup_error(std::string("cannot listen: ") + e.what());
    }
    for (auto& l : listeners) l->run();

    Repeater version_refresh;
    if (auto_version) {
        // Captured by value: this block's locals are gone by the time the thread runs.
        const milliseconds refresh = durations["version-refresh-interval"];
        const milliseconds retry = std::min(refresh, milliseconds(2000));
        version_refresh.start([refresh, retry, &client, &state]() -> milliseconds {
            std::string reason;
            const std::string seen = server::fetch_apiserver_version(*client, std::chrono::seconds(5), reason);
            if (seen.empty()) {
                Log::instance().error("apiserver version not read", {{"api", client->describe()}, {"reason", reason}});
                return state.version_known ? refresh : retry;
            }
            const auto version = ApiserverVersion::from_text(seen);
            const bool changed = state.policy.get()->apiserver.text != seen;
            state.policy.set_apiserver_version(version);
            state.metrics.set_apiserver_version(seen);
            // An unreadable version keeps /readyz failing: every CREATE would be refused by it.
            const bool readable = version.parsed.has_value();
            if (changed || readable != state.version_known) {
                if (readable) Log::instance().info("apiserver version", {{"version", seen}});
                else Log::instance().error("apiserver version is not readable; not ready until it is", {{"version", seen}});
            }
            state.version_known = readable;
            return readable ? refresh : retry;
        });
    }

    // Periodic work on the io_context: certificate checks and log flushes.
    net::steady_timer reload_timer(io);
    std::function<void()> schedule_reload = [&] {
        reload_timer.expires_after(durations["tls-reload-interval"]);
        reload_timer.async_wait([&](boost::system::error_code ec) {
            if (ec) return;
            tls.poll();
            schedule_reload();
        });
    };
    schedule_reload();
    net::steady_timer flush_timer(io);
    std::int64_t connections_high = 0;  // the most open at once since memory was last trimmed
    std::function<void()> schedule_flush = [&] {
        flush_timer.expires_after(std::chrono::seconds(1));
        flush_timer.async_wait([&](boost::system::error_code ec) {
            if (ec) return;
            Log::instance().flush();
            // Once a crowd of connections has gone (a burst of handshakes, an
            // attack), the small blocks it left free are handed back: glibc
            // keeps freed memory inside its heaps otherwise. Steady traffic
            // does not trim.
            const std::int64_t open = state.metrics.open_connections();
            connections_high = std::max(connections_high, open);
            if (connections_high - open >= 64) {
                malloc_trim(0);
                connections_high = open;
            }
            schedule_flush();
        });
    };
    schedule_flush();

    // SIGTERM/SIGINT: fail /readyz at once, keep answering (each answer
    // closing its connection) for --shutdown-delay, then stop accepting, close
    // idle connections and exit when the rest are done or the timeout passes.
    // SIGHUP: check the certificate files now.
    net::signal_set signals(io, SIGTERM, SIGINT, SIGHUP);
    net::steady_timer drain_timer(io);
    std::chrono::steady_clock::time_point give_up;
    std::function<void()> wait_for_connections = [&] {
        if (state.metrics.open_connections() == 0 || std::chrono::steady_clock::now() >= give_up) {
            Log::instance().info("stopped", {{"openConnections", static_cast<long long>(state.metrics.open_connections())}});
            for (auto& c : contexts) c->stop();
            return;
        }
        context.registry.close_idle();
        drain_timer.expires_after(milliseconds(50));
        drain_timer.async_wait([&](boost::system::error_code ec) {
            if (!ec) wait_for_connections();
        });
    };
    std::function<void()> on_signal = [&] {
        signals.async_wait([&](boost::system::error_code ec, int signal) {
            if (ec) return;
            if (signal == SIGHUP) {
                tls.poll();
                return on_signal();
            }
            if (state.draining.exchange(true)) return;
            Log::instance().info("shutting down", {{"signal", static_cast<long long>(signal)}, {"delayMs", static_cast<long long>(durations["shutdown-delay"].count())}});
            drain_timer.expires_after(durations["shutdown-delay"]);
            drain_timer.async_wait([&](boost::system::error_code wait_ec) {
                if (wait_ec) return;
                for (auto& l : listeners) l->stop();
                reload_timer.cancel();
                give_up = std::chrono::steady_clock::now() + durations["shutdown-timeout"];
                wait_for_connections();
            });
        });
    };
    on_signal();

    Log::instance().info("serving", {{"listen", listeners.front()->local_endpoint().address().to_string() + ":" + std::to_string(listeners.front()->local_endpoint().port())},
                                     {"metricsListen", parsed["metrics-listen"].as<std::string>()},
                                     {"kubeVersion", kube_version},
                                     {"kubeApi", client ? client->describe() : std::string("none")},
                                     {"mtls", !parsed["client-ca"].as<std::string>().empty()},
                                     {"threads", static_cast<long long>(threads)}});
    // Worker contexts have no work of their own between connections: keep them running.
    std::vector<net::executor_work_guard<net::io_context::executor_type>> keep_running;
    for (unsigned i = 1; i < threads; ++i) keep_running.emplace_back(contexts[i]->get_executor());
    std::vector<std::thread> io_threads;
    for (unsigned i = 1; i < threads; ++i) io_threads.emplace_back([&contexts, i] { contexts[i]->run(); });
    io.run();
    for (auto& c : contexts) c->stop();
    for (auto& t : io_threads) t.join();
    if (blocking) blocking->join();
    version_refresh.stop();
    Log::instance().flush();
    return 0;
}

}  // namespace miw::cli
