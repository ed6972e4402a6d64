// A --signature-policy TrustRoot (policy-controller's sigstoreKeys: PEM keys
// and certificate chains, base64 of PEM as Go's []byte writes them) as the
// trusted root a verification takes: keys and certificates DER, each log
// named by its id or, where the document gives none, by the SHA-256 of its
// key. A TrustRoot gives no validity windows: every key is trusted for all
// time, as policy-controller trusts it. No OpenSSL in this header.
#pragma once

#include "model_image_webhook/result.hpp"
#include "model_image_webhook/signature_policy.hpp"
#include "model_image_webhook/sigstore/trusted_root.hpp"

namespace miw::sigstore {

Result<TrustedRoot> trusted_root_of(const PolicyTrustRoot& root);

}  // namespace miw::sigstore
