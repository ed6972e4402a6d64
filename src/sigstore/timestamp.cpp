#include "timestamp.hpp"

#include "crypto.hpp"

#include <openssl/err.h>
#include <openssl/ts.h>
#include <openssl/x509.h>

#include <ctime>
#include <memory>

namespace miw::sigstore {

Result<std::int64_t> verify_timestamp(const std::string& der, const std::string& stamped, const std::vector<Authority>& authorities) {
    const unsigned char* p = reinterpret_cast<const unsigned char*>(der.data());
    TS_RESP* response = d2i_TS_RESP(nullptr, &p, static_cast<long>(der.size()));
    if (response == nullptr) {
        ERR_clear_error();
        return fail("an RFC 3161 timestamp cannot be read");
    }
    const TS_TST_INFO* info = TS_RESP_get_tst_info(response);
    std::tm when{};
    if (info == nullptr || ASN1_TIME_to_tm(TS_TST_INFO_get_time(info), &when) != 1) {
        TS_RESP_free(response);
        ERR_clear_error();
        return fail("an RFC 3161 timestamp has no time");
    }
    const std::int64_t t = static_cast<std::int64_t>(timegm(&when));
    std::string why = "the RFC 3161 timestamp's time is inside no timestamp authority's validity in the trusted root";
    bool ok = false;
    for (const Authority& authority : authorities) {
        if (ok || !authority.valid.contains(t) || authority.chain.empty()) continue;
        // Every certificate of the authority's chain is the trusted root's, and
        // trusted as given (a partial chain), as the Fulcio chain is: the signer's
        // certificate is offered too, for a token that carries none.
        X509_STORE* store = X509_STORE_new();
        X509_STORE_set_flags(store, X509_V_FLAG_PARTIAL_CHAIN);
        STACK_OF(X509)* offered = sk_X509_new_null();
        for (std::size_t i = 0; i < authority.chain.size(); ++i) {
            const std::shared_ptr<X509> c = parsed_certificate(authority.chain[i]);
            if (!c) continue;
            // The store and the stack take references of their own.
            X509_STORE_add_cert(store, c.get());
            if (i == 0 && X509_up_ref(c.get()) == 1) sk_X509_push(offered, c.get());
        }
        // Its chain at the stamped time: a TSA certificate may have expired since.
        X509_VERIFY_PARAM_set_time(X509_STORE_get0_param(store), static_cast<time_t>(t));
        TS_VERIFY_CTX* ctx = TS_VERIFY_CTX_new();
        TS_VERIFY_CTX_set_flags(ctx, TS_VFY_VERSION | TS_VFY_SIGNATURE | TS_VFY_DATA);
        TS_VERIFY_CTX_set_store(ctx, store);  // the context frees both
        TS_VERIFY_CTX_set_certs(ctx, offered);
        TS_VERIFY_CTX_set_data(ctx, BIO_new_mem_buf(stamped.data(), static_cast<int>(stamped.size())));
        ok = TS_RESP_verify_response(ctx, response) == 1;
        if (!ok) {
            const unsigned long error = ERR_peek_last_error();
            why = std::string("the RFC 3161 timestamp does not verify with a timestamp authority of the trusted root") +
                  (error != 0 ? std::string(": ") + ERR_reason_error_string(error) : std::string());
        }
        TS_VERIFY_CTX_free(ctx);
        ERR_clear_error();
    }
    TS_RESP_free(response);
    if (!ok) return fail(why);
    return t;
}

}  // namespace miw::sigstore
