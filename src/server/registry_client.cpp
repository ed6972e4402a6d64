#include "registry_client.hpp"

#include "registry_exchange.hpp"

#include "model_image_webhook/registry_answers.hpp"
#include "model_image_webhook/registry_location.hpp"
#include "model_image_webhook/text.hpp"
#include "model_image_webhook/www_authenticate.hpp"

#include <openssl/evp.h>

#include <algorithm>
#include <fstream>
#include <limits>
#include <map>
#include <mutex>
#include <optional>
#include <semaphore>

namespace miw::server {

namespace beast = boost::beast;
namespace http = beast::http;
namespace net = boost::asio;
namespace ssl = net::ssl;
using tcp = net::ip::tcp;

namespace {

using registry_http::Answer;
using registry_http::Endpoint;
using registry_http::Exchange;

constexpr std::string_view kManifestAccept =
    "application/vnd.oci.image.index.v1+json, application/vnd.oci.image.manifest.v1+json, "
    "application/vnd.docker.distribution.manifest.list.v2+json, application/vnd.docker.distribution.manifest.v2+json";

// "sha256:<hex>" of bytes, for the algorithm the digest names; empty for one not known.
std::string digest_of(std::string_view algorithm, std::string_view bytes) {
    const EVP_MD* md = algorithm == "sha256" ? EVP_sha256() : algorithm == "sha512" ? EVP_sha512() : nullptr;
    if (md == nullptr) return {};
    unsigned char out[EVP_MAX_MD_SIZE];
    unsigned int length = 0;
    if (EVP_Digest(bytes.data(), bytes.size(), out, &length, md, nullptr) != 1) return {};
    static constexpr char kHex[] = "0123456789abcdef";
    std::string text(algorithm);
    text += ':';
    for (unsigned int i = 0; i < length; ++i) {
        text += kHex[out[i] >> 4];
        text += kHex[out[i] & 15];
    }
    return text;
}

// An absolute URL's parts: the token realm.
struct Url {
    bool tls = true;
    std::string host, port, authority, path_and_query;
};

std::optional<Url> parse_url(std::string_view text) {
    Url out;
    if (text.rfind("https://", 0) == 0) {
        text.remove_prefix(8);
    } else if (text.rfind("http://", 0) == 0) {
        out.tls = false;
        text.remove_prefix(7);
    } else {
        return std::nullopt;
    }
    const std::size_t slash = text.find_first_of("/?");
    out.authority = std::string(text.substr(0, slash));
    out.path_and_query = slash == std::string_view::npos ? "/" : std::string(text.substr(slash));
    if (out.path_and_query.front() == '?') out.path_and_query.insert(0, "/");
    if (out.authority.empty() || out.authority.find_first_of("@ ") != std::string::npos) return std::nullopt;
    std::optional<HostPort> split = split_authority(out.authority);
    if (!split) return std::nullopt;
    out.host = std::move(split->host);
    out.port = std::move(split->port);
    if (out.port.empty()) out.port = out.tls ? "443" : "80";
    if (out.host.empty() || out.port.find_first_not_of("0123456789") != std::string::npos) return std::nullopt;
    return out;
}

RegistryFailure failure_for_status(int status) {
    if (status == 401 || status == 403) return RegistryFailure::unauthorized;
    if (status == 429) return RegistryFailure::rate_limited;
    if (status >= 300 && status < 400) return RegistryFailure::redirect;
    return RegistryFailure::server_error;
}

RegistryLookup unavailable(RegistryFailure failure, std::string detail) {
    RegistryLookup out;
    out.status = RegistryLookupStatus::unavailable;
    out.failure = failure;
    out.detail = std::move(detail);
    return out;
}

}  // namespace

struct RegistryClient::Impl {
    RegistryClientConfig config;
    mutable std::counting_semaphore<kConcurrentLookups> looking{kConcurrentLookups};
    ssl::context tls{ssl::context::tls_client};

    // What a registry asked for last, so that the next request carries it at
    // once; and the tokens had, for their lifetime. Both bounded.
    struct Token {
        std::string value;
        std::chrono::steady_clock::time_point expires;
    };
    mutable std::mutex mutex;
    mutable std::map<std::string, AuthChallenge, std::less<>> challenges;  // by authority
    mutable std::map<std::string, Token, std::less<>> tokens;  // by realm, service and scope

