#include "tls.hpp"

#include "log.hpp"

#include <openssl/pem.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>

#include <boost/asio/buffer.hpp>

#include <ctime>
#include <fstream>
#include <iterator>

namespace miw::server {

namespace ssl = boost::asio::ssl;

namespace {

// TLS 1.2 suites: forward secret AEADs only. TLS 1.3 keeps OpenSSL's defaults.
constexpr const char* kTls12Ciphers =
    "ECDHE-ECDSA-AES128-GCM-SHA256:ECDHE-RSA-AES128-GCM-SHA256:ECDHE-ECDSA-AES256-GCM-SHA384:"
    "ECDHE-RSA-AES256-GCM-SHA384:ECDHE-ECDSA-CHACHA20-POLY1305:ECDHE-RSA-CHACHA20-POLY1305";

// HTTP/1.1 only: a client that offers h2 alone gets no ALPN answer.
int select_http11(SSL*, const unsigned char** out, unsigned char* outlen, const unsigned char* in, unsigned int inlen, void*) {
    for (unsigned int i = 0; i < inlen;) {
        const unsigned len = in[i];
        if (i + 1 + len > inlen) break;
        if (len == 8 && std::string_view(reinterpret_cast<const char*>(in + i + 1), 8) == "http/1.1") {
            *out = in + i + 1;
            *outlen = 8;
            return SSL_TLSEXT_ERR_OK;
        }
        i += 1 + len;
    }
    return SSL_TLSEXT_ERR_NOACK;
}

Result<std::string> read_file(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) return fail("cannot read " + path);
    return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

std::int64_t not_after(const std::string& cert_pem) {
    BIO* bio = BIO_new_mem_buf(cert_pem.data(), static_cast<int>(cert_pem.size()));
    if (bio == nullptr) return 0;
    X509* cert = PEM_read_bio_X509(bio, nullptr, nullptr, nullptr);
    BIO_free(bio);
    if (cert == nullptr) return 0;
    std::tm tm{};
    const int ok = ASN1_TIME_to_tm(X509_get0_notAfter(cert), &tm);
    X509_free(cert);
    return ok == 1 ? static_cast<std::int64_t>(timegm(&tm)) : 0;
}

std::string describe(const boost::system::error_code& ec) { return ec.message(); }

}  // namespace

Result<TlsContextProvider::Contents> TlsContextProvider::read_files() const {
    Contents out;
    for (auto [path, text] : {std::pair{&files_.cert, &out.cert}, std::pair{&files_.key, &out.key}, std::pair{&files_.client_ca, &out.client_ca}}) {
        if (path->empty()) continue;  // no client CA
        Result<std::string> read = read_file(*path);
        if (!read) return fail(read.error());
        *text = std::move(*read);
    }
    return out;
}

Status TlsContextProvider::install(const Contents& c) {
    auto ctx = std::make_shared<ssl::context>(ssl::context::tls_server);
    boost::system::error_code ec;
    ctx->set_options(ssl::context::default_workarounds | ssl::context::no_sslv2 | ssl::context::no_sslv3 | ssl::context::no_tlsv1 |
                         ssl::context::no_tlsv1_1 | ssl::context::single_dh_use | ssl::context::no_compression,
                     ec);
    SSL_CTX* native = ctx->native_handle();
    SSL_CTX_set_min_proto_version(native, TLS1_2_VERSION);
    SSL_CTX_set_cipher_list(native, kTls12Ciphers);
    SSL_CTX_set_alpn_select_cb(native, select_http11, nullptr);
    SSL_CTX_set_session_cache_mode(native, SSL_SESS_CACHE_SERVER);
    // (Each connection's modes, record-buffer release among them, are set in tls_stream.cpp.)
    static const unsigned char kSessionContext[] = "model-image-webhook";
    SSL_CTX_set_session_id_context(native, kSessionContext, sizeof kSessionContext - 1);
    ctx->use_certificate_chain(boost::asio::buffer(c.cert), ec);
    if (ec) {
        return fail(files_.cert + ": not a PEM certificate chain (" + describe(ec) + ")");
    }
    ctx->use_private_key(boost::asio::buffer(c.key), ssl::context::pem, ec);
    if (ec && describe(ec).find("mismatch") != std::string::npos) {
        return fail(files_.key + " does not match the certificate in " + files_.cert);
    }
    if (ec) {
        return fail(files_.key + ": not a PEM private key (" + describe(ec) + ")");
    }
    if (SSL_CTX_check_private_key(native) != 1) {
        return fail(files_.key + " does not match the certificate in " + files_.cert);
    }
    if (!c.client_ca.empty()) {
        ctx->add_certificate_authority(boost::asio::buffer(c.client_ca), ec);
        if (ec) {
            return fail(files_.client_ca + ": not a PEM CA bundle (" + describe(ec) + ")");
        }
        ctx->set_verify_mode(ssl::verify_peer | ssl::verify_fail_if_no_peer_cert, ec);
    }
    const std::int64_t expires = not_after(c.cert);
    {
        std::lock_guard lock(mutex_);
        current_ = std::move(ctx);
        loaded_ = c;
    }
    metrics_.certificate_reloaded(expires);
    return done();
}

Status TlsContextProvider::load() {
    const Result<Contents> contents = read_files();
    if (!contents) return fail(contents.error());
    return install(*contents);
}

void TlsContextProvider::poll() {
    const Result<Contents> contents = read_files();
    // A mounted Secret is swapped through a symlink: a file can be missing
    // for a moment. Keep serving and look again next time.
    if (!contents) return;
    const Contents& c = *contents;
    {
        std::lock_guard lock(mutex_);
        if (c == loaded_ || c == last_failed_) return;
    }
    const Status installed = install(c);
    if (installed) {
        Log::instance().info("serving certificate reloaded", {{"cert", files_.cert}});
        return;
    }
    {
        std::lock_guard lock(mutex_);
        last_failed_ = c;
    }
    metrics_.certificate_reload_failed();
    Log::instance().error("serving certificate not reloaded; the previous one keeps serving", {{"reason", installed.error()}});
}

std::shared_ptr<ssl::context> TlsContextProvider::current() const {
    std::lock_guard lock(mutex_);
    return current_;
}

}  // namespace miw::server
