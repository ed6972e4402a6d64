#include "policy_options.hpp"

#include "registry_options.hpp"
#include "signature_options.hpp"

#include "model_image_webhook/text.hpp"

namespace miw::cli {

void add_policy_options(cxxopts::Options& options, const std::string& default_kube_version) {
    options.add_options()
        ("kube-version", "apiserver version the decisions assume, e.g. v1.35.0", cxxopts::value<std::string>()->default_value(default_kube_version))
        ("digest-algorithms", "digest algorithms a pinned reference may use: sha256, sha512 or both, comma-separated",
         cxxopts::value<std::string>()->default_value("sha256"))
        ("status-writers", "who may write a ModelArtifact's status: user names, group:NAME, system:serviceaccount:NS:NAME, comma-separated "
                           "(default: anyone)",
         cxxopts::value<std::string>()->default_value(""))
        ("runtime-floor", "RUNTIME=VERSION: a container runtime whose Nodes may run image volumes, from that version (repeatable; "
                          "containerd=2.1 unless one names containerd), e.g. cri-o=1.31",
         cxxopts::value<std::vector<std::string>>())
        ("prefer-nodes-with-image", "add to a delivered Pod not pinned to a node a preference for the nodes that hold its image (true or false)",
         cxxopts::value<bool>()->default_value("true"))
        ("enforcement", "what a policy denial becomes: deny; warn (allowed, the reason sent as warnings); audit (allowed, recorded only in "
                        "audit annotations and metrics)",
         cxxopts::value<std::string>()->default_value("deny"));
    add_registry_options(options);
    add_signature_options(options);
}

Result<Enforcement> enforcement_from_options(const cxxopts::ParseResult& parsed) {
    const std::string text = parsed["enforcement"].as<std::string>();
    if (const auto mode = parse_enforcement(text)) return *mode;
    return fail("--enforcement \"" + text + "\" is not one of deny, warn, audit");
}

Result<PolicyConfig> policy_from_options(const cxxopts::ParseResult& parsed, const std::string& kube_version) {
    PolicyConfig config;
    config.apiserver = ApiserverVersion::from_text(kube_version);
    if (!kube_version.empty() && !config.apiserver.parsed) {
        return fail("--kube-version \"" + kube_version + "\" cannot be read; write it as vMAJOR.MINOR[.PATCH], e.g. v1.35.0");
    }
    const std::string algorithms = parsed["digest-algorithms"].as<std::string>();
    const auto digest = parse_digest_algorithms(algorithms);
    if (!digest) return fail("--digest-algorithms \"" + algorithms + "\" is not a comma-separated list of sha256 and sha512");
    config.digest_algorithms = *digest;
    const std::string writers = parsed["status-writers"].as<std::string>();
    for (std::string_view item : comma_separated(writers)) {
        if (item == "group:") return fail("--status-writers: \"group:\" names no group; write group:NAME");
        config.status_writers.emplace_back(item);
    }
    if (parsed.count("runtime-floor")) {
        for (const std::string& text : parsed["runtime-floor"].as<std::vector<std::string>>()) {
            const auto floor = parse_runtime_floor(text);
            if (!floor) return fail("--runtime-floor \"" + text + "\" is not RUNTIME=VERSION, e.g. cri-o=1.31 or containerd=2.1");
            config.set_runtime_floor(*floor);
        }
    }
    config.prefer_nodes_with_image = parsed["prefer-nodes-with-image"].as<bool>();
    const auto registry_check = registry_check_from_options(parsed);
    if (!registry_check) return fail(registry_check.error());
    config.registry_check = *registry_check;
    return config;
}

// cxxopts reports a bad command line by throwing; this is the one place that
// turns that into a value.
Result<cxxopts::ParseResult> parse_command_line(cxxopts::Options& options, int argc, char** argv) {
    try {
        return options.parse(argc, argv);
    } catch (const cxxopts::exceptions::exception& e) {
        return fail(e.what());
    }
}

}  // namespace miw::cli
