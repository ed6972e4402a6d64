#include "registry_options.hpp"

#include "input.hpp"

#include "../server/router.hpp"

#include "model_image_webhook/pull_credentials.hpp"
#include "model_image_webhook/registry_answers.hpp"
#include "model_image_webhook/text.hpp"

#include <iostream>

namespace miw::cli {

void add_registry_options(cxxopts::Options& options) {
    options.add_options()
        ("registry-check", "look pinned digests up in their registry: off; warn (admit, warning on an unknown digest); deny (refuse an unknown "
                           "digest or content that does not hash to it; a registry that cannot be asked never refuses)",
         cxxopts::value<std::string>()->default_value("off"))
        ("registry-auth", "a .dockerconfigjson (auths by registry host) with the credentials for private registries", cxxopts::value<std::string>()->default_value(""))
        ("registry-ca", "PEM CA certificates trusted for registries, besides the system's", cxxopts::value<std::string>()->default_value(""))
        ("registry-insecure", "registries (host or host:port, comma-separated) spoken to over plain HTTP; no other ever is",
         cxxopts::value<std::string>()->default_value(""))
        ("registry-hosts-dir", "containerd's registry config_path (DIR/HOST/hosts.toml, DIR/_default/hosts.toml): mirrors asked in order, as the nodes ask them",
         cxxopts::value<std::string>()->default_value(""))
        ("registry-platform", "the OS/ARCH[/VARIANT] of an image index whose size is told", cxxopts::value<std::string>()->default_value("linux/amd64"))
        ("registry-allow", "the registries the check may ask, comma-separated host[:port] globs (registry.example.com,*.dkr.ecr.*.amazonaws.com,"
                           "docker.io); one outside them is admitted unchecked, with a warning, and never asked. Empty: any",
         cxxopts::value<std::string>()->default_value(""))
        ("registry-timeout", "deadline of one registry lookup (also bounded by the request's ?timeout=)", cxxopts::value<std::string>()->default_value("3s"))
        ("registry-negative-ttl", "how long an unknown digest, or a failure to look, is remembered", cxxopts::value<std::string>()->default_value("30s"))
        ("registry-found-ttl", "how long a found digest is remembered (the registry may delete it, or stop letting a Pod read it)",
         cxxopts::value<std::string>()->default_value("10m"))
        ("image-credential-provider-config", "the kubelet's CredentialProviderConfig (kubelet.config.k8s.io/v1): its plugins give registry credentials as on the nodes",
         cxxopts::value<std::string>()->default_value(""))
        ("image-credential-provider-bin-dir", "where the credential provider plugins' executables are", cxxopts::value<std::string>()->default_value(""))
        ("registry-reload-interval", "how often serve looks whether --registry-auth, --registry-ca, --registry-hosts-dir or "
                                     "--image-credential-provider-config changed, and re-reads them", cxxopts::value<std::string>()->default_value("10s"));
}

Result<RegistryCheck> registry_check_from_options(const cxxopts::ParseResult& parsed) {
    const std::string text = parsed["registry-check"].as<std::string>();
    if (const auto mode = parse_registry_check(text)) return *mode;
    return fail("--registry-check \"" + text + "\" is not one of off, warn, deny");
}

namespace {

Result<std::chrono::milliseconds> duration_option(const cxxopts::ParseResult& parsed, const std::string& name) {
    const std::string text = parsed[name].as<std::string>();
    const auto d = server::parse_duration(text);
    if (!d || d->count() <= 0) return fail("--" + name + " \"" + text + "\" is not a duration such as 500ms, 3s or 1m");
    return *d;
}

bool is_platform(std::string_view text) {
    // os/arch or os/arch/variant, each part lowercase letters, digits, "_" or "-".
    int parts = 1;
    char before = '/';
    for (char c : text) {
        if (c == '/') {
            if (before == '/') return false;
            ++parts;
        } else if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '-')) {
            return false;
        }
        before = c;
    }
    return before != '/' && (parts == 2 || parts == 3);
}

}  // namespace

Result<server::RegistrySettings> registry_settings_from_options(const cxxopts::ParseResult& parsed) {
    server::RegistrySettings settings;
    settings.ca_file = parsed["registry-ca"].as<std::string>();
    const std::string insecure = parsed["registry-insecure"].as<std::string>();
    for (std::string_view item : comma_separated(insecure)) settings.insecure_hosts.push_back(normalize_registry_key(item));
    auto allow = RegistryAllowList::parse(parsed["registry-allow"].as<std::string>());
    if (!allow) return fail("--registry-allow: " + allow.error());
    settings.allow = std::move(*allow);
    settings.platform = parsed["registry-platform"].as<std::string>();
    if (!is_platform(settings.platform)) {
        return fail("--registry-platform \"" + settings.platform + "\" is not OS/ARCH[/VARIANT], e.g. linux/amd64 or linux/arm64/v8");
    }
    const auto timeout = duration_option(parsed, "registry-timeout");
    if (!timeout) return fail(timeout.error());
    settings.timeout = *timeout;
    const auto negative_ttl = duration_option(parsed, "registry-negative-ttl");
    if (!negative_ttl) return fail(negative_ttl.error());
    settings.negative_ttl = *negative_ttl;
    const auto found_ttl = duration_option(parsed, "registry-found-ttl");
    if (!found_ttl) return fail(found_ttl.error());
    settings.found_ttl = *found_ttl;
    settings.auth_file = parsed["registry-auth"].as<std::string>();
    settings.hosts_dir = parsed["registry-hosts-dir"].as<std::string>();
    settings.credential_provider_config = parsed["image-credential-provider-config"].as<std::string>();
    settings.credential_provider_bin_dir = parsed["image-credential-provider-bin-dir"].as<std::string>();
    if (settings.credential_provider_config.empty() && !settings.credential_provider_bin_dir.empty()) {
        return fail("--image-credential-provider-bin-dir is given without --image-credential-provider-config");
    }
    const auto reload = duration_option(parsed, "registry-reload-interval");
    if (!reload) return fail(reload.error());
    settings.reload_interval = *reload;
    return settings;
}

Result<std::unique_ptr<server::RegistryLookups>> offline_registry_lookups(const cxxopts::ParseResult& parsed, bool for_signatures) {
    const auto mode = registry_check_from_options(parsed);
    if (!mode) return fail(mode.error());
    if (*mode == RegistryCheck::off && !for_signatures) return std::unique_ptr<server::RegistryLookups>();
    const auto settings = registry_settings_from_options(parsed);
    if (!settings) return fail(settings.error());
    // What only the operator reads goes where the run's output does not: a CI log shows it, a report stays as it was.
    auto lookups = server::RegistryLookups::create(*settings, [](std::string_view reference, std::string_view detail) {
        std::cerr << "note: registry lookup of " << reference << ": " << detail << "\n";
    });
    if (lookups) {
        // Said where the run's output does not go: a CI log shows it, a report stays as it was.
        for (const std::string& host : (*lookups)->hosts_unverified()) std::cerr << "note: " << host << ": skip_verify: its certificate is not verified\n";
        for (const std::string& note : (*lookups)->hosts_notes()) std::cerr << "note: " << note << "\n";
    }
    return lookups;
}

}  // namespace miw::cli
