#include "curl_transport.hpp"

#include <curl/curl.h>
#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <cstdio>
#include <map>
#include <mutex>
#include <optional>
#include <vector>

namespace miw::server {

namespace {

// Idle easy handles kept, each with its live connections: the lookups at
// once are few (RegistryCacheSettings::workers), so are these.
constexpr std::size_t kIdleHandles = 8;
constexpr long kConnectionsPerHandle = 4;

bool starts_with_nocase(std::string_view text, std::string_view prefix) {
    return text.size() >= prefix.size() && std::equal(prefix.begin(), prefix.end(), text.begin(), [](char a, char b) {
               return std::tolower(static_cast<unsigned char>(a)) == std::tolower(static_cast<unsigned char>(b));
           });
}

// Header names compare whole and without case.
bool same_name(std::string_view a, std::string_view b) { return a.size() == b.size() && starts_with_nocase(a, b); }

std::string_view trimmed(std::string_view v) {
    while (!v.empty() && (v.front() == ' ' || v.front() == '\t')) v.remove_prefix(1);
    while (!v.empty() && (v.back() == '\r' || v.back() == '\n' || v.back() == ' ' || v.back() == '\t')) v.remove_suffix(1);
    return v;
}

// One exchange's state, seen by libcurl's callbacks.
struct Exchange {
    HttpResponse answer;
    std::size_t max_body = 0;
    bool over_cap = false;
    std::size_t header_bytes = 0;
};

constexpr std::size_t kMaxHeaderBytes = 64u << 10;

std::size_t on_body(char* data, std::size_t size, std::size_t count, void* user) {
    auto& x = *static_cast<Exchange*>(user);
    const std::size_t n = size * count;
    if (x.answer.body.size() + n > x.max_body) {
        x.over_cap = true;
        return 0;  // libcurl stops with CURLE_WRITE_ERROR
    }
    x.answer.body.append(data, n);
    return n;
}

std::size_t on_header(char* data, std::size_t size, std::size_t count, void* user) {
    auto& x = *static_cast<Exchange*>(user);
    const std::size_t n = size * count;
    x.header_bytes += n;
    if (x.header_bytes > kMaxHeaderBytes) return 0;
    const std::string_view line(data, n);
    if (starts_with_nocase(line, "HTTP/")) {  // a new answer's head (after a 100 Continue, say): start again
        x.answer.content_type.clear();
        x.answer.www_authenticate.clear();
        x.answer.location.clear();
        return n;
    }
    const std::size_t colon = line.find(':');
    if (colon == std::string_view::npos) return n;
    const std::string_view name = line.substr(0, colon);
    const std::string_view value = trimmed(line.substr(colon + 1));
    const auto is = [&](std::string_view wanted) { return same_name(name, wanted); };
    if (is("content-type")) x.answer.content_type = std::string(value);
    else if (is("www-authenticate")) x.answer.www_authenticate.emplace_back(value);
    else if (is("location")) x.answer.location = std::string(value);
    return n;
}

// The --registry-ca certificates and a host's own CA, added to each TLS
// context libcurl makes after it has loaded the system's roots.
struct ExtraRoots {
    const std::vector<X509*>* everywhere = nullptr;
    const std::vector<X509*>* this_host = nullptr;
};
CURLcode add_extra_roots(CURL*, void* ssl_ctx, void* user) {
    const auto& roots = *static_cast<const ExtraRoots*>(user);
    X509_STORE* store = SSL_CTX_get_cert_store(static_cast<SSL_CTX*>(ssl_ctx));
    for (const auto* list : {roots.everywhere, roots.this_host}) {
        if (list == nullptr) continue;
        for (X509* cert : *list) X509_STORE_add_cert(store, cert);  // one already there is no error that matters
    }
    ERR_clear_error();
    return CURLE_OK;
}

// PEM certificates of a file (empty when it holds none); nullopt when it cannot be read.
std::optional<std::vector<X509*>> read_certificates(const std::string& path) {
    std::vector<X509*> out;
    std::FILE* f = std::fopen(path.c_str(), "r");
    if (f == nullptr) return std::nullopt;
    while (X509* cert = PEM_read_X509(f, nullptr, nullptr, nullptr)) out.push_back(cert);
    std::fclose(f);
    ERR_clear_error();  // the read past the last certificate
    return out;
}

std::string authority_of(const std::string& url) {
    std::string_view rest = url;
    if (const std::size_t s = rest.find("://"); s != std::string_view::npos) rest.remove_prefix(s + 3);
    return std::string(rest.substr(0, rest.find_first_of("/?#")));
}

HttpResponse failed(RegistryFailure failure, std::string error) {
    HttpResponse a;
    a.failure = failure;
    a.error = std::move(error);
    return a;
}

}  // namespace

struct CurlTransport::Impl {
    CURLSH* share = nullptr;
    std::array<std::mutex, CURL_LOCK_DATA_LAST> share_locks;
    std::vector<X509*> extra_roots;
    mutable std::mutex host_roots_mutex;
    mutable std::map<std::string, std::vector<X509*>> host_roots;  // by file: a hosts.toml's ca, read once
    // Idle handles by TLS profile (a host's CA file, or no verification): a
    // handle's kept connections and verified store were all made under one
    // profile, so none is reused by a request that trusts otherwise.
    mutable std::mutex idle_mutex;
    mutable std::map<std::string, std::vector<CURL*>> idle;
    mutable std::size_t idle_count = 0;

