// The only file that includes RapidJSON. Requests are parsed in place,
// iteratively (no recursion on deep input) and with UTF-8 validation; every
// field is type-checked before it is read; responses are written with a
// Writer, which escapes what it must.
#include "model_image_webhook/admission_review.hpp"

#include "model_image_webhook/admission_policy.hpp"
#include "model_image_webhook/text.hpp"

#include <rapidjson/document.h>
#include <rapidjson/error/en.h>
#include <rapidjson/reader.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <new>

namespace miw {

std::string_view to_string(ReviewOutcome outcome) {
    switch (outcome) {
        case ReviewOutcome::allowed: return "allowed";
        case ReviewOutcome::denied: return "denied";
        case ReviewOutcome::bad_request: return "bad-request";
        case ReviewOutcome::unreadable: return "unreadable";
        case ReviewOutcome::internal_error: return "internal-error";
    }
    return "internal-error";
}

namespace {

using rapidjson::Document;
using rapidjson::SizeType;
using rapidjson::Value;
using JsonWriter = rapidjson::Writer<rapidjson::StringBuffer>;

constexpr std::string_view kReviewApiVersion = "admission.k8s.io/v1";
constexpr unsigned kParseFlags = rapidjson::kParseInsituFlag | rapidjson::kParseIterativeFlag | rapidjson::kParseValidateEncodingFlag;

// Builds the Document from SAX events, refusing nesting past kMaxJsonDepth
// so that nothing that walks the tree later can run out of stack.
class DepthLimitedBuilder {
public:
    explicit DepthLimitedBuilder(Document& doc) : doc_(doc) {}

    bool Null() { return doc_.Null(); }
    bool Bool(bool b) { return doc_.Bool(b); }
    bool Int(int i) { return doc_.Int(i); }
    bool Uint(unsigned i) { return doc_.Uint(i); }
    bool Int64(int64_t i) { return doc_.Int64(i); }
    bool Uint64(uint64_t i) { return doc_.Uint64(i); }
    bool Double(double d) { return doc_.Double(d); }
    bool RawNumber(const char* str, SizeType length, bool copy) { return doc_.RawNumber(str, length, copy); }
    bool String(const char* str, SizeType length, bool copy) { return doc_.String(str, length, copy); }
    bool Key(const char* str, SizeType length, bool copy) { return doc_.Key(str, length, copy); }
    bool StartObject() { return enter() && doc_.StartObject(); }
    bool EndObject(SizeType members) { --depth_; return doc_.EndObject(members); }
    bool StartArray() { return enter() && doc_.StartArray(); }
    bool EndArray(SizeType elements) { --depth_; return doc_.EndArray(elements); }

    bool too_deep() const { return too_deep_; }

private:
    bool enter() {
        if (++depth_ <= kMaxJsonDepth) return true;
        too_deep_ = true;
        return false;
    }

