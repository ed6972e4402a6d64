#include "client.hpp"

#include "model_image_webhook/registry/url.hpp"
#include "model_image_webhook/registry_answers.hpp"
#include "model_image_webhook/text.hpp"

#include <openssl/evp.h>

namespace miw::server {

namespace {

// containerd's resolver asks for every manifest type it knows and then */*
// (core/remotes/docker/resolver.go): a registry that content-negotiates
// answers what the node would get.
constexpr std::string_view kManifestAccept =
    "application/vnd.oci.image.index.v1+json, application/vnd.oci.image.manifest.v1+json, "
    "application/vnd.docker.distribution.manifest.list.v2+json, application/vnd.docker.distribution.manifest.v2+json, */*";

RegistryLookup with_status(RegistryLookupStatus status, RegistryFailure failure, std::string detail) {
    RegistryLookup out;
    out.status = status;
    out.failure = failure;
    out.detail = std::move(detail);
    return out;
}

std::string media_type_of(const HttpResponse& a) {
    std::string type = a.content_type.substr(0, a.content_type.find(';'));
    while (!type.empty() && type.back() == ' ') type.pop_back();
    return type;
}

void tell_facts(const ImageManifest& manifest, ManifestFacts& facts) {
    facts.media_type = manifest.media_type;
    facts.artifact_type = manifest.artifact_type;
    facts.config_media_type = manifest.config_media_type;
    facts.layer_kinds = manifest.layer_kinds;
}

// Whether a failure says only that no answer came: a tenant reads these
// alike, so that the check tells no one which ports listen on which hosts.
bool is_unreached(RegistryFailure failure) {
    return failure == RegistryFailure::unreachable || failure == RegistryFailure::timeout || failure == RegistryFailure::tls;
}

}  // namespace

// What an answer that is neither the manifest nor a 404 means. A redirect's
// target is told without its query: a presigned URL's signature is a secret.
// The transport's and a plugin's own words go to the log, never to a tenant.
RegistryLookup not_looked(const HttpResponse& a, const std::string& where, const std::string& path) {
    if (a.failure != RegistryFailure::none) {
        RegistryLookup out = with_status(RegistryLookupStatus::unavailable, a.failure, a.error);
        if (is_unreached(a.failure)) {
            out.detail = "the registry " + where + " could not be reached";
            out.log_detail = where + ": " + a.error;
        }
        if (!a.log_error.empty()) out.log_detail += (out.log_detail.empty() ? where + ": " : "; ") + a.log_error;
        out.incomplete = a.incomplete;
        return out;
    }
    std::string detail = where + " answered " + std::to_string(a.status);
    detail += a.status >= 300 && a.status < 400 ? " redirecting to " + redact_url(a.location, 60) + ", which is not followed" : " to GET " + path;
    return with_status(RegistryLookupStatus::unavailable, failure_for_status(a.status), std::move(detail));
}

std::string digest_of(std::string_view algorithm, std::string_view bytes) {
    const EVP_MD* md = algorithm == "sha256" ? EVP_sha256() : algorithm == "sha512" ? EVP_sha512() : nullptr;
    if (md == nullptr) return {};
    unsigned char out[EVP_MAX_MD_SIZE];
    unsigned int length = 0;
    if (EVP_Digest(bytes.data(), bytes.size(), out, &length, md, nullptr) != 1) return {};
    return std::string(algorithm) + ":" + hex_encode(std::string_view(reinterpret_cast<const char*>(out), length));
}

RegistryLookup RegistryClient::fetch_from(const RegistryHost& host, const RegistryLocator& loc, const Keyring* first, Deadline deadline) const {
    // /<repository>/manifests/<digest>, after the host's path prefix.
    const auto manifest_path = [&](const std::string& digest) { return "/" + loc.repository + "/manifests/" + digest; };
    const auto get = [&](const std::string& digest) {
        HttpRequest request;
        request.url = host.url(manifest_path(digest));
        request.headers.emplace_back("Accept", std::string(kManifestAccept));
        request.max_body = kMaxManifestBytes;
        return authorizer_.send(host, loc.repository, std::move(request), first, deadline);
    };
    const std::string where = host.authority();
    const std::string path = host.path_prefix + manifest_path(loc.digest);
    HttpResponse got = get(loc.digest);
    if (got.failure == RegistryFailure::none && got.status == 404) {
        return with_status(RegistryLookupStatus::not_found, RegistryFailure::none,
                           where + " answered 404" + (registry_error_names(got.body, "MANIFEST_UNKNOWN") ? " MANIFEST_UNKNOWN" : "") + " to GET " + path);
    }
    if (got.failure != RegistryFailure::none || got.status != 200) return not_looked(got, where, path);
    const std::string algorithm = loc.digest.substr(0, loc.digest.find(':'));
    if (const std::string actual = digest_of(algorithm, got.body); actual != loc.digest) {
        if (actual.empty()) return with_status(RegistryLookupStatus::unavailable, RegistryFailure::bad_answer, "the digest algorithm " + algorithm + " cannot be checked");
        return with_status(RegistryLookupStatus::digest_mismatch, RegistryFailure::none, "the content from " + where + " hashes to " + actual);
    }
    RegistryLookup out;
    out.status = RegistryLookupStatus::found;
    const std::string answered_type = media_type_of(got);
    Result<ImageManifest> manifest = read_image_manifest(got.body, got.content_type);
    if (!manifest) {
        // The registry answered with content of this digest: it is there, whatever it is.
        out.facts.media_type = answered_type;
        out.detail = "what it holds (" + (answered_type.empty() ? std::string("no media type") : answered_type) + ") is not an image manifest: " + manifest.error();
        return out;
    }
    tell_facts(*manifest, out.facts);
    if (!manifest->is_index) {
        out.compressed_bytes = manifest->compressed_bytes;
        return out;
    }
    // An index: what the node pulls is its platform's manifest.
    out.facts.from_index = true;
    for (const IndexEntry& e : manifest->entries) {
        if (out.facts.platforms.size() == kMaxLayerKinds) break;
        out.facts.platforms.push_back(e.os + "/" + e.architecture + (e.variant.empty() ? "" : "/" + e.variant));
    }
    const IndexEntry* entry = entry_for_platform(*manifest, platform_);
    if (entry == nullptr) {
        out.detail = "the index has no " + platform_ + " manifest (--registry-platform)";
        return out;
    }
    const std::string child_digest = entry->digest;
    if (!is_verifiable_digest(child_digest)) {
        out.detail = "the index's " + platform_ + " entry names no digest that can be checked";
        return out;
    }
    // The node pulls this manifest: one the registry lacks is as certain as a
    // missing digest; one that could not be read says nothing of the image,
    // and is asked again next time rather than kept.
    HttpResponse child = get(child_digest);
    const std::string child_path = host.path_prefix + manifest_path(child_digest);
    if (child.failure == RegistryFailure::none && child.status == 404) {
        return with_status(RegistryLookupStatus::not_found, RegistryFailure::none,
                           "the index's " + platform_ + " manifest " + child_digest + " is unknown: " + where + " answered 404 to GET " + child_path);
    }
    if (child.failure != RegistryFailure::none || child.status != 200) {
        RegistryLookup unread = not_looked(child, where, child_path);
        unread.detail = "the index's " + platform_ + " manifest could not be read: " + unread.detail;
        unread.incomplete = true;
        return unread;
    }
    if (digest_of(child_digest.substr(0, child_digest.find(':')), child.body) != child_digest) {
        RegistryLookup unread = with_status(RegistryLookupStatus::unavailable, RegistryFailure::bad_answer,
                                            "the index's " + platform_ + " manifest from " + where + " does not hash to " + child_digest);
        unread.incomplete = true;
        return unread;
    }
    const std::string child_type = media_type_of(child);
    Result<ImageManifest> platform_manifest = read_image_manifest(child.body, child.content_type);
    if (!platform_manifest || platform_manifest->is_index) {
        out.facts.media_type = platform_manifest ? platform_manifest->media_type : child_type;
        out.facts.artifact_type.clear();
        out.detail = "the " + platform_ + " manifest cannot be read" + (platform_manifest ? std::string(": it is an index") : ": " + platform_manifest.error());
        return out;
    }
    tell_facts(*platform_manifest, out.facts);  // the index's platforms stay
    out.compressed_bytes = platform_manifest->compressed_bytes;
    return out;
}

RegistryLookup RegistryClient::fetch(std::string_view reference, const PullCredentials& who, Deadline deadline) const {
    Result<RegistryLocator> located = locate_in_registry(reference);
    if (!located) return with_status(RegistryLookupStatus::unavailable, RegistryFailure::bad_answer, "the reference cannot be located: " + located.error());
    if (!allow_.allows(located->registry)) {
        return with_status(RegistryLookupStatus::unavailable, RegistryFailure::not_allowed,
                           "the registry " + located->registry + " is not in the allowed registries (--registry-allow)");
    }
    std::vector<RegistryHost> hosts = hosts_.hosts_for(located->registry);
    hosts.erase(std::remove_if(hosts.begin(), hosts.end(), [](const RegistryHost& h) { return (h.capabilities & kHostPull) == 0; }), hosts.end());
    if (hosts.empty()) return with_status(RegistryLookupStatus::unavailable, RegistryFailure::unreachable, "no host is configured to pull from " + located->registry);
    // Each host in order, as containerd tries them: a 404 or a failure moves
    // to the next; unknown only where every host said 404.
    std::vector<RegistryLookup> tried;
    for (const RegistryHost& host : hosts) {
        RegistryLookup r = fetch_from(host, *located, who.keyring.get(), deadline);
        if (r.status == RegistryLookupStatus::found || r.status == RegistryLookupStatus::digest_mismatch) return r;
        tried.push_back(std::move(r));
        if (tried.size() < hosts.size() && std::chrono::steady_clock::now() >= deadline) {
            // The hosts not asked may hold it: no answer, and none to keep.
            RegistryLookup out = with_status(RegistryLookupStatus::unavailable, RegistryFailure::timeout,
                                             "the deadline came after " + std::to_string(tried.size()) + " of " + std::to_string(hosts.size()) + " hosts were asked");
            for (const RegistryLookup& asked : tried) {
                out.detail += "; " + asked.detail;
                if (!asked.log_detail.empty()) out.log_detail += (out.log_detail.empty() ? "" : "; ") + asked.log_detail;
            }
            out.incomplete = true;
            return out;
        }
    }
    if (tried.size() == 1) return std::move(tried.front());
    const bool all_unknown =
        tried.size() == hosts.size() && std::all_of(tried.begin(), tried.end(), [](const RegistryLookup& r) { return r.status == RegistryLookupStatus::not_found; });
    RegistryLookup out;
    out.status = all_unknown ? RegistryLookupStatus::not_found : RegistryLookupStatus::unavailable;
    for (const RegistryLookup& r : tried) {
        if (out.status == RegistryLookupStatus::unavailable && out.failure == RegistryFailure::none && r.status == RegistryLookupStatus::unavailable) out.failure = r.failure;
        out.incomplete = out.incomplete || r.incomplete;
        if (!out.detail.empty()) out.detail += "; ";
        out.detail += r.detail;
        if (!r.log_detail.empty()) out.log_detail += (out.log_detail.empty() ? "" : "; ") + r.log_detail;
    }
    return out;
}

}  // namespace miw::server
