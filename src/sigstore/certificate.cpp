#include "certificate.hpp"

#include "crypto.hpp"

#include <openssl/ct.h>
#include <openssl/err.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

#include <algorithm>
#include <memory>

namespace miw::sigstore {

namespace {

struct X509Free {
    void operator()(X509* x) const { X509_free(x); }
};
using X509Ptr = std::unique_ptr<X509, X509Free>;

std::shared_ptr<X509> parse(const std::string& der) { return parsed_certificate(der); }

std::string der_of(X509* x) {
    unsigned char* out = nullptr;
    const int n = i2d_X509(x, &out);
    if (n <= 0) return {};
    std::string der(reinterpret_cast<const char*>(out), static_cast<std::size_t>(n));
    OPENSSL_free(out);
    return der;
}

// A Fulcio extension's value: 1.1 holds the raw string, 1.8 a DER UTF8String.
std::string extension_text(X509* x, const char* oid, bool der_string) {
    ASN1_OBJECT* obj = OBJ_txt2obj(oid, 1);
    if (obj == nullptr) return {};
    const int at = X509_get_ext_by_OBJ(x, obj, -1);
    ASN1_OBJECT_free(obj);
    if (at < 0) return {};
    const ASN1_OCTET_STRING* data = X509_EXTENSION_get_data(X509_get_ext(x, at));
    const unsigned char* p = ASN1_STRING_get0_data(data);
    const long length = ASN1_STRING_length(data);
    if (!der_string) return std::string(reinterpret_cast<const char*>(p), static_cast<std::size_t>(length));
    ASN1_UTF8STRING* s = d2i_ASN1_UTF8STRING(nullptr, &p, length);
    if (s == nullptr) return {};
    std::string out(reinterpret_cast<const char*>(ASN1_STRING_get0_data(s)), static_cast<std::size_t>(ASN1_STRING_length(s)));
    ASN1_UTF8STRING_free(s);
    return out;
}

}  // namespace

Result<CertificateIdentity> certificate_identity(const std::string& der) {
    const std::shared_ptr<X509> x = parse(der);
    if (!x) return fail("the signing certificate cannot be read");
    CertificateIdentity out;
    GENERAL_NAMES* names = static_cast<GENERAL_NAMES*>(X509_get_ext_d2i(x.get(), NID_subject_alt_name, nullptr, nullptr));
    for (int i = 0; names != nullptr && i < sk_GENERAL_NAME_num(names); ++i) {
        const GENERAL_NAME* n = sk_GENERAL_NAME_value(names, i);
        const ASN1_STRING* s = nullptr;
        if (n->type == GEN_URI) s = n->d.uniformResourceIdentifier;
        else if (n->type == GEN_EMAIL) s = n->d.rfc822Name;
        else if (n->type == GEN_DNS) s = n->d.dNSName;
        if (s != nullptr) out.sans.emplace_back(reinterpret_cast<const char*>(ASN1_STRING_get0_data(s)), static_cast<std::size_t>(ASN1_STRING_length(s)));
    }
    GENERAL_NAMES_free(names);
    out.issuer = extension_text(x.get(), "1.3.6.1.4.1.57264.1.8", true);
    if (out.issuer.empty()) out.issuer = extension_text(x.get(), "1.3.6.1.4.1.57264.1.1", false);
    return out;
}

Result<std::string> verify_certificate_chain(const std::string& leaf_der, const std::vector<Authority>& authorities, std::int64_t t) {
    const std::shared_ptr<X509> leaf = parse(leaf_der);
    if (!leaf) return fail("the signing certificate cannot be read");
    std::string last_error = "no certificate authority of the trusted root was valid at the signing time";
    for (const Authority& authority : authorities) {
        if (!authority.valid.contains(t)) continue;
        // The authority's chain is the trusted root's: every certificate of it is
        // trusted as given (OpenSSL's partial chain), so the leaf's issuer is an
        // anchor and its own issuer's signature is not verified again each time
        // (P-384, the larger part of a verification's CPU).
        X509_STORE* store = X509_STORE_new();
        X509_STORE_set_flags(store, X509_V_FLAG_PARTIAL_CHAIN);
        STACK_OF(X509)* intermediates = sk_X509_new_null();
        std::vector<std::shared_ptr<X509>> held;
        for (std::size_t i = 0; i < authority.chain.size(); ++i) {
            std::shared_ptr<X509> c = parse(authority.chain[i]);
            if (!c) continue;
            X509_STORE_add_cert(store, c.get());
            held.push_back(std::move(c));
        }
        X509_STORE_CTX* ctx = X509_STORE_CTX_new();
        X509_STORE_CTX_init(ctx, store, leaf.get(), intermediates);
        X509_VERIFY_PARAM* param = X509_STORE_CTX_get0_param(ctx);
        X509_VERIFY_PARAM_set_time(param, static_cast<time_t>(t));
        // The signature is judged at its time, not now: Fulcio's certificates live for ten minutes.
        const bool ok = X509_verify_cert(ctx) == 1;
        std::string issuer;
        if (ok) {
            STACK_OF(X509)* chain = X509_STORE_CTX_get0_chain(ctx);
            if (sk_X509_num(chain) >= 2) issuer = der_of(sk_X509_value(chain, 1));
        } else {
            last_error = std::string("the signing certificate does not chain to the trusted root at its time: ") +
                         X509_verify_cert_error_string(X509_STORE_CTX_get_error(ctx));
        }
        X509_STORE_CTX_free(ctx);
        sk_X509_free(intermediates);
        X509_STORE_free(store);
        ERR_clear_error();
        if (ok) return issuer;
    }
    return fail(last_error);
}

Status verify_embedded_sct(const std::string& leaf_der, const std::string& issuer_der, const std::vector<LogKey>& ctlogs) {
    const std::shared_ptr<X509> leaf = parse(leaf_der);
    const std::shared_ptr<X509> issuer = parse(issuer_der);
    if (!leaf || !issuer) return fail("the signing certificate cannot be read");
    STACK_OF(SCT)* scts = static_cast<STACK_OF(SCT)*>(X509_get_ext_d2i(leaf.get(), NID_ct_precert_scts, nullptr, nullptr));
    if (scts == nullptr || sk_SCT_num(scts) == 0) {
        SCT_LIST_free(scts);
        return fail("the signing certificate carries no SCT: no certificate transparency log promised to publish it");
    }
    // What a precertificate's SCT signs (RFC 6962 3.2): the leaf's TBS without
    // its SCT list, and the hash of its issuer's key.
    X509Ptr precert(X509_dup(leaf.get()));
    const int at = X509_get_ext_by_NID(precert.get(), NID_ct_precert_scts, -1);
    X509_EXTENSION_free(X509_delete_ext(precert.get(), at));
    unsigned char* tbs = nullptr;
    const int tbs_length = i2d_re_X509_tbs(precert.get(), &tbs);
    unsigned char* issuer_key = nullptr;
    const int issuer_key_length = i2d_X509_PUBKEY(X509_get_X509_PUBKEY(issuer.get()), &issuer_key);
    bool any = false;
    std::string why = "no SCT of the signing certificate is by a CT log of the trusted root";
    for (int i = 0; tbs_length > 0 && issuer_key_length > 0 && i < sk_SCT_num(scts) && !any; ++i) {
        SCT* sct = sk_SCT_value(scts, i);
        unsigned char* id = nullptr;
        const std::size_t id_length = SCT_get0_log_id(sct, &id);
        const std::string log_id(reinterpret_cast<const char*>(id), id_length);
        const std::uint64_t timestamp = SCT_get_timestamp(sct);
        const auto log = std::find_if(ctlogs.begin(), ctlogs.end(), [&](const LogKey& l) { return l.log_id == log_id; });
        if (log == ctlogs.end() || SCT_get_version(sct) != SCT_VERSION_V1) continue;
        if (!log->valid.contains(static_cast<std::int64_t>(timestamp / 1000))) {
            why = "the SCT's time is outside its CT log's validity in the trusted root";
            continue;
        }
        std::string signed_data;
        signed_data += '\0';  // v1
        signed_data += '\0';  // certificate_timestamp
        for (int shift = 56; shift >= 0; shift -= 8) signed_data += static_cast<char>((timestamp >> shift) & 0xff);
        signed_data += '\0';
        signed_data += '\1';  // precert_entry
        signed_data += sha256(std::string_view(reinterpret_cast<const char*>(issuer_key), static_cast<std::size_t>(issuer_key_length)));
        signed_data += static_cast<char>((tbs_length >> 16) & 0xff);
        signed_data += static_cast<char>((tbs_length >> 8) & 0xff);
        signed_data += static_cast<char>(tbs_length & 0xff);
        signed_data.append(reinterpret_cast<const char*>(tbs), static_cast<std::size_t>(tbs_length));
        unsigned char* extensions = nullptr;
        const std::size_t extensions_length = SCT_get0_extensions(sct, &extensions);
        signed_data += static_cast<char>((extensions_length >> 8) & 0xff);
        signed_data += static_cast<char>(extensions_length & 0xff);
        signed_data.append(reinterpret_cast<const char*>(extensions), extensions_length);
        unsigned char* signature = nullptr;
        const std::size_t signature_length = SCT_get0_signature(sct, &signature);
        Result<PublicKey> key = PublicKey::from_der(log->key);
        if (key && key->verifies(signed_data, std::string_view(reinterpret_cast<const char*>(signature), signature_length))) {
            any = true;
        } else {
            why = "the SCT's signature does not verify with its CT log's key";
        }
    }
    OPENSSL_free(tbs);
    OPENSSL_free(issuer_key);
    SCT_LIST_free(scts);
    ERR_clear_error();
    if (!any) return fail(why);
    return done();
}

}  // namespace miw::sigstore
