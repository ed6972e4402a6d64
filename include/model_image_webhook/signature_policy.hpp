// --signature-policy (design.md 1.11): YAML documents shaped as sigstore
// policy-controller's, so that a team that knows one knows the other:
// ClusterImagePolicy (policy.sigstore.dev/v1beta1) and TrustRoot
// (policy.sigstore.dev/v1alpha1). Read by src/codec/signature_policy.cpp;
// a field this product does not implement is refused with its path, never
// ignored. No JSON or YAML library here.
#pragma once

#include "model_image_webhook/image_glob.hpp"
#include "model_image_webhook/result.hpp"

#include <map>
#include <string>
#include <vector>

namespace miw {

// A keyless identity: exact issuer and subject, or RE2 patterns of them.
struct SignerIdentity {
    std::string issuer;
    std::string subject;
    std::string issuer_regexp;
    std::string subject_regexp;
};

struct PolicyAuthority {
    std::string name;  // as written, else "authority-N"
    bool keyless = false;
    std::string key_pem;  // key.data
    std::vector<SignerIdentity> identities;  // keyless.identities
    std::string trust_root_ref;  // keyless.trustRootRef; empty: --trusted-root, else the public-good root
    bool ctlog = false;  // a transparency log entry is required (always for keyless)
    std::string ctlog_trust_root_ref;
};

struct ImagePolicy {
    std::string name;
    std::vector<ImageGlob> images;
    std::vector<PolicyAuthority> authorities;
    bool enforce = true;  // spec.mode: enforce (default) or warn
};

// A TrustRoot's sigstoreKeys, PEM as it is written (base64 of PEM, decoded).
struct PolicyTrustRoot {
    std::string name;
    struct Log {
        std::string base_url;
        std::string public_key_pem;
        std::string log_id;  // raw; empty: the key's SHA-256
    };
    struct Authority {
        std::string uri;
        std::string cert_chain_pem;
    };
    std::vector<Authority> certificate_authorities;
    std::vector<Log> tlogs;
    std::vector<Log> ctlogs;
    std::vector<Authority> timestamp_authorities;
};

struct SignaturePolicy {
    std::vector<ImagePolicy> policies;
    std::map<std::string, PolicyTrustRoot> trust_roots;  // by name
};

// Every document of a --signature-policy file; or the first thing wrong,
// naming the document and the field's path.
Result<SignaturePolicy> read_signature_policy(std::string_view text);

}  // namespace miw
