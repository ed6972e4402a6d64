// A Sigstore bundle's JSON read as protobuf's JSON mapping writes it: camelCase
// fields, bytes as standard base64, int64 as decimal strings.
#include "model_image_webhook/sigstore/bundle.hpp"

#include "json_dom.hpp"

#include "model_image_webhook/text.hpp"

#include <charconv>

namespace miw::sigstore {

using namespace json;

namespace {

// Base64 as Go's decoder reads it (protojson's bytes): line breaks ignored,
// as `base64` writes them every 76 characters.
std::optional<std::string> go_base64(std::string_view text) {
    if (text.find_first_of("\r\n") == std::string_view::npos) return base64_decode(text);
    std::string joined;
    for (char c : text) {
        if (c != '\r' && c != '\n') joined += c;
    }
    return base64_decode(joined);
}

// Readers that say which field was wrong: the first error wins.
struct Reader {
    std::string error;

    bool failed() const { return !error.empty(); }
    void fail_at(std::string_view field, std::string_view why) {
        if (error.empty()) error = std::string(field) + ": " + std::string(why);
    }
    std::string bytes(const Value* obj, std::string_view name, std::string_view field, bool required = true) {
        const Value* v = member(obj, name);
        if (v == nullptr || v->IsNull()) {
            if (required) fail_at(field, "missing");
            return {};
        }
        if (!v->IsString()) {
            fail_at(field, "not a base64 string");
            return {};
        }
        std::optional<std::string> decoded = go_base64(view(*v));
        if (!decoded) {
            fail_at(field, "not base64");
            return {};
        }
        return std::move(*decoded);
    }
    std::string text(const Value* obj, std::string_view name, std::string_view field, bool required = true) {
        const Value* v = member(obj, name);
        if (v == nullptr || v->IsNull()) {
            if (required) fail_at(field, "missing");
            return {};
        }
        if (!v->IsString()) {
            fail_at(field, "not a string");
            return {};
        }
        return std::string(view(*v));
    }
    // An int64 as protobuf writes it (a decimal string), or as a number.
    std::int64_t int64(const Value* obj, std::string_view name, std::string_view field, bool required = true) {
        const Value* v = member(obj, name);
        if (v == nullptr || v->IsNull()) {
            if (required) fail_at(field, "missing");
            return 0;
        }
        std::int64_t out = 0;
        if (v->IsInt64()) return v->GetInt64();
        if (!v->IsString()) {
            fail_at(field, "not an integer");
            return 0;
        }
        const std::string_view s = view(*v);
        const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
        if (ec != std::errc() || end != s.data() + s.size() || s.empty()) fail_at(field, "not an integer");
        return out;
    }
};

std::optional<BundleVersion> version_of(std::string_view media_type) {
    if (media_type == "application/vnd.dev.sigstore.bundle+json;version=0.1") return BundleVersion::v0_1;
    if (media_type == "application/vnd.dev.sigstore.bundle+json;version=0.2") return BundleVersion::v0_2;
    if (media_type == "application/vnd.dev.sigstore.bundle+json;version=0.3" || media_type == "application/vnd.dev.sigstore.bundle.v0.3+json") {
        return BundleVersion::v0_3;
    }
    return std::nullopt;
}

void read_tlog_entry(Reader& r, const Value& e, TlogEntry& out) {
    // proto3's JSON leaves a zero out: the first entry of a log has no logIndex written, as a proof of it has none.
    out.log_index = r.int64(&e, "logIndex", "tlogEntries[].logIndex", false);
    if (out.log_index < 0) r.fail_at("tlogEntries[].logIndex", "negative");
    out.log_id = r.bytes(member(&e, "logId"), "keyId", "tlogEntries[].logId.keyId");
    const Value* kv = member(&e, "kindVersion");
    out.kind = r.text(kv, "kind", "tlogEntries[].kindVersion.kind");
    out.version = r.text(kv, "version", "tlogEntries[].kindVersion.version");
    out.integrated_time = r.int64(&e, "integratedTime", "tlogEntries[].integratedTime", false);
    if (const Value* promise = member(&e, "inclusionPromise"); promise != nullptr && !promise->IsNull()) {
        out.signed_entry_timestamp = r.bytes(promise, "signedEntryTimestamp", "tlogEntries[].inclusionPromise.signedEntryTimestamp");
    }
    if (const Value* proof = member(&e, "inclusionProof"); proof != nullptr && !proof->IsNull()) {
        InclusionProof p;
        p.log_index = r.int64(proof, "logIndex", "tlogEntries[].inclusionProof.logIndex", false);
        if (p.log_index < 0) r.fail_at("tlogEntries[].inclusionProof.logIndex", "negative");
        p.root_hash = r.bytes(proof, "rootHash", "tlogEntries[].inclusionProof.rootHash");
        p.tree_size = r.int64(proof, "treeSize", "tlogEntries[].inclusionProof.treeSize");
        if (const Value* hashes = member(proof, "hashes"); hashes != nullptr && hashes->IsArray()) {
            for (const Value& h : hashes->GetArray()) {
                if (!h.IsString()) {
                    r.fail_at("tlogEntries[].inclusionProof.hashes[]", "not a base64 string");
                    break;
                }
                std::optional<std::string> raw = go_base64(view(h));
                if (!raw) {
                    r.fail_at("tlogEntries[].inclusionProof.hashes[]", "not base64");
                    break;
                }
                p.hashes.push_back(std::move(*raw));
            }
        }
        if (const Value* checkpoint = member(proof, "checkpoint"); checkpoint != nullptr && !checkpoint->IsNull()) {
            p.checkpoint = r.text(checkpoint, "envelope", "tlogEntries[].inclusionProof.checkpoint.envelope");
        }
        out.inclusion_proof = std::move(p);
    }
    out.canonicalized_body = r.bytes(&e, "canonicalizedBody", "tlogEntries[].canonicalizedBody");
}

}  // namespace

Result<Bundle> read_bundle(std::string text) {
    Document doc;
    if (std::string error = parse_document(text, doc); !error.empty()) return fail("the bundle is not JSON: " + error);
    if (!doc.IsObject()) return fail("the bundle is not a JSON object");
    Bundle out;
    out.media_type = std::string(string_or_empty(member(&doc, "mediaType")));
    const std::optional<BundleVersion> version = version_of(out.media_type);
    if (!version) return fail("the bundle's mediaType \"" + out.media_type + "\" is not a bundle version this verifier knows (0.1, 0.2, 0.3)");
    out.version = *version;
    Reader r;
    const Value* material = member(&doc, "verificationMaterial");
    if (material == nullptr || !material->IsObject()) return fail("the bundle has no verificationMaterial");
    if (const Value* chain = member(material, "x509CertificateChain"); chain != nullptr && !chain->IsNull()) {
        const Value* certs = member(chain, "certificates");
        if (certs == nullptr || !certs->IsArray() || certs->Empty()) return fail("the bundle's x509CertificateChain holds no certificate");
        for (const Value& c : certs->GetArray()) out.certificates.push_back(r.bytes(&c, "rawBytes", "x509CertificateChain.certificates[].rawBytes"));
    } else if (const Value* cert = member(material, "certificate"); cert != nullptr && !cert->IsNull()) {
        out.certificates.push_back(r.bytes(cert, "rawBytes", "certificate.rawBytes"));
    } else if (const Value* key = member(material, "publicKey"); key != nullptr && !key->IsNull()) {
        out.public_key = true;
        out.public_key_hint = r.text(key, "hint", "publicKey.hint", false);
    } else {
        return fail("the bundle's verificationMaterial names no certificate and no public key");
    }
    if (const Value* entries = member(material, "tlogEntries"); entries != nullptr && entries->IsArray()) {
        for (const Value& e : entries->GetArray()) {
            if (!e.IsObject()) return fail("a tlogEntries entry is not an object");
            out.tlog_entries.emplace_back();
            read_tlog_entry(r, e, out.tlog_entries.back());
        }
    }
    if (const Value* tvd = member(material, "timestampVerificationData"); tvd != nullptr && tvd->IsObject()) {
        if (const Value* ts = member(tvd, "rfc3161Timestamps"); ts != nullptr && ts->IsArray()) {
            for (const Value& t : ts->GetArray()) out.rfc3161_timestamps.push_back(r.bytes(&t, "signedTimestamp", "rfc3161Timestamps[].signedTimestamp"));
        }
    }
    if (const Value* message = member(&doc, "messageSignature"); message != nullptr && message->IsObject()) {
        if (const Value* digest = member(message, "messageDigest"); digest != nullptr && !digest->IsNull()) {
            out.digest_algorithm = r.text(digest, "algorithm", "messageSignature.messageDigest.algorithm");
            out.message_digest = r.bytes(digest, "digest", "messageSignature.messageDigest.digest");
        }
        out.signature = r.bytes(message, "signature", "messageSignature.signature");
    } else if (const Value* envelope = member(&doc, "dsseEnvelope"); envelope != nullptr && envelope->IsObject()) {
        out.dsse = true;
        out.payload = r.bytes(envelope, "payload", "dsseEnvelope.payload");
        out.payload_type = r.text(envelope, "payloadType", "dsseEnvelope.payloadType");
        const Value* sigs = member(envelope, "signatures");
        if (sigs == nullptr || !sigs->IsArray()) return fail("the bundle's dsseEnvelope has no signatures");
        for (const Value& s : sigs->GetArray()) {
            DsseSignature sig;
            sig.sig = r.bytes(&s, "sig", "dsseEnvelope.signatures[].sig");
            sig.keyid = r.text(&s, "keyid", "dsseEnvelope.signatures[].keyid", false);
            out.dsse_signatures.push_back(std::move(sig));
        }
    } else {
        return fail("the bundle has neither a messageSignature nor a dsseEnvelope");
    }
    if (r.failed()) return fail("the bundle's " + r.error);
    return out;
}

}  // namespace miw::sigstore
