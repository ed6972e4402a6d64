#include "signature_fetcher.hpp"

#include "client.hpp"

#include "model_image_webhook/registry/oci_document.hpp"
#include "model_image_webhook/registry/url.hpp"

#include <algorithm>

namespace miw::server {

namespace {

constexpr std::string_view kIndexAccept = "application/vnd.oci.image.index.v1+json";
constexpr std::string_view kManifestAccept = "application/vnd.oci.image.manifest.v1+json, application/vnd.docker.distribution.manifest.v2+json";

RegistryLookup unavailable(RegistryFailure failure, std::string detail) {
    RegistryLookup out;
    out.failure = failure;
    out.detail = std::move(detail);
    return out;
}

// One answer read: its body, or that the registry has nothing there (404), or why there is no answer.
struct Got {
    enum { ok, missing, failed } state = failed;
    std::string body;
    RegistryLookup failure;
};

// One host's exchanges for the image's repository, each through the authorizer with the Pod's credentials first.
class HostReader {
public:
    HostReader(const RegistryHost& host, const RegistryLocator& locator, const Authorizer& authorizer, const Transport& transport, const Keyring* first,
               Deadline deadline)
        : host_(host), locator_(locator), authorizer_(authorizer), transport_(transport), first_(first), deadline_(deadline) {}

    std::string where() const { return host_.authority(); }

    // path after /<repository>, e.g. "/manifests/sha256-HEX.sig". expected:
    // the digest the body must hash to; empty for a tag or a listing.
    Got get(const std::string& path, std::string_view accept, std::size_t max_body, const std::string& expected) const {
        HttpRequest request;
        request.url = host_.url("/" + locator_.repository + path);
        request.headers.emplace_back("Accept", std::string(accept));
        request.max_body = max_body;
        HttpResponse answer = authorizer_.send(host_, locator_.repository, std::move(request), first_, deadline_);
        const std::string asked = host_.path_prefix + "/" + locator_.repository + path;
        if (answer.failure == RegistryFailure::none && answer.status >= 300 && answer.status < 400 && path.rfind("/blobs/", 0) == 0) {
            answer = follow(answer.location, max_body);  // a blob's storage, which gets no credentials
        }
        return judged(std::move(answer), asked, expected);
    }

private:
    // A blob's redirect (to object storage, with a presigned URL) followed
    // once, as containerd's fetcher follows it, without Authorization.
    HttpResponse follow(const std::string& location, std::size_t max_body) const {
        HttpRequest request;
        const bool relative = !location.empty() && location.front() == '/';
        request.url = relative ? host_.scheme + "://" + host_.authority() + location : location;
        if (!relative && request.url.rfind("https://", 0) != 0 && !(host_.scheme == "http" && request.url.rfind("http://", 0) == 0)) {
            HttpResponse refused;
            refused.failure = RegistryFailure::redirect;
            refused.error = "a blob redirect to " + redact_url(location, 60) + " is not followed";
            return refused;
        }
        if (relative) {
            request.ca_files = host_.ca_files;
            request.skip_verify = host_.skip_verify;
        }
        request.max_body = max_body;
        return transport_.send(request, deadline_);
    }

    Got judged(HttpResponse answer, const std::string& asked, const std::string& expected) const {
        Got out;
        if (answer.failure == RegistryFailure::none && answer.status == 404) {
            out.state = Got::missing;
            return out;
        }
        if (answer.failure != RegistryFailure::none || answer.status != 200) {
            out.failure = not_looked(answer, where(), asked);
            return out;
        }
        if (!expected.empty() && digest_of(expected.substr(0, expected.find(':')), answer.body) != expected) {
            out.failure = unavailable(RegistryFailure::bad_answer, where() + " answered GET " + asked + " with content that does not hash to " + expected);
            return out;
        }
        out.state = Got::ok;
        out.body = std::move(answer.body);
        return out;
    }