    bool insecure(std::string_view authority, std::string_view host) const {
        return std::any_of(config.insecure_hosts.begin(), config.insecure_hosts.end(), [&](const std::string& h) { return h == authority || h == host; });
    }

    Answer send(const Endpoint& endpoint, http::verb method, const std::string& target, const std::string& authorization, std::string_view accept,
                std::size_t max_body, Deadline deadline) const {
        if (endpoint.tls) {
            Exchange<beast::ssl_stream<beast::tcp_stream>> exchange(endpoint, method, target, authorization, accept, max_body, const_cast<ssl::context&>(tls));
            return exchange.run(deadline);
        }
        Exchange<beast::tcp_stream> exchange(endpoint, method, target, authorization, accept, max_body);
        return exchange.run(deadline);
    }

    std::string basic_for(std::string_view authority) const {
        const RegistryCredential* credential = config.credentials.find(authority);
        if (credential == nullptr) return {};
        return "Basic " + base64_encode(credential->username + ":" + credential->password);
    }

    // A token from the realm of a Bearer challenge, for pulling `repository`.
    Result<std::string> token_for(const AuthChallenge& challenge, std::string_view registry_authority, const std::string& repository,
                                  Deadline deadline, RegistryFailure& failure) const {
        const std::string realm(challenge.param("realm"));
        const std::string service(challenge.param("service"));
        const std::string scope = "repository:" + repository + ":pull";
        const std::string key = realm + "\n" + service + "\n" + scope;
        {
            std::lock_guard lock(mutex);
            if (const auto it = tokens.find(key); it != tokens.end() && it->second.expires > std::chrono::steady_clock::now()) return it->second.value;
        }
        const std::optional<Url> url = parse_url(realm);
        failure = RegistryFailure::bad_answer;
        if (!url) return fail("the registry's Bearer challenge names no usable realm");
        if (!url->tls && !insecure(url->authority, url->host)) {
            failure = RegistryFailure::tls;
            return fail("the token realm " + url->authority + " is plain HTTP and not in --registry-insecure");
        }
        std::string target = url->path_and_query;
        target += target.find('?') == std::string::npos ? '?' : '&';
        if (!service.empty()) target += "service=" + percent_encode(service) + "&";
        target += "scope=" + percent_encode(scope);
        const Endpoint endpoint{url->host, url->port, url->authority, url->tls};
        Answer a = send(endpoint, http::verb::get, target, basic_for(registry_authority), "application/json", kMaxTokenAnswerBytes, deadline);
        if (a.failure != RegistryFailure::none) {
            failure = a.failure;
            return fail("token server: " + a.error);
        }
        if (a.status != 200) {
            failure = failure_for_status(a.status);
            return fail("the token server " + url->authority + " answered " + std::to_string(a.status) +
                        (a.status == 401 || a.status == 403 ? ": check the credentials --registry-auth has for it" : ""));
        }
        Result<RegistryToken> token = read_registry_token(a.body);
        if (!token) return fail(token.error());
        std::lock_guard lock(mutex);
        if (tokens.size() > 1000) tokens.clear();
        // Used no later than a tenth before it expires.
        const auto lifetime = std::chrono::seconds(token->expires_in_seconds) * 9 / 10;
        tokens[key] = Token{token->token, std::chrono::steady_clock::now() + lifetime};
        failure = RegistryFailure::none;
        return token->token;
    }

    // The Authorization a challenge calls for, or why there is none.
    Result<std::string> authorization_for(const AuthChallenge& challenge, const RegistryLocation& loc, Deadline deadline, RegistryFailure& failure) const {
        if (challenge.scheme == "bearer") {
            Result<std::string> token = token_for(challenge, loc.authority, loc.repository, deadline, failure);
            if (!token) return fail(token.error());
            return "Bearer " + *token;
        }
        if (challenge.scheme == "basic") {
            std::string basic = basic_for(loc.authority);
            failure = RegistryFailure::unauthorized;
            if (basic.empty()) return fail("the registry asks for Basic credentials and --registry-auth has none for " + loc.authority);
            return basic;
        }
        failure = RegistryFailure::unauthorized;
        return fail("the registry asks for " + challenge.scheme + " authentication, which the webhook does not speak");
    }

