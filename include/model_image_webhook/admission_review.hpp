// The AdmissionReview codec: one request body in, one response out, through
// the same path for `serve`, `review` and `test`.
#pragma once

#include "model_image_webhook/admission.hpp"
#include "model_image_webhook/enforcement.hpp"
#include "model_image_webhook/artifact_source.hpp"
#include "model_image_webhook/node_source.hpp"
#include "model_image_webhook/result.hpp"
#include "model_image_webhook/signature_check.hpp"

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

namespace miw {

// Objects nested deeper than this are refused before any rule reads them;
// real Kubernetes objects stay far below it.
inline constexpr unsigned kMaxJsonDepth = 1000;

// How a body is parsed. compact_first: by a reader made for what the
// apiserver sends (integers, UTF-8 strings, escapes decoded), RapidJSON only
// for what it declines (a fraction, an escaped surrogate, any error, which
// RapidJSON words). rapidjson_only: every body by RapidJSON, the reference
// the compact reader is checked against (tests, fuzzing). Answers are the same.
enum class JsonReader { compact_first, rapidjson_only };

// The memory a review may take for the JSON it reads, beside its body: the
// server's budget of bytes in flight (--max-body-bytes-in-flight). A review
// takes it in blocks as its document grows past what its thread's arena
// holds, and gives it all back before review() returns; a block refused ends
// the review as busy. A body of small values ("[0,0,0,...]") is read into 16
// times its size, so without the budget one 8 MiB body took the server to 147 MiB.
class ReviewMemory {
public:
    virtual bool reserve(std::size_t bytes) = 0;  // false: nothing taken
    virtual void release(std::size_t bytes) = 0;
    // All the budget holds, with nothing else in flight: a review that needs
    // more than this alone can never be read, and a retry cannot help it.
    virtual std::size_t capacity() const = 0;

protected:
    ~ReviewMemory() = default;
};

struct ReviewContext {
    Endpoint endpoint = Endpoint::validate;
    PolicyConfig policy;
    const NodeSource* nodes = nullptr;  // for the node check; null: no Node is known
    const ArtifactSource* artifacts = nullptr;  // for gpustack.ai/model-artifact; null: none is known
    const RegistrySource* registry = nullptr;  // for --registry-check; null: no digest is looked up
    const SignatureSource* signatures = nullptr;  // for --signature-policy; null: no signature is checked
    JsonReader json_reader = JsonReader::compact_first;
    Enforcement enforcement = Enforcement::deny;  // what a policy denial becomes
    ReviewMemory* memory = nullptr;  // null: no budget (the offline commands)
    // What the request's body already holds of that budget (its Content-Length).
    std::size_t body_bytes_held = 0;
};

enum class ReviewOutcome {
    allowed,
    denied,
    would_deny,  // a policy denial the enforcement mode admitted (warn, audit)
    bad_request,  // a review-shaped answer with status 400: the uid was readable
    unreadable,  // no review could be formed: a plain HTTP 400
    internal_error,
    busy,  // the memory budget could not hold the document now: a plain HTTP 503, to retry
};

std::string_view to_string(ReviewOutcome outcome);

struct ReviewResult {
    int http_status = 200;
    std::string_view content_type = "application/json";  // always a literal
    std::string body;
    ReviewOutcome outcome = ReviewOutcome::allowed;
    std::string error;  // one line, for bad_request, unreadable and internal_error

    // What a log line or a test report says about the request.
    std::string uid;
    std::string group;
    std::string version;
    std::string kind;
    std::string namespace_name;
    std::string name;
    std::string operation;
    bool dry_run = false;
    std::string rules;  // the audit annotation's value
    std::string message;  // status.message of a denial, or of what would have been one
    std::vector<std::string> warnings;  // as the answer carries them, before the wire's cut
    std::size_t softened_warnings = 0;  // the last ones of warnings: the findings of a would_deny under warn
    std::optional<Enforcement> softened;  // the mode that admitted a would_deny
    std::string patch;  // the JSON Patch document sent (base64-encoded) in the answer; empty for none
};

// Parses body in place (it is overwritten) and answers it. The parse needs
// kReviewBodySlack bytes of room after the body; a body read with that much
// spare capacity is never copied.
ReviewResult review(std::string& body, const ReviewContext& context);
inline constexpr std::size_t kReviewBodySlack = 16;

// The arena a thread's reviews build their JSON in, allocated at its first
// review and kept: no allocation for an ordinary object. Its pages are
// touched, and resident, only as far as the largest review has used them;
// JSON beyond it goes in chunks mapped and faulted in page by page each time
// (past glibc's fixed 256 KiB mmap threshold), which cost a 300 KB Pod 13
// page faults and a ninth of its CPU in a 256 KiB arena. A thread that
// reviews requests one after another for the life of the process (the
// server's I/O threads) takes the large one before its first review; any
// other thread (the pool for reviews that wait on Node lookups, the offline
// commands) keeps the small one, so that the memory held stays bounded.
inline constexpr std::size_t kReviewArenaBytes = 256u << 10;
inline constexpr std::size_t kLargeReviewArenaBytes = 2u << 20;  // JSON of objects up to about a megabyte
void set_thread_review_arena(std::size_t bytes);  // before the thread's first review; later calls change nothing
std::size_t thread_review_arena();  // the calling thread's arena size, or the size it will have

}  // namespace miw
