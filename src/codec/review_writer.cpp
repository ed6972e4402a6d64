#include "review_writer.hpp"

#include "json_dom.hpp"
#include "model_image_webhook/enforcement.hpp"
#include "model_image_webhook/text.hpp"

namespace miw::json {

namespace {

void write_status(JsonWriter& w, const Decision& d) {
    write_key(w, "status");
    w.StartObject();
    write_key(w, "metadata");
    w.StartObject();
    w.EndObject();
    write_key(w, "status");
    write_string(w, "Failure");
    write_key(w, "message");
    write_string(w, d.message);
    write_key(w, "reason");
    write_string(w, d.reason);
    if (!d.causes.empty()) {
        write_key(w, "details");
        w.StartObject();
        // Go's StatusDetails omits empty fields.
        if (!d.details_name.empty()) { write_key(w, "name"); write_string(w, d.details_name); }
        if (!d.details_group.empty()) { write_key(w, "group"); write_string(w, d.details_group); }
        if (!d.details_kind.empty()) { write_key(w, "kind"); write_string(w, d.details_kind); }
        write_key(w, "causes");
        w.StartArray();
        for (const auto& cause : d.causes) {
            w.StartObject();
            write_key(w, "reason");
            write_string(w, to_string(cause.type));
            write_key(w, "message");
            write_string(w, cause.body);
            write_key(w, "field");
            write_string(w, cause.field);
            w.EndObject();
        }
        w.EndArray();
        w.EndObject();
    }
    write_key(w, "code");
    w.Int(d.code);
    w.EndObject();
}


}  // namespace

std::string write_review(std::string_view api_version, std::string_view uid, const Decision& d) {
    // Room for the whole answer up front: the buffer would otherwise grow by
    // halves, a reallocation and a copy each time.
    std::size_t estimate = 512 + uid.size() + d.message.size() + d.patch.size() / 3 * 4;
    for (const auto& warning : d.warnings) estimate += warning.size() + 8;
    for (const auto& cause : d.causes) estimate += cause.field.size() + cause.body.size() + 64;
    rapidjson::StringBuffer buffer;
    buffer.Reserve(estimate);
    JsonWriter w(buffer);
    w.StartObject();
    write_key(w, "apiVersion");
    write_string(w, api_version);
    write_key(w, "kind");
    write_string(w, "AdmissionReview");
    write_key(w, "response");
    w.StartObject();
    write_key(w, "uid");
    write_string(w, uid);
    write_key(w, "allowed");
    w.Bool(d.allowed);
    if (!d.allowed) write_status(w, d);
    if (!d.patch.empty()) {
        write_key(w, "patch");
        // base64 needs no escaping: encoded straight into the answer. The
        // empty raw value writes the separator; the quoted text follows it.
        w.RawValue("", 0, rapidjson::kStringType);
        const std::size_t length = base64_length(d.patch.size());
        char* out = buffer.Push(length + 2);
        out[0] = '"';
        base64_encode_into(d.patch, out + 1);
        out[length + 1] = '"';
        write_key(w, "patchType");
        write_string(w, "JSONPatch");
    }
    if (const std::string rules = d.rule_annotation(); !rules.empty()) {
        // The apiserver records them as "<webhook name>/rule" and "<webhook name>/enforcement".
        write_key(w, "auditAnnotations");
        w.StartObject();
        write_key(w, "rule");
        write_string(w, rules);
        if (d.softened) {
            write_key(w, "enforcement");
            write_string(w, to_string(*d.softened));
        }
        w.EndObject();
    }
    if (!d.warnings.empty()) {
        write_key(w, "warnings");
        w.StartArray();
        // The apiserver drops warnings with control characters and cuts long ones.
        for (const auto& warning : d.warnings) write_string(w, warning_line(warning));
        w.EndArray();
    }
    w.EndObject();
    w.EndObject();
    return std::string(buffer.GetString(), buffer.GetSize());
}

}  // namespace miw::json