    ~Impl() {
        for (auto& [profile, handles] : idle) {
            for (CURL* h : handles) curl_easy_cleanup(h);
        }
        if (share != nullptr) curl_share_cleanup(share);
        for (X509* c : extra_roots) X509_free(c);
        for (auto& [path, certs] : host_roots) {
            for (X509* c : certs) X509_free(c);
        }
    }

    // A host's CA files' certificates (key: the paths joined), read at their
    // first use and kept; null when one of them holds none. A failed read is
    // not kept: a file being written, or mounted a moment later, is read
    // again by the next request.
    const std::vector<X509*>* roots_of(const std::string& key, const std::vector<std::string>& paths) const {
        std::lock_guard lock(host_roots_mutex);
        auto it = host_roots.find(key);
        if (it == host_roots.end()) {
            std::vector<X509*> all;
            bool each = true;
            for (const std::string& path : paths) {
                std::vector<X509*> some = read_certificates(path).value_or(std::vector<X509*>());
                each = each && !some.empty();
                all.insert(all.end(), some.begin(), some.end());
            }
            if (!each) {
                for (X509* cert : all) X509_free(cert);
                return nullptr;
            }
            it = host_roots.emplace(key, std::move(all)).first;
        }
        return &it->second;
    }

    static std::string joined(const std::vector<std::string>& paths) {
        std::string out;
        for (const std::string& p : paths) out += p + '\n';  // no path of a CA file holds a newline
        return out;
    }

    static void lock(CURL*, curl_lock_data data, curl_lock_access, void* user) { static_cast<Impl*>(user)->share_locks[data].lock(); }
    static void unlock(CURL*, curl_lock_data data, void* user) { static_cast<Impl*>(user)->share_locks[data].unlock(); }

    CURL* take(const std::string& profile) const {
        {
            std::lock_guard guard(idle_mutex);
            if (const auto it = idle.find(profile); it != idle.end() && !it->second.empty()) {
                CURL* h = it->second.back();
                it->second.pop_back();
                --idle_count;
                curl_easy_reset(h);  // options only: its connections and caches stay
                return h;
            }
        }
        return curl_easy_init();
    }
    void give_back(const std::string& profile, CURL* h) const {
        {
            std::lock_guard guard(idle_mutex);
            if (idle_count < kIdleHandles) {
                idle[profile].push_back(h);
                ++idle_count;
                return;
            }
        }
        curl_easy_cleanup(h);
    }

