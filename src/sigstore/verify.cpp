#include "verify.hpp"

#include "certificate.hpp"
#include "checkpoint.hpp"
#include "crypto.hpp"
#include "merkle.hpp"
#include "timestamp.hpp"

#include "model_image_webhook/sigstore/rekor_entry.hpp"
#include "model_image_webhook/text.hpp"

#include <openssl/x509.h>
#include <openssl/x509v3.h>

#include <algorithm>

namespace miw::sigstore {

namespace {

// How far ahead of this machine's clock a log's time may be.
constexpr std::int64_t kClockSkewSeconds = 60;

// A trusted root's logs named by their keys where the document names them not.
void fill_log_ids(std::vector<LogKey>& logs) {
    for (LogKey& log : logs) {
        if (!log.log_id.empty()) continue;
        Result<PublicKey> key = PublicKey::from_der(log.key);
        log.log_id = key ? derived_log_id(*key, log.base_url) : sha256(log.key);
    }
}

// A certificate or key, PEM (Rekor v1) or DER (Rekor v2), as the DER of its
// key: what a log entry's body names as the signer.
std::string key_der_of(const std::string& given) {
    const std::optional<std::string> der = given.rfind("-----", 0) == 0 ? pem_der(given) : std::optional<std::string>(given);
    if (!der) return {};
    if (Result<PublicKey> key = PublicKey::of_certificate(*der)) return key->der();
    Result<PublicKey> key = PublicKey::from_der(*der);
    return key ? key->der() : std::string();
}

bool self_issued(const std::string& der) {
    const std::shared_ptr<X509> x = parsed_certificate(der);
    return x && X509_check_issued(x.get(), x.get()) == X509_V_OK;
}

// DSSE's pre-authentication encoding, what its signatures sign.
std::string pae(const std::string& type, const std::string& payload) {
    return "DSSEv1 " + std::to_string(type.size()) + " " + type + " " + std::to_string(payload.size()) + " " + payload;
}

// The SET: the log's signature over the entry as canonical JSON (keys sorted, no spaces).
std::string set_payload(const TlogEntry& e) {
    return "{\"body\":\"" + base64_encode(e.canonicalized_body) + "\",\"integratedTime\":" + std::to_string(e.integrated_time) + ",\"logID\":\"" + hex(e.log_id) +
           "\",\"logIndex\":" + std::to_string(e.log_index) + "}";
}

// The entry's body says what the bundle says: the same digest, signature and signer.
Status body_matches(const Bundle& bundle, const TlogEntry& entry, const std::string& signer_key_der) {
    Result<RekorEntry> body = read_rekor_entry(entry.canonicalized_body);
    if (!body) return fail(body.error());
    if (body->kind != entry.kind) return fail("the log entry's body is a " + body->kind + ", its kind says " + entry.kind);
    if (!bundle.dsse) {
        if (body->kind != "hashedrekord") return fail("a message signature's log entry is a " + body->kind + ", not a hashedrekord");
        if ((body->hash_algorithm != "sha256" && body->hash_algorithm != "SHA2_256") || body->hash_hex != hex(bundle.message_digest)) {
            return fail("the log entry is for another digest than the bundle's");
        }
        if (body->signature != bundle.signature) return fail("the log entry holds another signature than the bundle's");
        if (key_der_of(body->public_key) != signer_key_der) return fail("the log entry names another signer than the bundle's");
        return done();
    }
    if (body->kind == "hashedrekord" && body->api_version == "0.0.2") {
        // Rekor v2's hashedrekord over DSSE (its spec, 6.1.4): the hash of the envelope's PAE, and its one signature.
        if (body->hash_hex != hex(sha256(pae(bundle.payload_type, bundle.payload)))) return fail("the log entry is for another DSSE envelope than the bundle's");
        if (bundle.dsse_signatures.size() != 1 || body->signature != bundle.dsse_signatures.front().sig) return fail("the log entry holds another DSSE signature than the bundle's");
        if (key_der_of(body->public_key) != signer_key_der) return fail("the log entry names another signer than the bundle's");
        return done();
    }
    if (body->kind != "dsse" && body->kind != "intoto") return fail("the DSSE envelope's log entry is a " + body->kind + ", not a dsse or intoto");
    if (body->payload_hash_hex != hex(sha256(bundle.payload))) return fail("the log entry is for another DSSE payload than the bundle's");
    for (const DsseSignature& s : bundle.dsse_signatures) {
        const bool logged = std::any_of(body->dsse_signatures.begin(), body->dsse_signatures.end(), [&](const RekorEntry::DsseSignature& l) {
            return l.signature == s.sig && key_der_of(l.verifier) == signer_key_der;
        });
        if (!logged) return fail("the log entry holds another DSSE signature or signer than the bundle's");
    }
    return done();
}

// One log entry proved: in a log of the trusted root, by its SET or its
// inclusion proof and signed checkpoint; its time, where it has one.
Result<std::int64_t> verify_entry(const Bundle& bundle, const TlogEntry& entry, const TrustedRoot& root, const std::string& signer_key_der, std::int64_t now) {
    // Rekor v2 (hashedrekord and dsse 0.0.2): no signed entry timestamp and no
    // time of its own; proved by its inclusion proof, timed by a timestamp authority.
    const bool rekor_v2 = entry.version == "0.0.2" && (entry.kind == "hashedrekord" || entry.kind == "dsse");
    const auto log = std::find_if(root.tlogs.begin(), root.tlogs.end(), [&](const LogKey& l) { return l.log_id == entry.log_id; });
    if (log == root.tlogs.end()) return fail("the log entry is from a transparency log the trusted root does not name (" + hex(entry.log_id) + ")");
    Result<PublicKey> key = PublicKey::from_der(log->key);
    if (!key) return fail("the trusted root's key of log " + log->base_url + " cannot be read");
    if (Status matches = body_matches(bundle, entry, signer_key_der); !matches) return fail(matches.error());
    if (entry.integrated_time > now + kClockSkewSeconds) return fail("the log entry's time is in the future");
    if (entry.integrated_time != 0 && !log->valid.contains(entry.integrated_time)) return fail("the log entry's time is outside its log's validity in the trusted root");
    const bool promise = !entry.signed_entry_timestamp.empty();
    if (bundle.version == BundleVersion::v0_1 && !promise) return fail("a v0.1 bundle's log entry must carry its signed entry timestamp");
    if ((bundle.version != BundleVersion::v0_1 || rekor_v2) && !entry.inclusion_proof) return fail("the log entry has no inclusion proof");
    if (rekor_v2 && promise) return fail("a Rekor v2 entry carries no signed entry timestamp");
    if (promise && !key->verifies(set_payload(entry), entry.signed_entry_timestamp)) return fail("the log entry's signed entry timestamp does not verify");
    if (entry.inclusion_proof) {
        const InclusionProof& proof = *entry.inclusion_proof;
        const std::optional<std::string> root_hash = merkle_root_from_proof(static_cast<std::uint64_t>(proof.log_index), static_cast<std::uint64_t>(proof.tree_size),
                                                                             merkle_leaf_hash(entry.canonicalized_body), proof.hashes);
        if (!root_hash || *root_hash != proof.root_hash) return fail("the log entry's inclusion proof does not lead to its root hash");
        if (proof.checkpoint.empty()) return fail("the log entry's inclusion proof has no checkpoint");
        Result<Checkpoint> checkpoint = read_checkpoint(proof.checkpoint);
        if (!checkpoint) return fail(checkpoint.error());
        if (!checkpoint_signed_by(*checkpoint, *key, log->log_id)) return fail("the checkpoint is not signed by the log's key");
        if (checkpoint->root_hash != proof.root_hash || checkpoint->size != static_cast<std::uint64_t>(proof.tree_size)) {
            return fail("the checkpoint's tree is not the inclusion proof's");
        }
    }
    return rekor_v2 ? 0 : entry.integrated_time;
}

}  // namespace

Result<Verified> verify_bundle(const Bundle& bundle, TrustedRoot root, const Artifact& artifact, const SignerPolicy& signer, std::int64_t now) {
    fill_log_ids(root.tlogs);
    fill_log_ids(root.ctlogs);
    const bool keyless = signer.key_pem.empty();
    // The signer's key.
    Result<PublicKey> key = fail("no signer");
    if (keyless) {
        if (bundle.certificates.empty()) return fail("the bundle is signed by a key, and a certificate identity was asked for");
        for (std::size_t i = 0; i < bundle.certificates.size(); ++i) {
            if (self_issued(bundle.certificates[i])) return fail("the bundle's certificate chain holds a root certificate: roots come from the trusted root only");
        }
        key = PublicKey::of_certificate(bundle.certificates.front());
    } else {
        if (!bundle.certificates.empty()) return fail("the bundle is signed by a certificate, and a key was given");
        key = PublicKey::from_pem(signer.key_pem);
    }
    if (!key) return fail("the signer's key: " + key.error());
    const std::string signer_key_der = key->der();

    // What was signed.
    if (!bundle.dsse) {
        if (bundle.digest_algorithm.empty() || bundle.digest_algorithm == "SHA2_256") {
            if (!bundle.message_digest.empty() && bundle.message_digest != artifact.sha256) return fail("the bundle's message digest is not the artifact's");
        } else {
            return fail("the bundle's message digest is " + bundle.digest_algorithm + ", which this verifier does not check");
        }
        const bool signed_ok = artifact.has_bytes ? key->verifies(artifact.bytes, bundle.signature) : key->verifies_digest(artifact.sha256, bundle.signature);
        if (!signed_ok) return fail("the signature does not verify over the artifact with the signer's key");
    } else {
        const std::string encoded = pae(bundle.payload_type, bundle.payload);
        if (bundle.dsse_signatures.empty()) return fail("the DSSE envelope is not signed");
        for (const DsseSignature& s : bundle.dsse_signatures) {
            if (!key->verifies(encoded, s.sig)) return fail("the DSSE envelope's signature does not verify with the signer's key");
        }
        if (bundle.payload_type != "application/vnd.in-toto+json") return fail("the DSSE payload is " + bundle.payload_type + ", not an in-toto statement");
        Result<Statement> statement = read_statement(bundle.payload);
        if (!statement) return fail(statement.error());
        const std::string wanted = hex(artifact.sha256);
        const bool subject = std::any_of(statement->subjects.begin(), statement->subjects.end(), [&](const StatementSubject& s) { return s.sha256_hex == wanted; });
        if (!subject) return fail("no subject of the in-toto statement has the artifact's digest");
    }

    // The logs' proofs and the timestamp authorities' stamps, and the times they give.
    if (!keyless && !signer.require_tlog) return Verified{};
    if (bundle.tlog_entries.empty()) return fail("the bundle has no transparency log entry");
    std::vector<std::int64_t> times;
    const std::string& stamped = bundle.dsse ? bundle.dsse_signatures.front().sig : bundle.signature;
    for (const std::string& timestamp : bundle.rfc3161_timestamps) {
        Result<std::int64_t> t = verify_timestamp(timestamp, stamped, root.timestamp_authorities);
        if (!t) return fail(t.error());
        if (*t > now + kClockSkewSeconds) return fail("the RFC 3161 timestamp's time is in the future");
        times.push_back(*t);
    }
    for (const TlogEntry& entry : bundle.tlog_entries) {
        Result<std::int64_t> t = verify_entry(bundle, entry, root, signer_key_der, now);
        if (!t) return fail(t.error());
        if (*t != 0) times.push_back(*t);
    }
    Verified out;
    if (!times.empty()) out.signed_at = times.front();
    if (!keyless) return out;

    // A keyless signer: its certificate at each time the logs give, its SCT, who it names.
    if (times.empty()) return fail("no verified time: a keyless signature needs a log's time inside its certificate's validity");
    std::string issuer;
    for (const std::int64_t t : times) {
        Result<std::string> chained = verify_certificate_chain(bundle.certificates.front(), root.certificate_authorities, t);
        if (!chained) return fail(chained.error());
        issuer = *chained;
    }
    if (Status sct = verify_embedded_sct(bundle.certificates.front(), issuer, root.ctlogs); !sct) return fail(sct.error());
    Result<CertificateIdentity> identity = certificate_identity(bundle.certificates.front());
    if (!identity) return fail(identity.error());
    if (signer.identity_matches) {
        if (!signer.identity_matches(identity->sans, identity->issuer)) {
            return fail("the certificate names " + (identity->sans.empty() ? std::string("no identity") : identity->sans.front()) + " of issuer " + identity->issuer +
                        ", which no identity of the policy matches");
        }
        return out;
    }
    if (std::find(identity->sans.begin(), identity->sans.end(), signer.identity) == identity->sans.end()) {
        return fail("the certificate names " + (identity->sans.empty() ? std::string("no identity") : identity->sans.front()) + ", not " + signer.identity);
    }
    if (identity->issuer != signer.issuer) return fail("the certificate's OIDC issuer is " + identity->issuer + ", not " + signer.issuer);
    return out;
}

}  // namespace miw::sigstore
