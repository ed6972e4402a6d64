#include "review_writer.hpp"

#include "model_image_webhook/enforcement.hpp"
#include "model_image_webhook/json_patch.hpp"
#include "model_image_webhook/text.hpp"

#include <charconv>

namespace miw::json {

namespace {

// The answer's members are fixed in number and order, so its text is
// written as literals and escaped strings straight into one buffer: a
// general JSON writer spent more on keeping its state (which member comes
// next, whether a comma is due) than on the few hundred bytes it wrote.
class AnswerText {
public:
    explicit AnswerText(std::size_t room) { text_.reserve(room); }

    // Literal JSON punctuation and keys, written as they are.
    AnswerText& raw(std::string_view json) {
        text_.append(json);
        return *this;
    }
    // A JSON string: quoted, with '"', '\\' and control characters escaped.
    AnswerText& string(std::string_view value) {
        append_json_string(text_, value);
        return *this;
    }
    AnswerText& integer(int value) {
        char digits[16];
        text_.append(digits, std::to_chars(digits, digits + sizeof digits, value).ptr);
        return *this;
    }
    // A JSON string of base64 (no escaping needed), encoded in place.
    AnswerText& base64_string(std::string_view bytes) {
        const std::size_t length = base64_length(bytes.size());
        const std::size_t at = text_.size();
        text_.resize(at + length + 2);
        text_[at] = '"';
        base64_encode_into(bytes, text_.data() + at + 1);
        text_[at + length + 1] = '"';
        return *this;
    }
    std::string take() && { return std::move(text_); }

private:
    std::string text_;
};

void write_status(AnswerText& out, const Decision& d) {
    out.raw(R"(,"status":{"metadata":{},"status":"Failure","message":)").string(d.message).raw(R"(,"reason":)").string(d.reason);
    if (!d.causes.empty()) {
        out.raw(R"(,"details":{)");
        // Go's StatusDetails omits empty fields.
        const char* separator = "";
        const auto field = [&](std::string_view key, std::string_view value) {
            if (value.empty()) return;
            out.raw(separator).raw(key).string(value);
            separator = ",";
        };
        field(R"("name":)", d.details_name);
        field(R"("group":)", d.details_group);
        field(R"("kind":)", d.details_kind);
        out.raw(separator).raw(R"("causes":[)");
        separator = "";
        for (const auto& cause : d.causes) {
            out.raw(separator).raw(R"({"reason":)").string(to_string(cause.type));
            out.raw(R"(,"message":)").string(cause.body).raw(R"(,"field":)").string(cause.field).raw("}");
            separator = ",";
        }
        out.raw("]}");
    }
    out.raw(R"(,"code":)").integer(d.code).raw("}");
}

}  // namespace

std::string write_review(std::string_view api_version, std::string_view uid, const Decision& d) {
    // Room for the whole answer up front: the buffer would otherwise grow by
    // halves, a reallocation and a copy each time.
    std::size_t estimate = 512 + uid.size() + d.message.size() + base64_length(d.patch.size());
    for (const auto& warning : d.warnings) estimate += warning.size() + 8;
    for (const auto& cause : d.causes) estimate += cause.field.size() + cause.body.size() + 64;
    AnswerText out(estimate);
    out.raw(R"({"apiVersion":)").string(api_version).raw(R"(,"kind":"AdmissionReview","response":{"uid":)").string(uid);
    out.raw(d.allowed ? R"(,"allowed":true)" : R"(,"allowed":false)");
    if (!d.allowed) write_status(out, d);
    if (!d.patch.empty()) out.raw(R"(,"patch":)").base64_string(d.patch).raw(R"(,"patchType":"JSONPatch")");
    if (const std::string rules = d.rule_annotation(); !rules.empty()) {
        // The apiserver records them as "<webhook name>/rule" and "<webhook name>/enforcement".
        out.raw(R"(,"auditAnnotations":{"rule":)").string(rules);
        if (d.softened) out.raw(R"(,"enforcement":)").string(to_string(*d.softened));
        out.raw("}");
    }
    if (!d.warnings.empty()) {
        // The apiserver drops warnings with control characters and cuts long ones.
        const char* separator = R"(,"warnings":[)";
        for (const auto& warning : d.warnings) {
            out.raw(separator).string(warning_line(warning));
            separator = ",";
        }
        out.raw("]");
    }
    out.raw("}}");
    return std::move(out).take();
}

}  // namespace miw::json
