// `model-image-webhook serve`: the HTTPS admission webhook server. This file
// turns flags into a ServeConfig; server::Server runs it.
#include "commands.hpp"
#include "policy_options.hpp"
#include "registry_options.hpp"
#include "signature_options.hpp"

#include "../server/kube_api_config.hpp"
#include "../server/router.hpp"
#include "../server/server.hpp"

#include <cstdlib>
#include <iostream>

namespace miw::cli {

namespace {

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

// The ServeConfig the flags describe.
Result<server::ServeConfig> serve_config_from(const cxxopts::ParseResult& parsed) {
    if (!parsed.count("tls-cert") || !parsed.count("tls-key")) return fail("--tls-cert and --tls-key are required");
    server::ServeConfig config;
    config.listen = parsed["listen"].as<std::string>();
    config.metrics_listen = parsed["metrics-listen"].as<std::string>();
    config.tls_cert = parsed["tls-cert"].as<std::string>();
    config.tls_key = parsed["tls-key"].as<std::string>();
    config.client_ca = parsed["client-ca"].as<std::string>();
    config.threads = parsed["threads"].as<unsigned>();
    config.watch_nodes = parsed["watch-nodes"].as<bool>();
    config.watch_artifacts = parsed["watch-artifacts"].as<bool>();

    std::string error;
    const auto duration = [&](const char* name, milliseconds& out) {
        const std::string text = parsed[name].as<std::string>();
        const auto d = server::parse_duration(text);
        if (!d) error = "--" + std::string(name) + " \"" + text + "\" is not a duration such as 500ms, 10s or 5m";
        else out = *d;
        return d.has_value();
    };
    server::ServerLimits& limits = config.limits;
    if (!duration("tls-reload-interval", config.tls_reload_interval) || !duration("handshake-timeout", limits.handshake_timeout) ||
        !duration("header-timeout", limits.header_timeout) || !duration("read-timeout", limits.read_timeout) ||
        !duration("write-timeout", limits.write_timeout) || !duration("idle-timeout", limits.idle_timeout) ||
        !duration("shutdown-delay", config.shutdown_delay) || !duration("shutdown-timeout", config.shutdown_timeout) ||
        !duration("version-refresh-interval", config.version_refresh_interval) || !duration("node-cache-ttl", config.node_cache_ttl) ||
        !duration("node-lookup-timeout", config.node_lookup_timeout)) {
        return fail(error);
    }
    limits.max_body_bytes = parsed["max-body-bytes"].as<std::size_t>();
    limits.max_header_bytes = parsed["max-header-bytes"].as<std::size_t>();
    limits.max_connections = parsed["max-connections"].as<std::size_t>();
    limits.max_handshakes = parsed["max-handshakes"].as<std::size_t>();
    limits.max_body_bytes_in_flight = parsed["max-body-bytes-in-flight"].as<std::size_t>();
    if (limits.max_body_bytes_in_flight < limits.max_body_bytes) {
        return fail("--max-body-bytes-in-flight must be at least --max-body-bytes, or the largest body could never be read");
    }

    config.kube_version_flag = parsed["kube-version"].as<std::string>();
    config.auto_version = config.kube_version_flag == "auto";
    const auto policy = policy_from_options(parsed, config.auto_version ? std::string() : config.kube_version_flag);
    if (!policy) return fail(policy.error() + (config.auto_version ? "" : ", or auto"));
    config.policy = *policy;
    const auto enforcement = enforcement_from_options(parsed);
    if (!enforcement) return fail(enforcement.error());
    config.enforcement = *enforcement;
    auto signing = signature_setup_from_options(parsed);
    if (!signing) return fail(signing.error());
    config.policy.signature_policy = signing->policy;
    config.signature_verifier = signing->verifier;
    // Signatures are fetched as digests are looked up: through the same hosts and credentials.
    if (config.policy.registry_check != RegistryCheck::off || config.policy.signature_policy != nullptr) {
        auto registry = registry_settings_from_options(parsed);
        if (!registry) return fail(registry.error());
        config.registry = std::move(*registry);
    }

    if (const std::string url = parsed["kube-api-url"].as<std::string>(); !url.empty()) {
        auto parsed_url = server::parse_api_url(url);
        if (!parsed_url) return fail("--kube-api-url " + parsed_url.error());
        server::KubeApiConfig api = *parsed_url;
        api.token_file = parsed["kube-token-file"].as<std::string>();
        api.ca_file = parsed["kube-ca-file"].as<std::string>();
        config.api = api;
    } else {
        config.api = server::in_cluster_config();
    }
    config.pull_secrets = parsed["registry-pull-secrets"].as<bool>();
    if (config.pull_secrets && config.registry && !config.api) {
        return fail("--registry-pull-secrets reads Pods' pull secrets from the Kubernetes API, but there is none to ask (not in a cluster, no --kube-api-url); "
                    "give --kube-api-url, or --registry-pull-secrets=false");
    }
    if (config.auto_version && !config.api) {
        return fail("--kube-version auto reads the apiserver version, but there is no Kubernetes API to ask (not in a cluster, no --kube-api-url); "
                    "give the version, e.g. --kube-version v1.35.0");
    }
    return config;
}

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
        ("max-connections", "open connections at most; past it the oldest that has not begun a request is closed, else the new one",
         cxxopts::value<std::size_t>()->default_value("1024"))
        ("max-handshakes", "TLS handshakes in progress at most; past it the oldest still going is closed", cxxopts::value<std::size_t>()->default_value("256"))
        ("max-body-bytes-in-flight", "request body bytes read or reviewed at once at most (503 above it; 413 for a body whose JSON alone needs more)",
         cxxopts::value<std::size_t>()->default_value(std::to_string(24u << 20)))
        ("handshake-timeout", "TLS handshake deadline", cxxopts::value<std::string>()->default_value("5s"))
        ("header-timeout", "deadline for a new connection's first request header, from the end of the handshake", cxxopts::value<std::string>()->default_value("5s"))
        ("read-timeout", "deadline for a whole request, from its first byte", cxxopts::value<std::string>()->default_value("10s"))
        ("write-timeout", "deadline for writing an answer", cxxopts::value<std::string>()->default_value("10s"))
        ("idle-timeout", "how long a kept-alive connection may wait for its next request", cxxopts::value<std::string>()->default_value("120s"))
        ("threads", "I/O threads (0: the CPUs the process may use: its affinity mask and cgroup CPU quota, rounded up)",
         cxxopts::value<unsigned>()->default_value("0"))
        ("shutdown-delay", "after SIGTERM, how long to keep answering (with Connection: close) before closing the listener",
         cxxopts::value<std::string>()->default_value("5s"))
        ("shutdown-timeout", "after the delay, how long in-flight requests may take before the process exits", cxxopts::value<std::string>()->default_value("20s"))
        ("kube-api-url", "https://HOST:PORT of the Kubernetes API (default: in-cluster)", cxxopts::value<std::string>()->default_value(""))
        ("kube-token-file", "bearer token file for the Kubernetes API", cxxopts::value<std::string>()->default_value(""))
        ("kube-ca-file", "CA bundle of the Kubernetes API", cxxopts::value<std::string>()->default_value(""))
        ("version-refresh-interval", "how often --kube-version auto asks the apiserver again", cxxopts::value<std::string>()->default_value("5m"))
        ("node-cache-ttl", "how long a Node read from the API one at a time is reused", cxxopts::value<std::string>()->default_value("30s"))
        ("watch-nodes", "list and watch the cluster's Nodes (true or false): placement needs it, and the node check then reads no Node per Pod",
         cxxopts::value<bool>()->default_value("true"))
        ("watch-artifacts", "list and watch the cluster's ModelArtifacts (true or false), which workloads name with gpustack.ai/model-artifact",
         cxxopts::value<bool>()->default_value("true"))
        ("registry-pull-secrets", "with --registry-check, look digests up with the credentials the kubelet would use: the Pod's imagePullSecrets, "
                                  "else its service account's, read by name from the API (true or false; off by default: it needs get on "
                                  "secrets in the namespaces served, granted by manifests/overlays/pull-secrets)",
         cxxopts::value<bool>()->default_value("false"))
        ("node-lookup-timeout", "deadline of a Node lookup (also bounded by the request's ?timeout=)", cxxopts::value<std::string>()->default_value("2s"))
        ("h,help", "show this help");
    add_policy_options(options, "auto");

    const std::vector<std::string> args = arguments_with_environment(argc, argv, options);
    std::vector<char*> arg_pointers;
    for (const auto& a : args) arg_pointers.push_back(const_cast<char*>(a.c_str()));
    const auto command_line = parse_command_line(options, static_cast<int>(arg_pointers.size()), arg_pointers.data());
    if (!command_line) return startup_error(command_line.error());
    const cxxopts::ParseResult& parsed = *command_line;
    if (parsed.count("help")) {
        std::cout << options.help() << "\n";
        return 0;
    }
    const auto config = serve_config_from(parsed);
    if (!config) return startup_error(config.error());
    server::Server server(*config);
    if (const Status started = server.start(); !started) return startup_error(started.error());
    return server.run();
}

}  // namespace miw::cli
