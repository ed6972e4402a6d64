// Rekor entry bodies and in-toto statements, read.
#include "model_image_webhook/sigstore/rekor_entry.hpp"

#include "json_dom.hpp"

#include "model_image_webhook/text.hpp"

namespace miw::sigstore {

using namespace json;

namespace {

std::string decoded(const Value* v) {
    if (v == nullptr || !v->IsString()) return {};
    return base64_decode(view(*v)).value_or(std::string());
}

// A Rekor v2 verifier: its certificate's or key's DER.
std::string verifier_der(const Value* verifier) {
    if (const Value* cert = member(verifier, "x509Certificate"); cert != nullptr) return decoded(member(cert, "rawBytes"));
    return decoded(member(member(verifier, "publicKey"), "rawBytes"));
}

}  // namespace

Result<RekorEntry> read_rekor_entry(std::string body) {
    Document doc;
    if (std::string error = parse_document(body, doc); !error.empty()) return fail("the log entry's body is not JSON: " + error);
    if (!doc.IsObject()) return fail("the log entry's body is not a JSON object");
    RekorEntry out;
    out.kind = std::string(string_or_empty(member(&doc, "kind")));
    out.api_version = std::string(string_or_empty(member(&doc, "apiVersion")));
    const Value* spec = member(&doc, "spec");
    if (spec == nullptr || !spec->IsObject()) return fail("the log entry's body has no spec");
    if (out.kind == "hashedrekord" && out.api_version == "0.0.2") {
        const Value* v2 = member(spec, "hashedRekordV002");
        const Value* data = member(v2, "data");
        out.hash_algorithm = std::string(string_or_empty(member(data, "algorithm")));
        out.hash_hex = hex_encode(decoded(member(data, "digest")));
        const Value* signature = member(v2, "signature");
        out.signature = decoded(member(signature, "content"));
        out.public_key = verifier_der(member(signature, "verifier"));
    } else if (out.kind == "dsse" && out.api_version == "0.0.2") {
        const Value* v2 = member(spec, "dsseV002");
        out.payload_hash_hex = hex_encode(decoded(member(member(v2, "payloadHash"), "digest")));
        if (const Value* sigs = member(v2, "signatures"); sigs != nullptr && sigs->IsArray()) {
            for (const Value& s : sigs->GetArray()) out.dsse_signatures.push_back({decoded(member(&s, "content")), verifier_der(member(&s, "verifier"))});
        }
    } else if (out.kind == "intoto") {
        // intoto 0.0.2: a signature is base64 of the envelope's base64, the key base64 of its PEM.
        const Value* content = member(spec, "content");
        out.payload_hash_hex = std::string(string_or_empty(member(member(content, "payloadHash"), "value")));
        if (const Value* sigs = member(member(content, "envelope"), "signatures"); sigs != nullptr && sigs->IsArray()) {
            for (const Value& s : sigs->GetArray()) {
                const std::string once = decoded(member(&s, "sig"));
                out.dsse_signatures.push_back({base64_decode(once).value_or(std::string()), decoded(member(&s, "publicKey"))});
            }
        }
    } else if (out.kind == "hashedrekord") {
        const Value* hash = member(member(spec, "data"), "hash");
        out.hash_algorithm = std::string(string_or_empty(member(hash, "algorithm")));
        out.hash_hex = std::string(string_or_empty(member(hash, "value")));
        const Value* signature = member(spec, "signature");
        out.signature = decoded(member(signature, "content"));
        out.public_key = decoded(member(member(signature, "publicKey"), "content"));
    } else if (out.kind == "dsse") {
        out.payload_hash_hex = std::string(string_or_empty(member(member(spec, "payloadHash"), "value")));
        if (const Value* sigs = member(spec, "signatures"); sigs != nullptr && sigs->IsArray()) {
            for (const Value& s : sigs->GetArray()) out.dsse_signatures.push_back({decoded(member(&s, "signature")), decoded(member(&s, "verifier"))});
        }
    }
    return out;
}

Result<Statement> read_statement(std::string payload) {
    Document doc;
    if (std::string error = parse_document(payload, doc); !error.empty()) return fail("the DSSE payload is not JSON: " + error);
    if (!doc.IsObject()) return fail("the DSSE payload is not a JSON object");
    Statement out;
    out.type = std::string(string_or_empty(member(&doc, "_type")));
    out.predicate_type = std::string(string_or_empty(member(&doc, "predicateType")));
    if (const Value* subjects = member(&doc, "subject"); subjects != nullptr && subjects->IsArray()) {
        for (const Value& s : subjects->GetArray()) {
            out.subjects.push_back({std::string(string_or_empty(member(&s, "name"))), std::string(string_or_empty(member(member(&s, "digest"), "sha256")))});
        }
    }
    return out;
}

}  // namespace miw::sigstore
