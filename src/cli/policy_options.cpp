#include "policy_options.hpp"

namespace miw::cli {

void add_policy_options(cxxopts::Options& options, const std::string& default_kube_version) {
    options.add_options()
        ("kube-version", "apiserver version the decisions assume, e.g. v1.35.0", cxxopts::value<std::string>()->default_value(default_kube_version))
        ("digest-algorithms", "digest algorithms a pinned reference may use: sha256, sha512 or both, comma-separated",
         cxxopts::value<std::string>()->default_value("sha256"));
}

std::optional<PolicyConfig> policy_from_options(const cxxopts::ParseResult& parsed, std::string& error) {
    PolicyConfig config;
    const std::string kube = parsed["kube-version"].as<std::string>();
    config.apiserver = ApiserverVersion::from_text(kube);
    if (!config.apiserver.parsed) {
        error = "--kube-version \"" + kube + "\" cannot be read; write it as vMAJOR.MINOR[.PATCH], e.g. v1.35.0";
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

}  // namespace miw::cli
