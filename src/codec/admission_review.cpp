// The review flow: one AdmissionReview body in, its answer out. The body is
// parsed once (json_dom), the request's views read (request_views), the
// policy decides, and the answer is written (review_writer).
#include "model_image_webhook/admission_review.hpp"

#include "json_dom.hpp"
#include "request_views.hpp"
#include "review_writer.hpp"

#include "model_image_webhook/admission_policy.hpp"
#include "model_image_webhook/text.hpp"

#include <memory>
#include <new>

namespace miw {

std::string_view to_string(ReviewOutcome outcome) {
    switch (outcome) {
        case ReviewOutcome::allowed: return "allowed";
        case ReviewOutcome::denied: return "denied";
        case ReviewOutcome::would_deny: return "would-deny";
        case ReviewOutcome::bad_request: return "bad-request";
        case ReviewOutcome::unreadable: return "unreadable";
        case ReviewOutcome::internal_error: return "internal-error";
        case ReviewOutcome::busy: return "busy";
    }
    return "internal-error";
}

namespace {

using namespace json;

constexpr std::string_view kReviewApiVersion = "admission.k8s.io/v1";

ReviewResult unreadable(std::string message) {
    ReviewResult r;
    r.http_status = 400;
    r.content_type = "text/plain; charset=utf-8";
    r.outcome = ReviewOutcome::unreadable;
    r.error = message;
    r.body = std::move(message) + "\n";
    return r;
}

// The document needs more memory than the budget holds now: the apiserver's
// call fails and is retried (or fails the request, by the webhook's
// failurePolicy), as when the body itself does not fit.
ReviewResult busy() {
    ReviewResult r = unreadable("the server is reading as many request bodies as it holds at once (--max-body-bytes-in-flight counts the bodies "
                                "and the JSON read from them); retry");
    r.http_status = 503;
    r.outcome = ReviewOutcome::busy;
    return r;
}

// The document needs more memory than the whole budget holds, with nothing
// else in flight: a retry would meet the same refusal, so the answer is 413
// (what was exceeded), not 503.
ReviewResult too_large(const ParseMemory& memory) {
    ReviewResult r = unreadable("the request body's JSON needs more memory than --max-body-bytes-in-flight holds even with no other request in flight (" +
                                std::to_string(memory.capacity()) + " bytes; this body and its values need more than " +
                                std::to_string(memory.needed_at_least()) + "): send a smaller object, or raise --max-body-bytes-in-flight");
    r.http_status = 413;
    return r;
}

// A request's uid as a log line or a report shows it: the client chooses its
// length, and only the answer must carry it whole.
std::string summary_text(std::string_view text) { return cut_with_length(text, 256); }

void summarize(const AdmissionRequest& req, ReviewResult& r) {
    r.uid = summary_text(req.uid);
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
    r.uid = summary_text(uid);
    r.rules = d.rule_annotation();
    r.body = write_review(api_version, uid, d);
    return r;
}

// The calling thread's arena (admission_review.hpp), allocated at its first review.
struct Arena {
    std::size_t bytes = kReviewArenaBytes;
    std::unique_ptr<char[]> memory;

