// Any bytes as what a registry or its token server answers (a manifest or an
// index under each media type, a token, an error list), as a WWW-Authenticate
// challenge, as a --registry-auth file, or as a hosts.toml (--registry-hosts-dir)
// or a manifest's facts to judge, as a Go duration (?timeout=, a plugin's
// cacheDuration) or a --registry-allow list: a result or a reason, never a
// crash; what reads holds together (an index has entries and no size of its
// own, a challenge has a lowercase scheme, a token is never empty).
#include "model_image_webhook/go_duration.hpp"
#include "model_image_webhook/hosts_toml.hpp"
#include "model_image_webhook/registry/allow_list.hpp"
#include "model_image_webhook/pull_credentials.hpp"
#include "model_image_webhook/registry/image_facts.hpp"
#include "model_image_webhook/registry_answers.hpp"
#include "model_image_webhook/registry/body_references.hpp"
#include "model_image_webhook/registry/locator.hpp"
#include "model_image_webhook/registry/platform.hpp"
#include "model_image_webhook/registry/url.hpp"
#include "model_image_webhook/registry/challenge.hpp"

#include <cctype>
#include <cstdint>
#include <cstdlib>
#include <string>

namespace {

void check_manifest(const std::string& text, std::string_view content_type) {
    std::string json = text;
    const miw::Result<miw::ImageManifest> manifest = miw::read_image_manifest(json, content_type);
    if (!manifest) {
        if (manifest.error().empty()) std::abort();
        return;
    }
    if (manifest->is_index && manifest->compressed_bytes != 0) std::abort();
    if (!manifest->is_index && !manifest->entries.empty()) std::abort();
    for (const char* platform : {"linux/amd64", "linux/arm64/v8", "windows/amd64"}) {
        const miw::IndexEntry* entry = miw::entry_for_platform(*manifest, platform);
        if (entry != nullptr && (entry < manifest->entries.data() || entry >= manifest->entries.data() + manifest->entries.size())) std::abort();
    }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string text(reinterpret_cast<const char*>(data), size);
    for (std::string_view type : {miw::kOciManifest, miw::kOciIndex, miw::kDockerManifest, miw::kDockerManifestList, std::string_view("text/plain")}) {
        check_manifest(text, type);
    }
    {
        std::string json = text;
        const miw::Result<miw::RegistryToken> token = miw::read_registry_token(json);
        if (!token && token.error().empty()) std::abort();
        if (token && token->token.empty()) std::abort();
    }
    {
        std::string json = text;
        (void)miw::registry_error_names(json, "MANIFEST_UNKNOWN");
    }
    for (const auto shape : {miw::DockerConfigShape::either, miw::DockerConfigShape::auths, miw::DockerConfigShape::map}) {
        std::string json = text;
        const miw::Result<miw::KubeletKeyring> credentials = miw::read_docker_config(json, shape);
        if (!credentials && credentials.error().empty()) std::abort();
    }
    {
        // Go's grammar: what reads is signed digits and units, and "0" or "+0" or "-0" is nothing.
        const std::optional<std::chrono::nanoseconds> d = miw::parse_go_duration(text);
        if (d && text.empty()) std::abort();
        if (d && d->count() < 0 && text.front() != '-') std::abort();
    }
    {
        const miw::Result<miw::RegistryAllowList> allow = miw::RegistryAllowList::parse(text);
        if (!allow && allow.error().empty()) std::abort();
        if (allow) {
            for (const std::string& glob : allow->globs()) {
                if (glob.empty() || glob.find_first_of("/@,") != std::string::npos) std::abort();
                for (char ch : glob) {
                    if (std::isupper(static_cast<unsigned char>(ch))) std::abort();
                }
            }
            (void)allow->allows(text);
        }
    }
    {
        const miw::Result<std::vector<miw::AuthChallenge>> challenges = miw::parse_www_authenticate(text);
        if (!challenges && challenges.error().empty()) std::abort();
        if (challenges) {
            if (challenges->empty()) std::abort();
            for (const miw::AuthChallenge& c : *challenges) {
                if (c.scheme.empty()) std::abort();
                for (char ch : c.scheme) {
                    if (std::isupper(static_cast<unsigned char>(ch))) std::abort();
                }
            }
        }
    }
    {
        const miw::Result<miw::RegistryLocator> location = miw::locate_in_registry(text);
        if (!location && location.error().empty()) std::abort();
        if (location && (location->registry.empty() || location->repository.empty())) std::abort();
        // The same digest however it was written: the canonical form locates to itself.
        if (location) {
            const miw::Result<miw::RegistryLocator> again = miw::locate_in_registry(location->canonical());
            if (!again || again->canonical() != location->canonical()) std::abort();
        }
    }
    {
        // What the kubelet reads to pull: errors name what is wrong, and a keyring's lookups end.
        std::string a = text, b = text, c = text;
        const miw::Result<miw::KubeletKeyring> secret = miw::read_pull_secret(a);
        if (!secret && secret.error().empty()) std::abort();
        if (secret) (void)secret->lookup("registry.example.com", "team/qwen");
        const auto names = miw::read_service_account_pull_secrets(b);
        if (!names && names.error().empty()) std::abort();
        const auto response = miw::read_credential_provider_response(c);
        if (!response && response.error().empty()) std::abort();
        const auto config = miw::read_credential_provider_config(text);
        if (!config && config.error().empty()) std::abort();
        if (config) {
            for (const miw::CredentialProvider& p : config->providers) {
                if (p.name.empty() || p.name.find('/') != std::string::npos) std::abort();
                (void)miw::provider_matches(p, "registry.example.com/team/qwen");
            }
        }
        (void)miw::kubelet_key_matches(text, "registry.example.com:5000/team/qwen");
        (void)miw::kubelet_key_matches("*.example.com/team", text);
    }
    {
        // The references a body names: each a view into the body, each pinning something, never more than the cap.
        std::vector<std::string> images;
        const miw::BodyReferences found = miw::references_in_body(text, nullptr, images);
        if (found.references.size() > miw::kMaxScannedReferences) std::abort();
        for (std::string_view r : found.references) {
            if (r.data() < text.data() || r.data() + r.size() > text.data() + text.size()) std::abort();
            if (r.find('@') == std::string_view::npos || r.find('\\') != std::string_view::npos) std::abort();
        }
    }
    {
        // containerd's hosts.toml: hosts with a host to connect to (but the last, which may be the registry's own), an API root, a scheme.
        const miw::Result<miw::HostsFile> hosts = miw::read_hosts_toml(text, "/etc/containerd/certs.d/docker.io");
        if (!hosts && hosts.error().empty()) std::abort();
        if (hosts) {
            if (hosts->hosts.empty()) std::abort();
            for (std::size_t i = 0; i < hosts->hosts.size(); ++i) {
                const miw::HostsFileEntry& h = hosts->hosts[i];
                if (h.host.empty() && i + 1 != hosts->hosts.size()) std::abort();
                if (!h.host.empty() && h.scheme != "https" && h.scheme != "http") std::abort();
                for (const std::string& ca : h.ca_files) {
                    if (ca.empty() || ca.front() != '/') std::abort();
                }
            }
        }
    }
    {
        // A manifest's facts judged: an image or the types that make it none; a size on disk when one is known.
        std::string json = text;
        if (const miw::Result<miw::ImageManifest> manifest = miw::read_image_manifest(json, miw::kOciManifest); manifest && !manifest->is_index) {
            miw::RegistryLookup found;
            found.status = miw::RegistryLookupStatus::found;
            found.compressed_bytes = manifest->compressed_bytes;
            found.facts.config_media_type = manifest->config_media_type;
            found.facts.artifact_type = manifest->artifact_type;
            found.facts.layer_kinds = manifest->layer_kinds;
            // What decides it is among the types it names.
            if (const auto artifact = miw::not_an_image(found.facts); artifact && (artifact->deciding.empty() || artifact->found.find(artifact->deciding) == std::string::npos)) {
                std::abort();
            }
            const std::optional<miw::DiskEstimate> disk = miw::disk_estimate(found);
            if (!disk) std::abort();
        }
    }
    {
        // What a report shows of a URL never holds its query or userinfo.
        const std::string shown = miw::redact_url(text);
        const std::size_t query = shown.find('?');
        if (query != std::string::npos && shown.compare(query, std::string::npos, "?...") != 0) std::abort();
        if (shown.find('#') != std::string::npos) std::abort();
        if (const std::optional<miw::Platform> p = miw::parse_platform(text)) {
            if (!miw::platform_matches(*p, p->os, p->architecture, p->variant)) std::abort();
        }
    }
    return 0;
}