    // A request with the credentials the registry asks for: those of its
    // last challenge at once, else after its 401.
    Answer authorized(const Endpoint& endpoint, const RegistryLocation& loc, http::verb method, const std::string& target, std::size_t max_body,
                      Deadline deadline) const {
        std::optional<AuthChallenge> known;
        {
            std::lock_guard lock(mutex);
            if (const auto it = challenges.find(loc.authority); it != challenges.end()) known = it->second;
        }
        std::string authorization;
        if (known) {
            RegistryFailure failure = RegistryFailure::none;
            Result<std::string> a = authorization_for(*known, loc, deadline, failure);
            if (a) authorization = std::move(*a);
        }
        Answer answer = send(endpoint, method, target, authorization, kManifestAccept, max_body, deadline);
        if (answer.failure != RegistryFailure::none || answer.status != 401) return answer;
        Result<std::vector<AuthChallenge>> challenged = parse_www_authenticate(answer.www_authenticate);
        if (!challenged) {
            answer.failure = RegistryFailure::unauthorized;
            answer.error = "401 without a readable WWW-Authenticate: " + challenged.error();
            return answer;
        }
        // Bearer where offered: what registries mean their clients to use.
        const auto bearer = std::find_if(challenged->begin(), challenged->end(), [](const AuthChallenge& c) { return c.scheme == "bearer"; });
        const AuthChallenge& chosen = bearer != challenged->end() ? *bearer : challenged->front();
        RegistryFailure failure = RegistryFailure::none;
        Result<std::string> fresh = authorization_for(chosen, loc, deadline, failure);
        if (!fresh) {
            answer.failure = failure;
            answer.error = fresh.error();
            return answer;
        }
        {
            std::lock_guard lock(mutex);
            if (challenges.size() > 1000) challenges.clear();
            challenges[loc.authority] = chosen;
        }
        if (*fresh == authorization) {
            answer.failure = RegistryFailure::unauthorized;
            answer.error = "the registry refused the credentials --registry-auth has for " + loc.authority;
            return answer;
        }
        answer = send(endpoint, method, target, *fresh, kManifestAccept, max_body, deadline);
        if (answer.failure == RegistryFailure::none && (answer.status == 401 || answer.status == 403)) {
            answer.failure = RegistryFailure::unauthorized;
            answer.error = "the registry refused the credentials for " + loc.authority + " (" + std::to_string(answer.status) + ")";
        }
        return answer;
    }

    // What an answer that is neither the manifest nor a 404 means.
    static RegistryLookup not_looked(const Answer& a, std::string_view what) {
        if (a.failure != RegistryFailure::none) return unavailable(a.failure, a.error);
        std::string detail = std::string(what) + " answered " + std::to_string(a.status);
        if (a.status >= 300 && a.status < 400) detail += " to " + std::string(a.location.substr(0, 200)) + ", which is not followed";
        return unavailable(failure_for_status(a.status), std::move(detail));
    }

    // GET of a manifest whose content must hash to `digest`.
    Answer get_manifest(const Endpoint& endpoint, const RegistryLocation& loc, const std::string& digest, Deadline deadline) const {
        return authorized(endpoint, loc, http::verb::get, loc.manifest_path_for(digest), kMaxManifestBytes, deadline);
    }

