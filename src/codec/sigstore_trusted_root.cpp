// A Sigstore trusted_root.json read as protobuf's JSON mapping writes it.
#include "model_image_webhook/sigstore/trusted_root.hpp"

#include "json_dom.hpp"

#include "model_image_webhook/rfc3339.hpp"
#include "model_image_webhook/text.hpp"

namespace miw::sigstore {

using namespace json;

namespace {

Result<Validity> validity_of(const Value* valid_for, std::string_view where, bool start_required) {
    Validity out;
    const Value* start = member(valid_for, "start");
    if (start == nullptr || start->IsNull()) {
        if (start_required) return fail(std::string(where) + ".validFor.start is missing: a key without the start of its validity is trusted for no time");
    } else {
        const std::optional<std::int64_t> t = start->IsString() ? parse_rfc3339(view(*start)) : std::nullopt;
        if (!t) return fail(std::string(where) + ".validFor.start is not an RFC 3339 time");
        out.start = *t;
    }
    if (const Value* end = member(valid_for, "end"); end != nullptr && !end->IsNull()) {
        const std::optional<std::int64_t> t = end->IsString() ? parse_rfc3339(view(*end)) : std::nullopt;
        if (!t) return fail(std::string(where) + ".validFor.end is not an RFC 3339 time");
        out.end = *t;
    }
    return out;
}

Result<std::string> base64_member(const Value* obj, std::string_view name, std::string_view where) {
    const Value* v = member(obj, name);
    if (v == nullptr || !v->IsString()) return fail(std::string(where) + " is missing");
    std::optional<std::string> raw = base64_decode(view(*v));
    if (!raw) return fail(std::string(where) + " is not base64");
    return std::move(*raw);
}

Result<std::vector<LogKey>> logs_of(const Value* list, std::string_view where, bool start_required) {
    std::vector<LogKey> out;
    if (list == nullptr || list->IsNull()) return out;
    if (!list->IsArray()) return fail(std::string(where) + " is not a list");
    for (const Value& l : list->GetArray()) {
        LogKey log;
        log.base_url = std::string(string_or_empty(member(&l, "baseUrl")));
        const Value* key = member(&l, "publicKey");
        Result<std::string> raw = base64_member(key, "rawBytes", std::string(where) + "[].publicKey.rawBytes");
        if (!raw) return fail(raw.error());
        log.key = std::move(*raw);
        log.key_details = std::string(string_or_empty(member(key, "keyDetails")));
        Result<Validity> valid = validity_of(member(key, "validFor"), std::string(where) + "[].publicKey", start_required);
        if (!valid) return fail(valid.error());
        log.valid = *valid;
        if (const Value* id = member(&l, "logId"); id != nullptr && !id->IsNull()) {
            Result<std::string> key_id = base64_member(id, "keyId", std::string(where) + "[].logId.keyId");
            if (!key_id) return fail(key_id.error());
            log.log_id = std::move(*key_id);
        }
        out.push_back(std::move(log));
    }
    return out;
}

Result<std::vector<Authority>> authorities_of(const Value* list, std::string_view where) {
    std::vector<Authority> out;
    if (list == nullptr || list->IsNull()) return out;
    if (!list->IsArray()) return fail(std::string(where) + " is not a list");
    for (const Value& a : list->GetArray()) {
        Authority authority;
        authority.uri = std::string(string_or_empty(member(&a, "uri")));
        const Value* certs = member(member(&a, "certChain"), "certificates");
        if (certs == nullptr || !certs->IsArray() || certs->Empty()) return fail(std::string(where) + "[].certChain holds no certificate");
        for (const Value& c : certs->GetArray()) {
            Result<std::string> der = base64_member(&c, "rawBytes", std::string(where) + "[].certChain.certificates[].rawBytes");
            if (!der) return fail(der.error());
            authority.chain.push_back(std::move(*der));
        }
        Result<Validity> valid = validity_of(member(&a, "validFor"), where, false);
        if (!valid) return fail(valid.error());
        authority.valid = *valid;
        out.push_back(std::move(authority));
    }
    return out;
}

}  // namespace

Result<TrustedRoot> read_trusted_root(std::string text) {
    Document doc;
    if (std::string error = parse_document(text, doc); !error.empty()) return fail("the trusted root is not JSON: " + error);
    if (!doc.IsObject()) return fail("the trusted root is not a JSON object");
    const std::string_view media_type = string_or_empty(member(&doc, "mediaType"));
    if (media_type.rfind("application/vnd.dev.sigstore.trustedroot", 0) != 0) {
        return fail("the trusted root's mediaType \"" + std::string(media_type) + "\" is not application/vnd.dev.sigstore.trustedroot...");
    }
    TrustedRoot out;
    auto tlogs = logs_of(member(&doc, "tlogs"), "tlogs", true);
    if (!tlogs) return fail("the trusted root's " + tlogs.error());
    out.tlogs = std::move(*tlogs);
    auto ctlogs = logs_of(member(&doc, "ctlogs"), "ctlogs", false);
    if (!ctlogs) return fail("the trusted root's " + ctlogs.error());
    out.ctlogs = std::move(*ctlogs);
    auto cas = authorities_of(member(&doc, "certificateAuthorities"), "certificateAuthorities");
    if (!cas) return fail("the trusted root's " + cas.error());
    out.certificate_authorities = std::move(*cas);
    auto tsas = authorities_of(member(&doc, "timestampAuthorities"), "timestampAuthorities");
    if (!tsas) return fail("the trusted root's " + tsas.error());
    out.timestamp_authorities = std::move(*tsas);
    return out;
}

}  // namespace miw::sigstore