    HttpResponse send(const HttpRequest& request, Deadline deadline) const {
        const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now()).count();
        const std::string authority = authority_of(request.url);
        if (left <= 0) return failed(RegistryFailure::timeout, "no time was left to ask " + authority);
        ExtraRoots roots{extra_roots.empty() ? nullptr : &extra_roots, nullptr};
        const std::string host_cas = joined(request.ca_files);
        if (!request.ca_files.empty()) {
            roots.this_host = roots_of(host_cas, request.ca_files);
            if (roots.this_host == nullptr) {
                return failed(RegistryFailure::tls, "a CA file of " + authority + " (" + request.ca_files.front() + (request.ca_files.size() > 1 ? ", ..." : "") +
                                                        ") cannot be read or holds no PEM certificate");
            }
        }
        // The TLS profile the handle's connections were made under: its own CAs, or none verified.
        const std::string profile = request.skip_verify ? std::string("\n") : host_cas;
        CURL* h = take(profile);
        if (h == nullptr) return failed(RegistryFailure::unreachable, "no HTTP client could be made (out of memory?)");
        Exchange x;
        x.max_body = request.max_body;
        curl_slist* headers = nullptr;
        bool has_accept = false;
        for (const auto& [name, value] : request.headers) {
            has_accept = has_accept || same_name(name, "accept");
            headers = curl_slist_append(headers, (name + ": " + value).c_str());
        }
        if (!has_accept) headers = curl_slist_append(headers, "Accept:");  // libcurl's */* is not what was asked for
        char error[CURL_ERROR_SIZE] = {0};
        curl_easy_setopt(h, CURLOPT_URL, request.url.c_str());
        curl_easy_setopt(h, CURLOPT_HTTPGET, 1L);
        curl_easy_setopt(h, CURLOPT_HTTPHEADER, headers);
        curl_easy_setopt(h, CURLOPT_USERAGENT, "model-image-webhook");
        curl_easy_setopt(h, CURLOPT_SHARE, share);
        curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
        curl_easy_setopt(h, CURLOPT_PROTOCOLS_STR, "http,https");
        curl_easy_setopt(h, CURLOPT_FOLLOWLOCATION, 0L);
        curl_easy_setopt(h, CURLOPT_SSL_VERIFYPEER, request.skip_verify ? 0L : 1L);
        curl_easy_setopt(h, CURLOPT_SSL_VERIFYHOST, request.skip_verify ? 0L : 2L);
        curl_easy_setopt(h, CURLOPT_SSLVERSION, static_cast<long>(CURL_SSLVERSION_TLSv1_2));
        if (roots.everywhere != nullptr || roots.this_host != nullptr) {
            curl_easy_setopt(h, CURLOPT_SSL_CTX_FUNCTION, &add_extra_roots);
            curl_easy_setopt(h, CURLOPT_SSL_CTX_DATA, &roots);
        }
        // A TLS session made trusting a host's own CA is not resumed by a
        // request that does not (resumption skips the certificate's check).
        if (roots.this_host != nullptr) curl_easy_setopt(h, CURLOPT_SSL_SESSIONID_CACHE, 0L);
        curl_easy_setopt(h, CURLOPT_TIMEOUT_MS, static_cast<long>(left));
        curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT_MS, static_cast<long>(left));
        curl_easy_setopt(h, CURLOPT_MAXCONNECTS, kConnectionsPerHandle);
        curl_easy_setopt(h, CURLOPT_SUPPRESS_CONNECT_HEADERS, 1L);
        curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, &on_body);
        curl_easy_setopt(h, CURLOPT_WRITEDATA, &x);
        curl_easy_setopt(h, CURLOPT_HEADERFUNCTION, &on_header);
        curl_easy_setopt(h, CURLOPT_HEADERDATA, &x);
        curl_easy_setopt(h, CURLOPT_ERRORBUFFER, error);
        const CURLcode code = curl_easy_perform(h);
        long status = 0;
        curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &status);
        long verify = X509_V_OK;
        if (code == CURLE_PEER_FAILED_VERIFICATION) curl_easy_getinfo(h, CURLINFO_SSL_VERIFYRESULT, &verify);
        curl_easy_setopt(h, CURLOPT_ERRORBUFFER, nullptr);
        curl_easy_setopt(h, CURLOPT_HTTPHEADER, nullptr);
        curl_slist_free_all(headers);
        give_back(profile, h);

        if (code == CURLE_OK) {
            x.answer.status = static_cast<int>(status);
            return std::move(x.answer);
        }
        const std::string said = error[0] != '\0' ? std::string(error) : std::string(curl_easy_strerror(code));
        switch (code) {
            case CURLE_WRITE_ERROR:
                if (x.over_cap) return failed(RegistryFailure::too_large, "the answer is larger than " + std::to_string(x.max_body) + " bytes; it was not read");
                break;
            case CURLE_OPERATION_TIMEDOUT:
                return failed(RegistryFailure::timeout, "no answer from " + authority + " within the time allowed");
            case CURLE_PEER_FAILED_VERIFICATION:
                return failed(RegistryFailure::tls, "the certificate of " + authority + " was refused (" +
                                                        (verify != X509_V_OK ? std::string(X509_verify_cert_error_string(verify)) : said) +
                                                        "): add its CA with --registry-ca");
            case CURLE_SSL_CONNECT_ERROR:
            case CURLE_SSL_CERTPROBLEM:
            case CURLE_SSL_CIPHER:
            case CURLE_SSL_CACERT_BADFILE:
            case CURLE_USE_SSL_FAILED:
                return failed(RegistryFailure::tls, "TLS with " + authority + " failed: " + said);
            case CURLE_UNSUPPORTED_PROTOCOL:
            case CURLE_URL_MALFORMAT:
                return failed(RegistryFailure::bad_answer, "cannot ask " + authority + ": " + said);
            default:
                break;
        }
        if (x.header_bytes > kMaxHeaderBytes) return failed(RegistryFailure::too_large, "the answer's header is larger than " + std::to_string(kMaxHeaderBytes) + " bytes");
        return failed(RegistryFailure::unreachable, "cannot ask " + authority + ": " + said);
    }
};