    Document& doc_;
    unsigned depth_ = 0;
    bool too_deep_ = false;
};

std::string_view view(const Value& v) { return {v.GetString(), v.GetStringLength()}; }

// The last member of that name, as Go's decoder keeps the last of duplicate
// keys; nullptr when obj is not an object or has none.
const Value* member(const Value* obj, std::string_view name) {
    if (obj == nullptr || !obj->IsObject()) return nullptr;
    const Value* found = nullptr;
    for (auto it = obj->MemberBegin(); it != obj->MemberEnd(); ++it) {
        if (view(it->name) == name) found = &it->value;
    }
    return found;
}

JsonType type_of(const Value* v) {
    if (v == nullptr) return JsonType::absent;
    switch (v->GetType()) {
        case rapidjson::kNullType: return JsonType::null;
        case rapidjson::kFalseType:
        case rapidjson::kTrueType: return JsonType::boolean;
        case rapidjson::kObjectType: return JsonType::object;
        case rapidjson::kArrayType: return JsonType::array;
        case rapidjson::kStringType: return JsonType::string;
        case rapidjson::kNumberType: return JsonType::number;
    }
    return JsonType::null;
}

// Absent, null, [] and "" all mean "no patterns", as they do to the operator.
bool holds_something(const Value* v) {
    if (v == nullptr || v->IsNull()) return false;
    if (v->IsArray()) return !v->Empty();
    if (v->IsString()) return v->GetStringLength() != 0;
    return true;
}

bool same_json(const Value* a, const Value* b) {
    if (a == nullptr || b == nullptr) return a == b;
    return *a == *b;
}

// A problem with the request itself, told in one line.
struct RequestError {
    std::string message;
};

// Reads an optional string member; an error when it holds anything else.
std::optional<RequestError> optional_string(const Value* obj, std::string_view name, std::string_view path, std::string_view& out) {
    const Value* v = member(obj, name);
    if (v == nullptr || v->IsNull()) return std::nullopt;
    if (!v->IsString()) return RequestError{std::string(path) + " must be a string, not " + std::string(to_string(type_of(v)))};
    out = view(*v);
    return std::nullopt;
}

std::optional<RequestError> read_kind(const Value* request, GroupVersionKind& kind) {
    const Value* k = member(request, "kind");
    if (k == nullptr || !k->IsObject()) return RequestError{"request.kind must be an object with group, version and kind"};
    if (auto e = optional_string(k, "group", "request.kind.group", kind.group)) return e;
    if (auto e = optional_string(k, "version", "request.kind.version", kind.version)) return e;
    if (auto e = optional_string(k, "kind", "request.kind.kind", kind.kind)) return e;
    if (kind.kind.empty()) return RequestError{"request.kind.kind is missing or empty"};
    return std::nullopt;
}

ModelArtifactView read_model_artifact(const Value* object, const Value* old_object) {
    ModelArtifactView view;
    const Value* spec = member(object, "spec");
    view.spec = type_of(spec);
    const Value* source = member(spec, "source");
    view.source = type_of(source);
    for (std::string_view name : kSourceMembers) {
        const Value* m = member(source, name);
        if (m != nullptr && !m->IsNull()) view.sources_present.push_back(name);
    }
    const Value* image = member(source, "image");
    view.image = type_of(image);
    const Value* reference = member(image, "reference");
    view.reference = type_of(reference);
    if (reference != nullptr && reference->IsString()) view.reference_value = miw::view(*reference);
    view.allow_patterns_set = holds_something(member(spec, "allowPatterns"));
    view.ignore_patterns_set = holds_something(member(spec, "ignorePatterns"));
    if (old_object != nullptr) view.spec_unchanged = same_json(spec, member(old_object, "spec"));
    return view;
}

// Fills req from the request object; the envelope is already known good.
std::optional<RequestError> read_request(const Value* request, Endpoint endpoint, AdmissionRequest& req) {
    const Value* uid = member(request, "uid");
    req.uid = view(*uid);
    if (auto e = read_kind(request, req.kind)) return e;

    const Value* op = member(request, "operation");
    if (op == nullptr || !op->IsString()) return RequestError{"request.operation must be a string: CREATE, UPDATE, DELETE or CONNECT"};
    const auto operation = parse_operation(view(*op));
    if (!operation) return RequestError{"request.operation " + quote_value(view(*op), 64) + " is not one of CREATE, UPDATE, DELETE, CONNECT"};
    req.operation = *operation;

    if (auto e = optional_string(request, "name", "request.name", req.name)) return e;
    if (auto e = optional_string(request, "namespace", "request.namespace", req.namespace_name)) return e;
    if (auto e = optional_string(request, "subResource", "request.subResource", req.sub_resource)) return e;
    const Value* dry_run = member(request, "dryRun");
    if (dry_run != nullptr && !dry_run->IsNull() && !dry_run->IsBool()) return RequestError{"request.dryRun must be a boolean"};
    req.dry_run = dry_run != nullptr && dry_run->IsTrue();

    const Value* object = member(request, "object");
    const Value* old_object = member(request, "oldObject");
    for (const auto& [value, path] : {std::pair{object, "request.object"}, std::pair{old_object, "request.oldObject"}}) {
        if (value != nullptr && !value->IsNull() && !value->IsObject()) {
            return RequestError{std::string(path) + " must be an object, not " + std::string(to_string(type_of(value)))};
        }
    }
    if (req.name.empty()) {
        if (const Value* name = member(member(object, "metadata"), "name"); name != nullptr && name->IsString()) req.name = view(*name);
    }

    const bool writes = req.operation == Operation::create || req.operation == Operation::update;
    if (endpoint == Endpoint::validate && is_model_artifact(req.kind) && writes) {
        if (object == nullptr || !object->IsObject()) return RequestError{"request.object is required for a ModelArtifact " + std::string(to_string(req.operation))};
        if (req.operation == Operation::update && (old_object == nullptr || !old_object->IsObject())) {
            return RequestError{"request.oldObject is required for a ModelArtifact UPDATE"};
        }
        req.model_artifact = read_model_artifact(object, req.operation == Operation::update ? old_object : nullptr);
    }
    return std::nullopt;
}

void write_string(JsonWriter& w, std::string_view s) { w.String(s.data(), static_cast<SizeType>(s.size())); }

void write_key(JsonWriter& w, std::string_view s) { w.Key(s.data(), static_cast<SizeType>(s.size())); }

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

// Field order follows admission/v1 AdmissionResponse, as Go marshals it.
std::string write_review(std::string_view api_version, std::string_view uid, const Decision& d) {
    rapidjson::StringBuffer buffer;
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
    if (const std::string rules = d.rule_annotation(); !rules.empty()) {
        write_key(w, "auditAnnotations");
        w.StartObject();
        write_key(w, "rule");
        write_string(w, rules);
        w.EndObject();
    }
    if (!d.warnings.empty()) {
        write_key(w, "warnings");
        w.StartArray();
        // The apiserver drops warnings with control characters or over 256 bytes.
        for (const auto& warning : d.warnings) write_string(w, printable_line(warning, 256));
        w.EndArray();
    }
    w.EndObject();
    w.EndObject();
    return std::string(buffer.GetString(), buffer.GetSize());
}

ReviewResult unreadable(std::string message) {
    ReviewResult r;
    r.http_status = 400;
    r.content_type = "text/plain; charset=utf-8";
    r.outcome = ReviewOutcome::unreadable;
    r.error = message;
    r.body = std::move(message) + "\n";
    return r;
}

void summarize(const AdmissionRequest& req, ReviewResult& r) {
    r.uid = req.uid;
    r.group = req.kind.group;
    r.version = req.kind.version;
    r.kind = req.kind.kind;
    r.namespace_name = req.namespace_name;
    r.name = req.name;
    r.operation = to_string(req.operation);
    r.dry_run = req.dry_run;
}

// An answer to a request whose uid is known but whose content is not usable.
ReviewResult review_error(std::string_view api_version, std::string_view uid, Decision d, ReviewOutcome outcome) {
    ReviewResult r;
    r.outcome = outcome;
    r.error = d.message;
    r.uid = uid;
    r.rules = d.rule_annotation();
    r.body = write_review(api_version, uid, d);
    return r;
}

ReviewResult answer(std::string& body, const ReviewContext& context, std::string& uid_seen, std::string& api_version_seen) {
    Document doc;
    DepthLimitedBuilder builder(doc);
    rapidjson::InsituStringStream stream(body.data());
    rapidjson::ParseResult parsed;
    auto generate = [&](Document&) {
        rapidjson::Reader reader;
        parsed = reader.Parse<kParseFlags>(stream, builder);
        return !parsed.IsError();
    };
    doc.Populate(generate);
    if (builder.too_deep()) {
        return unreadable("the request body nests JSON deeper than " + std::to_string(kMaxJsonDepth) + " levels; no Kubernetes object does");
    }
    if (parsed.IsError()) {
        return unreadable(std::string("the request body is not valid JSON: ") + rapidjson::GetParseError_En(parsed.Code()) + " (at byte " +
                          std::to_string(parsed.Offset()) + ")");
    }
    if (stream.Tell() != body.size()) {
        return unreadable("the request body is not valid JSON: a NUL byte at byte " + std::to_string(stream.Tell()));
    }
    if (!doc.IsObject()) return unreadable("the request body must be an AdmissionReview object, not " + std::string(to_string(type_of(&doc))));

    const Value* request = member(&doc, "request");
    if (request == nullptr || !request->IsObject()) return unreadable("the AdmissionReview has no request object");
    const Value* uid = member(request, "uid");
    if (uid == nullptr || !uid->IsString() || uid->GetStringLength() == 0) {
        return unreadable("request.uid is missing, empty or not a string: the answer could not be matched to the request");
    }
    uid_seen = view(*uid);

    // From here on the answer is an AdmissionReview: the apiserver matches
    // it by uid and expects its own apiVersion back.
    const Value* api_version = member(&doc, "apiVersion");
    if (api_version != nullptr && api_version->IsString()) api_version_seen = view(*api_version);
    const std::string_view echo = api_version_seen.empty() ? kReviewApiVersion : std::string_view(api_version_seen);
    const Value* kind = member(&doc, "kind");
    if (kind == nullptr || !kind->IsString() || view(*kind) != "AdmissionReview") {
        return review_error(echo, uid_seen, bad_request("kind must be \"AdmissionReview\"", "malformed-request"), ReviewOutcome::bad_request);
    }
    if (echo != kReviewApiVersion) {
        return review_error(echo, uid_seen,
                            bad_request("apiVersion " + quote_value(echo, 64) + " is not served: this webhook speaks admission.k8s.io/v1; "
                                        "set admissionReviewVersions: [\"v1\"] in the webhook configuration",
                                        "malformed-request"),
                            ReviewOutcome::bad_request);
    }

    AdmissionRequest req;
    if (auto error = read_request(request, context.endpoint, req)) {
        ReviewResult r = review_error(echo, uid_seen, bad_request(error->message, "malformed-request"), ReviewOutcome::bad_request);
        summarize(req, r);
        return r;
    }
    const Decision decision = decide(context.endpoint, req, context.policy);
    ReviewResult r;
    summarize(req, r);
    r.outcome = decision.allowed ? ReviewOutcome::allowed : ReviewOutcome::denied;
    r.rules = decision.rule_annotation();
    r.warnings = decision.warnings;
    r.body = write_review(echo, req.uid, decision);
    return r;
}

}  // namespace

ReviewResult review(std::string& body, const ReviewContext& context) {
    std::string uid;
    std::string api_version;
    try {
        return answer(body, context, uid, api_version);
    } catch (const std::bad_alloc&) {
        // Out of memory on one request must not take the server down with it.
        const char* message = "the webhook ran out of memory answering this request";
        if (uid.empty()) {
            ReviewResult r = unreadable(message);
            r.http_status = 500;
            r.outcome = ReviewOutcome::internal_error;
            return r;
        }
        Decision d;
        d.allowed = false;
        d.code = 500;
        d.reason = "InternalError";
        d.message = message;
        d.rules.push_back("internal-error");
        return review_error(api_version.empty() ? kReviewApiVersion : std::string_view(api_version), uid, d, ReviewOutcome::internal_error);
    }
}

}  // namespace miw
