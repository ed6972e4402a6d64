#include "policy_options.hpp"

namespace miw::cli {

void add_policy_options(cxxopts::Options& options, const std::string& default_kube_version) {
    options.add_options()
        ("kube-version", "apiserver version the decisions assume, e.g. v1.35.0", cxxopts::value<std::string>()->default_value(default_kube_version))
        ("digest-algorithms", "digest algorithms a pinned reference may use: sha256, sha512 or both, comma-separated",
         cxxopts::value<std::string>()->default_value("sha256"));
}

std::optional<PolicyConfig> policy_from_options(const cxxopts::ParseResult& parsed, const std::string& kube_version, std::string& error) {
    PolicyConfig config;
    config.apiserver = ApiserverVersion::from_text(kube_version);
    if (!kube_version.empty() && !config.apiserver.parsed) {
        error = "--kube-version \"" + kube_version + "\" cannot be read; write it as vMAJOR.MINOR[.PATCH], e.g. v1.35.0";
        return std::nullopt;
    }
    const std::string algorithms = parsed["digest-algorithms"].as<std::string>();
    const auto digest = parse_digest_algorithms(algorithms);
    if (!digest) {
        error = "--digest-algorithms \"" + algorithms + "\" is not a comma-separated list of sha256 and sha512";
        return std::nullopt;
    }
    config.digest_algorithms = *digest;
    return config;
}

std::optional<cxxopts::ParseResult> parse_command_line(cxxopts::Options& options, int argc, char** argv, std::string& error) {
    try {
        return options.parse(argc, argv);
    } catch (const cxxopts::exceptions::exception& e) {
        error = e.what();
        return std::nullopt;
    }
}

}  // namespace miw::cli
