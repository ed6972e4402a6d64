#include "crypto.hpp"

#include "model_image_webhook/text.hpp"

#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/x509.h>

#include <algorithm>
#include <cstring>
#include <limits>
#include <mutex>
#include <utility>
#include <vector>

namespace miw::sigstore {

struct PublicKey::Key {
    EVP_PKEY* pkey = nullptr;
    std::string der;  // its SubjectPublicKeyInfo where it was read from one; else made when asked
    ~Key() { EVP_PKEY_free(pkey); }
};

namespace {

PublicKey wrap(EVP_PKEY* pkey) {
    PublicKey out;
    out.key = std::make_shared<PublicKey::Key>();
    out.key->pkey = pkey;
    return out;
}

// What was parsed from DER, the most recently used first; a few dozen, so a
// scan finds them. Keys and certificates are immutable once parsed, and
// OpenSSL's reference counts let threads share them.
template <class Parsed>
class DerCache {
public:
    Parsed find(std::string_view der) {
        std::lock_guard lock(mutex_);
        for (std::size_t i = 0; i < entries_.size(); ++i) {
            if (entries_[i].first.size() == der.size() && std::memcmp(entries_[i].first.data(), der.data(), der.size()) == 0) {
                std::rotate(entries_.begin(), entries_.begin() + static_cast<std::ptrdiff_t>(i), entries_.begin() + static_cast<std::ptrdiff_t>(i) + 1);
                return entries_.front().second;
            }
        }
        return nullptr;
    }
    void keep(std::string_view der, Parsed parsed) {
        std::lock_guard lock(mutex_);
        if (entries_.size() == kEntries) entries_.pop_back();
        entries_.insert(entries_.begin(), {std::string(der), std::move(parsed)});
    }

private:
    static constexpr std::size_t kEntries = 32;
    std::mutex mutex_;
    std::vector<std::pair<std::string, Parsed>> entries_;
};

const EVP_MD* digest_for(EVP_PKEY* pkey) {
    const int id = EVP_PKEY_get_base_id(pkey);
    if (id == EVP_PKEY_ED25519) return nullptr;
    if (id == EVP_PKEY_EC && EVP_PKEY_get_bits(pkey) == 384) return EVP_sha384();
    if (id == EVP_PKEY_EC && EVP_PKEY_get_bits(pkey) >= 521) return EVP_sha512();
    return EVP_sha256();
}

}  // namespace

std::string sha256(std::string_view bytes) {
    unsigned char out[EVP_MAX_MD_SIZE];
    unsigned int length = 0;
    EVP_Digest(bytes.data(), bytes.size(), out, &length, EVP_sha256(), nullptr);
    return std::string(reinterpret_cast<const char*>(out), length);
}

std::string hex(std::string_view bytes) { return hex_encode(bytes); }

std::shared_ptr<x509_st> parsed_certificate(std::string_view der) {
    static DerCache<std::shared_ptr<X509>> cache;
    if (std::shared_ptr<X509> known = cache.find(der)) return known;
    const unsigned char* p = reinterpret_cast<const unsigned char*>(der.data());
    X509* x = d2i_X509(nullptr, &p, static_cast<long>(der.size()));
    if (x != nullptr && p != reinterpret_cast<const unsigned char*>(der.data()) + der.size()) {
        X509_free(x);
        x = nullptr;  // bytes after the certificate
    }
    if (x == nullptr) {
        ERR_clear_error();
        return nullptr;
    }
    std::shared_ptr<X509> parsed(x, X509_free);
    cache.keep(der, parsed);
    return parsed;
}

Result<PublicKey> PublicKey::from_der(std::string_view der) {
    static DerCache<std::shared_ptr<Key>> cache;
    if (std::shared_ptr<Key> known = cache.find(der)) return PublicKey{std::move(known)};
    const unsigned char* p = reinterpret_cast<const unsigned char*>(der.data());
    EVP_PKEY* pkey = d2i_PUBKEY(nullptr, &p, static_cast<long>(der.size()));
    // Read whole as a SubjectPublicKeyInfo: its DER is the key's, with no encoding again.
    const bool whole_spki = pkey != nullptr && p == reinterpret_cast<const unsigned char*>(der.data()) + der.size();
    if (pkey == nullptr) {
        // A trusted root's PKCS1_RSA_PKCS1V5 key is an RSAPublicKey, not a SubjectPublicKeyInfo.
        p = reinterpret_cast<const unsigned char*>(der.data());
        pkey = d2i_PublicKey(EVP_PKEY_RSA, nullptr, &p, static_cast<long>(der.size()));
        ERR_clear_error();
    }
    if (pkey == nullptr) return fail("not a DER public key");
    PublicKey out = wrap(pkey);
    if (whole_spki) out.key->der = std::string(der);
    cache.keep(der, out.key);
    return out;
}

std::vector<std::string> pem_certificates(std::string_view pem) {
    std::vector<std::string> out;
    if (pem.size() > static_cast<std::size_t>(std::numeric_limits<int>::max())) return out;
    BIO* bio = BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size()));
    while (X509* x = PEM_read_bio_X509(bio, nullptr, nullptr, nullptr)) {
        unsigned char* der = nullptr;
        const int n = i2d_X509(x, &der);
        if (n > 0) out.emplace_back(reinterpret_cast<const char*>(der), static_cast<std::size_t>(n));
        OPENSSL_free(der);
        X509_free(x);
    }
    BIO_free(bio);
    ERR_clear_error();  // the read past the last certificate
    return out;
}