    const RegistryHost& host_;
    const RegistryLocator& locator_;
    const Authorizer& authorizer_;
    const Transport& transport_;
    const Keyring* first_;
    Deadline deadline_;
};

bool is_bundle_type(std::string_view type) { return type.rfind(kSigstoreBundlePrefix, 0) == 0; }

// cosign's tag for what it attaches to a digest: "sha256-HEX", then ".sig" for the legacy signatures.
std::string digest_tag(const RegistryLocator& locator) {
    std::string tag = locator.digest;
    std::replace(tag.begin(), tag.end(), ':', '-');
    return tag;
}

// A blob a descriptor names: over its cap, or of a digest no one can check, refused before it is asked.
Got blob(const HostReader& reader, const OciDescriptor& d) {
    Got out;
    if (!is_verifiable_digest(d.digest)) {
        out.failure = unavailable(RegistryFailure::bad_answer, "a signature's descriptor names no digest that can be checked");
        return out;
    }
    if (d.size > kMaxSignatureBlobBytes) {
        out.failure = unavailable(RegistryFailure::too_large, "a signature blob of " + std::to_string(d.size) + " bytes is over the 1 MiB read");
        return out;
    }
    return reader.get("/blobs/" + d.digest, "*/*", kMaxSignatureBlobBytes, d.digest);
}

// The referrers of the digest: the API's index, else the referrers tag's; empty body: none.
Got referrers_index(const HostReader& reader, const RegistryLocator& locator) {
    Got listed = reader.get("/referrers/" + locator.digest, kIndexAccept, kMaxManifestBytes, "");
    // A registry without the API answers 404 (distribution 2.8), or refuses the path.
    if (listed.state == Got::ok) return listed;
    if (listed.state == Got::failed && listed.failure.failure != RegistryFailure::server_error) return listed;
    return reader.get("/manifests/" + digest_tag(locator), kIndexAccept, kMaxManifestBytes, "");
}

// Each sigstore bundle among the referrers, read into `found`; a failure, or nothing.
std::optional<RegistryLookup> read_referrers(const HostReader& reader, const RegistryLocator& locator, sigstore::FoundSignatures& found) {
    Got listed = referrers_index(reader, locator);
    if (listed.state == Got::failed) return listed.failure;
    if (listed.state == Got::missing) return std::nullopt;
    Result<OciDocument> index = read_oci_document(std::move(listed.body), kMaxReferrers);
    if (!index) return unavailable(RegistryFailure::bad_answer, "the referrers of the digest at " + reader.where() + " cannot be read: " + index.error());
    for (const OciDescriptor& referrer : index->manifests) {
        // GHCR writes no artifactType in the listing: those are read by their manifest.
        if (!referrer.artifact_type.empty() && !is_bundle_type(referrer.artifact_type)) {
            ++found.other_referrers;
            continue;
        }
        if (!is_verifiable_digest(referrer.digest)) return unavailable(RegistryFailure::bad_answer, "a referrer names no digest that can be checked");
        Got manifest = reader.get("/manifests/" + referrer.digest, kManifestAccept, kMaxSignatureBlobBytes, referrer.digest);
        if (manifest.state == Got::missing) continue;  // listed, since deleted
        if (manifest.state == Got::failed) return manifest.failure;
        Result<OciDocument> read = read_oci_document(std::move(manifest.body), kMaxReferrers);
        if (!read) return unavailable(RegistryFailure::bad_answer, "a referrer's manifest cannot be read: " + read.error());
        const std::string& type = !read->artifact_type.empty() ? read->artifact_type : read->config_media_type;
        const auto layer = std::find_if(read->layers.begin(), read->layers.end(), [](const OciDescriptor& l) { return is_bundle_type(l.media_type); });
        if (!is_bundle_type(type) || layer == read->layers.end()) {
            ++found.other_referrers;
            continue;
        }
        Got bundle = blob(reader, *layer);
        if (bundle.state == Got::failed) return bundle.failure;
        if (bundle.state == Got::ok) found.bundles.push_back(std::move(bundle.body));
    }
    return std::nullopt;
}

// The legacy `sha256-HEX.sig` manifest's simple-signing layers, read into `found`.
std::optional<RegistryLookup> read_legacy(const HostReader& reader, const RegistryLocator& locator, sigstore::FoundSignatures& found) {
    Got listed = reader.get("/manifests/" + digest_tag(locator) + ".sig", kManifestAccept, kMaxManifestBytes, "");
    if (listed.state == Got::failed) return listed.failure;
    if (listed.state == Got::missing) return std::nullopt;
    Result<OciDocument> manifest = read_oci_document(std::move(listed.body), kMaxReferrers);
    if (!manifest) return unavailable(RegistryFailure::bad_answer, "the .sig manifest at " + reader.where() + " cannot be read: " + manifest.error());
    for (const OciDescriptor& layer : manifest->layers) {
        if (layer.media_type != kSimpleSigningLayer) continue;
        Got payload = blob(reader, layer);
        if (payload.state == Got::failed) return payload.failure;
        if (payload.state == Got::missing) continue;
        sigstore::SimpleSignature s;
        s.payload = std::move(payload.body);
        s.signature = annotation_of(layer, "dev.cosignproject.cosign/signature");
        s.certificate_pem = annotation_of(layer, "dev.sigstore.cosign/certificate");
        s.rekor_bundle = annotation_of(layer, "dev.sigstore.cosign/bundle");
        found.simple.push_back(std::move(s));
    }
    return std::nullopt;
}

}  // namespace

SignatureFetch SignatureFetcher::fetch_from(const RegistryHost& host, const RegistryLocator& locator, const Keyring* first, Deadline deadline) const {
    const HostReader reader(host, locator, authorizer_, transport_, first, deadline);
    SignatureFetch out;
    if (std::optional<RegistryLookup> failed = read_referrers(reader, locator, out.found)) {
        out.failure = std::move(*failed);
        return out;
    }
    if (std::optional<RegistryLookup> failed = read_legacy(reader, locator, out.found)) {
        out.failure = std::move(*failed);
        return out;
    }
    out.fetched = true;
    return out;
}

SignatureFetch SignatureFetcher::fetch(std::string_view reference, const PullCredentials& who, Deadline deadline) const {
    SignatureFetch out;
    Result<RegistryLocator> located = locate_in_registry(reference);
    if (!located) {
        out.failure = unavailable(RegistryFailure::bad_answer, "the reference cannot be located: " + located.error());
        return out;
    }
    if (!allow_.allows(located->registry)) {
        out.failure = unavailable(RegistryFailure::not_allowed, "the registry " + located->registry + " is not in the allowed registries (--registry-allow)");
        return out;
    }
    std::vector<RegistryHost> hosts = hosts_.hosts_for(located->registry);
    hosts.erase(std::remove_if(hosts.begin(), hosts.end(), [](const RegistryHost& h) { return (h.capabilities & kHostPull) == 0; }), hosts.end());
    if (hosts.empty()) {
        out.failure = unavailable(RegistryFailure::unreachable, "no host is configured to pull from " + located->registry);
        return out;
    }
    // Each host in order, as containerd tries them: the first that answers says what the registry holds.
    for (const RegistryHost& host : hosts) {
        SignatureFetch from = fetch_from(host, *located, who.keyring.get(), deadline);
        if (from.fetched) return from;
        if (!out.failure.detail.empty()) from.failure.detail = out.failure.detail + "; " + from.failure.detail;
        out = std::move(from);
        if (std::chrono::steady_clock::now() >= deadline) break;
    }
    return out;
}

}  // namespace miw::server