    char* get() {
        if (!memory) memory.reset(new char[bytes]);
        return memory.get();
    }
};
thread_local Arena t_arena;

constexpr std::size_t kParseStackBytes = 16u << 10;

// uid_seen is left pointing at the uid for an answer after a failure: into
// the body where the parse left it in place (no copy of what may be megabytes),
// else into uid_storage.
ReviewResult answer(std::string& body, const ReviewContext& context, std::string_view& uid_seen, std::string& uid_storage, std::string& api_version_seen) {
    // Given back after the DOM is freed: declared before it.
    ParseMemory memory(context.memory, context.body_bytes_held);
    rapidjson::MemoryPoolAllocator<> pool(t_arena.get(), t_arena.bytes, 1u << 20);
    // The parser's work stack starts big enough for a Pod's nesting, not at 1 KiB
    // doubling; its allocator is given, or RapidJSON news one for each Document.
    WorkStackAllocator stack_allocator;
    Document doc(&pool, kParseStackBytes, &stack_allocator);
    if (std::string error = parse_document(body, doc, context.json_reader, UnreadValues::skipped, &memory); !error.empty()) {
        if (memory.never_fits()) return too_large(memory);
        if (memory.refused()) return busy();
        return unreadable("the request body cannot be read: " + error);
    }
    if (!doc.IsObject()) return unreadable("the request body must be an AdmissionReview object, not " + std::string(to_string(type_of(&doc))));

    const Value* request = member(&doc, "request");
    if (request == nullptr || !request->IsObject()) return unreadable("the AdmissionReview has no request object");
    const Value* uid = member(request, "uid");
    if (uid == nullptr || !uid->IsString() || uid->GetStringLength() == 0) {
        return unreadable("request.uid is missing, empty or not a string: the answer could not be matched to the request");
    }
    uid_seen = view(*uid);
    if (uid_seen.data() < body.data() || uid_seen.data() + uid_seen.size() > body.data() + body.size()) {
        uid_storage = uid_seen;
        uid_seen = uid_storage;
    }

    // From here on the answer is an AdmissionReview: the apiserver matches
    // it by uid and expects its own apiVersion back.
    const Value* api_version = member(&doc, "apiVersion");
    if (api_version != nullptr && api_version->IsString()) api_version_seen = view(*api_version);
    const std::string_view echo = api_version_seen.empty() ? kReviewApiVersion : std::string_view(api_version_seen);
    const Value* kind = member(&doc, "kind");
    if (kind == nullptr || !kind->IsString() || view(*kind) != "AdmissionReview") {
        return review_error(echo, uid_seen, bad_request("kind must be \"AdmissionReview\"", kMalformedRequest), ReviewOutcome::bad_request);
    }
    if (echo != kReviewApiVersion) {
        return review_error(echo, uid_seen,
                            bad_request("apiVersion " + quote_value(echo, 64) + " is not served: this webhook speaks admission.k8s.io/v1; "
                                        "set admissionReviewVersions: [\"v1\"] in the webhook configuration",
                                        kMalformedRequest),
                            ReviewOutcome::bad_request);
    }

    AdmissionRequest req;
    if (auto error = read_request(request, context.endpoint, req)) {
        ReviewResult r = review_error(echo, uid_seen, bad_request(error->message, kMalformedRequest), ReviewOutcome::bad_request);
        summarize(req, r);
        return r;
    }
    Decision decision = enforce(decide(req, context.policy, context.nodes, context.artifacts, context.registry, context.signatures), context.enforcement);
    ReviewResult r;
    summarize(req, r);
    r.outcome = decision.softened ? ReviewOutcome::would_deny : decision.allowed ? ReviewOutcome::allowed : ReviewOutcome::denied;
    r.rules = decision.rule_annotation();
    r.body = write_review(echo, req.uid, decision);
    // Written into the answer: what the result keeps of it is moved, not copied.
    r.warnings = std::move(decision.warnings);
    r.softened_warnings = decision.softened_warnings;
    r.softened = decision.softened;
    r.patch = std::move(decision.patch);
    r.message = std::move(decision.message);
    return r;
}

}  // namespace

void set_thread_review_arena(std::size_t bytes) {
    if (!t_arena.memory) t_arena.bytes = bytes;
}

std::size_t thread_review_arena() { return t_arena.bytes; }

ReviewResult review(std::string& body, const ReviewContext& context) {
    std::string_view uid;
    std::string uid_storage;
    std::string api_version;
    try {
        return answer(body, context, uid, uid_storage, api_version);
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
        d.rules.push_back(std::string(kInternalError.id));
        return review_error(api_version.empty() ? kReviewApiVersion : std::string_view(api_version), uid, d, ReviewOutcome::internal_error);
    }
}


}  // namespace miw