    RegistryLookup fetch(std::string_view reference, Deadline deadline) const {
        Result<RegistryLocation> located = locate_in_registry(reference);
        if (!located) return unavailable(RegistryFailure::bad_answer, "the reference cannot be located: " + located.error());
        const RegistryLocation& loc = *located;
        Endpoint endpoint{loc.host, loc.port, loc.authority, !insecure(loc.authority, loc.host)};
        if (endpoint.port.empty()) endpoint.port = endpoint.tls ? "443" : "80";
        const std::string path = loc.manifest_path();

        const Answer head = authorized(endpoint, loc, http::verb::head, path, 0, deadline);
        if (head.failure == RegistryFailure::none && head.status == 404) {
            RegistryLookup out;
            out.status = RegistryLookupStatus::not_found;
            out.detail = loc.authority + " answered 404 to HEAD " + path;
            return out;
        }
        if (head.failure != RegistryFailure::none || head.status != 200) return not_looked(head, "HEAD " + path);

        Answer got = get_manifest(endpoint, loc, loc.digest, deadline);
        if (got.failure == RegistryFailure::none && got.status == 404) {
            RegistryLookup out;
            out.status = RegistryLookupStatus::not_found;
            out.detail = loc.authority + " answered 404" + (registry_error_names(got.body, "MANIFEST_UNKNOWN") ? " MANIFEST_UNKNOWN" : "") + " to GET " + path;
            return out;
        }
        if (got.failure != RegistryFailure::none || got.status != 200) return not_looked(got, "GET " + path);
        const std::string algorithm = loc.digest.substr(0, loc.digest.find(':'));
        if (const std::string actual = digest_of(algorithm, got.body); actual != loc.digest) {
            if (actual.empty()) return unavailable(RegistryFailure::bad_answer, "the digest algorithm " + algorithm + " cannot be checked");
            RegistryLookup out;
            out.status = RegistryLookupStatus::digest_mismatch;
            out.detail = "the content from " + loc.authority + " hashes to " + actual;
            return out;
        }
        Result<ImageManifest> manifest = read_image_manifest(got.body, got.content_type);
        if (!manifest) return unavailable(RegistryFailure::bad_answer, manifest.error());
        RegistryLookup out;
        out.status = RegistryLookupStatus::found;
        if (!manifest->is_index) {
            out.compressed_bytes = manifest->compressed_bytes;
            return out;
        }
        // An index: the size is its platform's manifest's.
        const IndexEntry* entry = entry_for_platform(*manifest, config.platform);
        if (entry == nullptr) {
            out.detail = "the index has no " + config.platform + " manifest (--registry-platform)";
            return out;
        }
        const std::string child_digest = entry->digest;
        Answer child = get_manifest(endpoint, loc, child_digest, deadline);
        if (child.failure != RegistryFailure::none || child.status != 200) {
            out.detail = "the " + config.platform + " manifest could not be read: " + not_looked(child, "GET " + loc.manifest_path_for(child_digest)).detail;
            return out;
        }
        if (digest_of(child_digest.substr(0, child_digest.find(':')), child.body) != child_digest) {
            out.detail = "the " + config.platform + " manifest's content does not hash to " + child_digest;
            return out;
        }
        Result<ImageManifest> platform_manifest = read_image_manifest(child.body, child.content_type);
        if (!platform_manifest || platform_manifest->is_index) {
            out.detail = "the " + config.platform + " manifest cannot be read" + (platform_manifest ? std::string(": it is an index") : ": " + platform_manifest.error());
            return out;
        }
        out.compressed_bytes = platform_manifest->compressed_bytes;
        return out;
    }
};

RegistryClient::RegistryClient(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
RegistryClient::~RegistryClient() = default;

Result<std::unique_ptr<RegistryClient>> RegistryClient::create(RegistryClientConfig config) {
    auto impl = std::make_unique<Impl>();
    impl->config = std::move(config);
    boost::system::error_code ec;
    impl->tls.set_verify_mode(ssl::verify_peer | ssl::verify_fail_if_no_peer_cert, ec);
    if (!ec) impl->tls.set_default_verify_paths(ec);
    if (ec) return fail("cannot load the system's CA certificates: " + ec.message());
    if (const std::string& ca = impl->config.ca_file; !ca.empty()) {
        // OpenSSL's own words ("asio.ssl error", "no certificate or crl found") do not say which file or what to do.
        if (!std::ifstream(ca)) return fail("--registry-ca " + ca + " cannot be read: name a readable PEM file of CA certificates");
        impl->tls.load_verify_file(ca, ec);
        if (ec) return fail("--registry-ca " + ca + " holds no PEM certificate OpenSSL can load (" + ec.message() + ")");
    }
    SSL_CTX_set_min_proto_version(impl->tls.native_handle(), TLS1_2_VERSION);
    return std::unique_ptr<RegistryClient>(new RegistryClient(std::move(impl)));
}

RegistryLookup RegistryClient::fetch(std::string_view reference, Deadline deadline) const {
    // Each look may hold an answer of up to kMaxManifestBytes while it reads
    // it: the looks at once are few, so a registry that answers every digest
    // with 4 MiB cannot take more than kConcurrentLookups of them.
    if (!impl_->looking.try_acquire_until(deadline)) {
        RegistryLookup out;
        out.failure = RegistryFailure::busy;
        out.detail = "the webhook's " + std::to_string(kConcurrentLookups) + " registry lookups at once were all taken until the deadline";
        return out;
    }
    struct Release {
        std::counting_semaphore<kConcurrentLookups>& looking;
        ~Release() { looking.release(); }
    } release{impl_->looking};
    return impl_->fetch(reference, deadline);
}

}  // namespace miw::server
