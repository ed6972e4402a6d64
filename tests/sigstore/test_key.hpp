// A P-256 key made for one run, for the tests and benchmarks that sign with
// a key of their own (legacy simple signatures): its public PEM, and
// signatures over bytes as `openssl dgst -sha256 -sign` makes them.
#pragma once

#include <openssl/evp.h>
#include <openssl/pem.h>

#include <memory>
#include <string>

namespace miw::test {

class TestKey {
public:
    TestKey() {
        EVP_PKEY_CTX* ctx = EVP_PKEY_CTX_new_id(EVP_PKEY_EC, nullptr);
        EVP_PKEY_keygen_init(ctx);
        EVP_PKEY_CTX_set_ec_paramgen_curve_nid(ctx, NID_X9_62_prime256v1);
        EVP_PKEY* key = nullptr;
        EVP_PKEY_keygen(ctx, &key);
        EVP_PKEY_CTX_free(ctx);
        key_.reset(key);
    }
    std::string public_pem() const {
        BIO* bio = BIO_new(BIO_s_mem());
        PEM_write_bio_PUBKEY(bio, key_.get());
        char* data = nullptr;
        const long n = BIO_get_mem_data(bio, &data);
        std::string out(data, static_cast<std::size_t>(n));
        BIO_free(bio);
        return out;
    }
    std::string sign(const std::string& bytes) const {
        EVP_MD_CTX* md = EVP_MD_CTX_new();
        EVP_DigestSignInit(md, nullptr, EVP_sha256(), nullptr, key_.get());
        std::size_t length = 0;
        EVP_DigestSign(md, nullptr, &length, reinterpret_cast<const unsigned char*>(bytes.data()), bytes.size());
        std::string out(length, '\0');
        EVP_DigestSign(md, reinterpret_cast<unsigned char*>(out.data()), &length, reinterpret_cast<const unsigned char*>(bytes.data()), bytes.size());
        out.resize(length);
        EVP_MD_CTX_free(md);
        return out;
    }

private:
    std::unique_ptr<EVP_PKEY, decltype(&EVP_PKEY_free)> key_{nullptr, EVP_PKEY_free};
};

}  // namespace miw::test
