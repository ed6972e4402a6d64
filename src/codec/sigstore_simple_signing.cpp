// cosign's legacy simple-signing payloads and Rekor bundle annotations, read.
#include "model_image_webhook/sigstore/simple_signing.hpp"

#include "json_dom.hpp"

#include "model_image_webhook/sigstore/rekor_entry.hpp"
#include "model_image_webhook/text.hpp"

#include <cctype>

namespace miw::sigstore {

using namespace json;

namespace {

// A member as encoding/json finds a struct field: the exact name, else the
// first whose name equals it case-insensitively (ASCII, as for these names).
const Value* go_field(const Value* obj, std::string_view name) {
    if (obj == nullptr || !obj->IsObject()) return nullptr;
    if (const Value* exact = member(obj, name)) return exact;
    const Value* found = nullptr;
    for (auto it = obj->MemberBegin(); it != obj->MemberEnd(); ++it) {
        const std::string_view key = view(it->name);
        if (key.size() != name.size()) continue;
        bool same = true;
        for (std::size_t i = 0; i < key.size() && same; ++i) {
            same = std::tolower(static_cast<unsigned char>(key[i])) == std::tolower(static_cast<unsigned char>(name[i]));
        }
        if (same) found = &it->value;  // the last, as the decoder overwrites
    }
    return found;
}

}  // namespace

Result<std::string> simple_signing_digest(std::string payload) {
    Document doc;
    if (std::string error = parse_document(payload, doc); !error.empty()) return fail("the simple-signing payload is not JSON: " + error);
    const Value* digest = go_field(go_field(go_field(&doc, "critical"), "image"), "docker-manifest-digest");
    if (digest == nullptr || !digest->IsString()) return fail("the simple-signing payload names no critical.image.docker-manifest-digest");
    return std::string(view(*digest));
}

Result<TlogEntry> read_cosign_rekor_bundle(std::string text) {
    Document doc;
    if (std::string error = parse_document(text, doc); !error.empty()) return fail("the Rekor bundle annotation is not JSON: " + error);
    const Value* payload = go_field(&doc, "Payload");
    if (payload == nullptr || !payload->IsObject()) return fail("the Rekor bundle annotation has no Payload");
    TlogEntry out;
    const Value* set = go_field(&doc, "SignedEntryTimestamp");
    const Value* body = go_field(payload, "body");
    const Value* time = go_field(payload, "integratedTime");
    const Value* index = go_field(payload, "logIndex");
    const Value* log_id = go_field(payload, "logID");
    if (set == nullptr || !set->IsString() || body == nullptr || !body->IsString() || time == nullptr || !time->IsInt64() || index == nullptr || !index->IsInt64() ||
        log_id == nullptr || !log_id->IsString()) {
        return fail("the Rekor bundle annotation lacks its SignedEntryTimestamp, body, integratedTime, logIndex or logID");
    }
    std::optional<std::string> promise = base64_decode(view(*set));
    std::optional<std::string> entry = base64_decode(view(*body));
    std::optional<std::string> id = hex_decode(view(*log_id));
    if (!promise || !entry || !id) return fail("the Rekor bundle annotation's SignedEntryTimestamp, body or logID does not decode");
    if (index->GetInt64() < 0) return fail("the Rekor bundle annotation's logIndex is negative");
    Result<RekorEntry> read = read_rekor_entry(*entry);
    if (!read) return fail(read.error());
    out.signed_entry_timestamp = std::move(*promise);
    out.canonicalized_body = std::move(*entry);
    out.log_id = std::move(*id);
    out.integrated_time = time->GetInt64();
    out.log_index = index->GetInt64();
    out.kind = read->kind;
    out.version = read->api_version;
    return out;
}

}  // namespace miw::sigstore