CurlTransport::CurlTransport(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
CurlTransport::~CurlTransport() = default;

Result<std::unique_ptr<CurlTransport>> CurlTransport::create(const std::string& ca_file) {
    // Once, before any thread asks: libcurl's global set-up is not thread-safe in every build.
    static const CURLcode global = curl_global_init(CURL_GLOBAL_DEFAULT);
    if (global != CURLE_OK) return fail(std::string("libcurl cannot be set up: ") + curl_easy_strerror(global));
    auto impl = std::make_unique<Impl>();
    if (!ca_file.empty()) {
        // OpenSSL's own words do not say which file or what to do.
        std::optional<std::vector<X509*>> roots = read_certificates(ca_file);
        if (!roots) return fail("--registry-ca " + ca_file + " cannot be read: name a readable PEM file of CA certificates");
        impl->extra_roots = std::move(*roots);
        if (impl->extra_roots.empty()) return fail("--registry-ca " + ca_file + " holds no PEM certificate OpenSSL can load");
    }
    impl->share = curl_share_init();
    if (impl->share == nullptr) return fail("libcurl's share handle cannot be made");
    curl_share_setopt(impl->share, CURLSHOPT_LOCKFUNC, &Impl::lock);
    curl_share_setopt(impl->share, CURLSHOPT_UNLOCKFUNC, &Impl::unlock);
    curl_share_setopt(impl->share, CURLSHOPT_USERDATA, impl.get());
    curl_share_setopt(impl->share, CURLSHOPT_SHARE, CURL_LOCK_DATA_DNS);
    curl_share_setopt(impl->share, CURLSHOPT_SHARE, CURL_LOCK_DATA_SSL_SESSION);
    return std::unique_ptr<CurlTransport>(new CurlTransport(std::move(impl)));
}

HttpResponse CurlTransport::send(const HttpRequest& request, Deadline deadline) const { return impl_->send(request, deadline); }

}  // namespace miw::server
