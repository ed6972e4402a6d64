// A Fulcio signing certificate judged as Sigstore's clients judge it: its
// chain to a certificate authority of the trusted root, at the time the
// signature was made; the certificate transparency logs' promise (an
// embedded SCT) verified against the trusted root's CT logs; and who it
// names (its SAN, and the OIDC issuer in Fulcio's extensions). No OpenSSL
// in this header.
#pragma once

#include "model_image_webhook/result.hpp"
#include "model_image_webhook/sigstore/trusted_root.hpp"

#include <cstdint>
#include <string>
#include <vector>

namespace miw::sigstore {

struct CertificateIdentity {
    std::vector<std::string> sans;  // URIs, emails, other names
    std::string issuer;  // 1.3.6.1.4.1.57264.1.8, else the legacy 1.3.6.1.4.1.57264.1.1
};
Result<CertificateIdentity> certificate_identity(const std::string& der);

// The leaf chains, at time t, to an authority valid at t; on success, the
// leaf's issuer certificate (DER), which its SCTs are signed over.
Result<std::string> verify_certificate_chain(const std::string& leaf, const std::vector<Authority>& authorities, std::int64_t t);

// At least one of the leaf's embedded SCTs is by a CT log of the trusted root valid at its time, and verifies.
Status verify_embedded_sct(const std::string& leaf, const std::string& issuer, const std::vector<LogKey>& ctlogs);

}  // namespace miw::sigstore