std::optional<std::string> pem_der(std::string_view pem) {
    // The base64 between the first header and its end line, whatever its label.
    const std::size_t begin = pem.find("-----BEGIN ");
    const std::size_t body = begin == std::string_view::npos ? begin : pem.find('\n', begin);
    const std::size_t end = body == std::string_view::npos ? body : pem.find("-----END ", body);
    if (end == std::string_view::npos) return std::nullopt;
    std::string text;
    for (char c : pem.substr(body, end - body)) {
        if (c != '\n' && c != '\r' && c != ' ' && c != '\t') text += c;
    }
    return base64_decode(text);
}

Result<PublicKey> PublicKey::from_pem(std::string_view pem) {
    // "PUBLIC KEY" or "RSA PUBLIC KEY".
    const std::optional<std::string> der = pem_der(pem);
    if (!der) return fail("not a PEM public key");
    Result<PublicKey> key = from_der(*der);
    if (!key) return fail("not a PEM public key");
    return key;
}

Result<PublicKey> PublicKey::of_certificate(std::string_view der) {
    const std::shared_ptr<X509> cert = parsed_certificate(der);
    if (!cert) return fail("not a DER certificate");
    EVP_PKEY* pkey = X509_get_pubkey(cert.get());
    if (pkey == nullptr) return fail("the certificate's key cannot be read");
    PublicKey out = wrap(pkey);
    // The certificate's SubjectPublicKeyInfo as it holds it: OpenSSL 3's key encoder is slow.
    unsigned char* spki = nullptr;
    const int n = i2d_X509_PUBKEY(X509_get_X509_PUBKEY(cert.get()), &spki);
    if (n > 0) out.key->der.assign(reinterpret_cast<const char*>(spki), static_cast<std::size_t>(n));
    OPENSSL_free(spki);
    return out;
}

bool PublicKey::verifies(std::string_view message, std::string_view signature) const {
    if (!key) return false;
    EVP_MD_CTX* ctx = EVP_MD_CTX_new();
    if (ctx == nullptr) return false;
    bool ok = EVP_DigestVerifyInit(ctx, nullptr, digest_for(key->pkey), nullptr, key->pkey) == 1 &&
              EVP_DigestVerify(ctx, reinterpret_cast<const unsigned char*>(signature.data()), signature.size(),
                               reinterpret_cast<const unsigned char*>(message.data()), message.size()) == 1;
    EVP_MD_CTX_free(ctx);
    return ok;
}

bool PublicKey::verifies_digest(std::string_view digest, std::string_view signature) const {
    if (!key || is_ed25519()) return false;
    EVP_PKEY_CTX* ctx = EVP_PKEY_CTX_new(key->pkey, nullptr);
    if (ctx == nullptr) return false;
    bool ok = EVP_PKEY_verify_init(ctx) == 1 && EVP_PKEY_CTX_set_signature_md(ctx, EVP_sha256()) == 1 &&
              EVP_PKEY_verify(ctx, reinterpret_cast<const unsigned char*>(signature.data()), signature.size(),
                              reinterpret_cast<const unsigned char*>(digest.data()), digest.size()) == 1;
    EVP_PKEY_CTX_free(ctx);
    return ok;
}

bool PublicKey::is_ed25519() const { return key && EVP_PKEY_get_base_id(key->pkey) == EVP_PKEY_ED25519; }

std::string PublicKey::der() const {
    if (!key) return {};
    if (!key->der.empty()) return key->der;
    unsigned char* out = nullptr;
    const int n = i2d_PUBKEY(key->pkey, &out);
    if (n <= 0) return {};
    std::string der(reinterpret_cast<const char*>(out), static_cast<std::size_t>(n));
    OPENSSL_free(out);
    return der;
}

}  // namespace miw::sigstore
