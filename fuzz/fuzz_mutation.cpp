// Any JSON as the spec of an opted-in Pod: every patch the webhook produces
// applies cleanly to the Pod it was made for, and a second pass over the
// patched Pod produces no patch; whichever reader parses it, the answer is
// the same; every warning fits what the apiserver passes on, a denial's
// message under warn enforcement too.
#include "model_image_webhook/admission_review.hpp"
#include "model_image_webhook/manifest.hpp"

#include "warnings_fit.hpp"

#include <cstdint>
#include <cstdlib>
#include <string>

namespace {

const std::string kMetadata =
    R"("metadata":{"name":"p","labels":{"gpustack.ai/model-delivery":"image"},"annotations":{"gpustack.ai/model-image":)"
    R"("r.io/q@sha256:9372c470eeadd5ecd9c3c74c2b3cb633f8e2f2fad799250a0f70d652b6b825e4"}})";

std::string pod_with_spec(const std::string& spec) { return R"({"apiVersion":"v1","kind":"Pod",)" + kMetadata + R"(,"spec":)" + spec + "}"; }

miw::ReviewResult mutate(const std::string& pod, miw::Enforcement enforcement = miw::Enforcement::deny) {
    const std::string body = R"({"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"uid":"f","kind":{"group":"","version":"v1","kind":"Pod"},)"
                             R"("operation":"CREATE","object":)" + pod + "}}";
    miw::ReviewContext context;
    context.endpoint = miw::Endpoint::mutate;
    context.policy.apiserver = miw::ApiserverVersion::from_text("v1.35.0");
    context.enforcement = enforcement;
    std::string compact_body = body, reference_body = body;
    miw::ReviewResult r = miw::review(compact_body, context);
    // The compact reader must answer as RapidJSON alone does, to the byte.
    context.json_reader = miw::JsonReader::rapidjson_only;
    const miw::ReviewResult reference = miw::review(reference_body, context);
    if (r.body != reference.body || r.outcome != reference.outcome || r.error != reference.error) std::abort();
    if (!miw::fuzz::warnings_fit(r.warnings)) std::abort();
    return r;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string pod = pod_with_spec(std::string(reinterpret_cast<const char*>(data), size));
    const miw::ReviewResult first = mutate(pod);
    if (first.outcome == miw::ReviewOutcome::denied) mutate(pod, miw::Enforcement::warn);
    if (first.patch.empty()) return 0;
    // A spec that closes the Pod early ({...}}, "x": ...) still makes a review
    // that is JSON, the rest read as members of the request, but a Pod text
    // that is not one document: there is no Pod of its own to patch.
    if (!miw::apply_json_patch(pod, "[]")) return 0;
    const miw::Result<std::string> applied = miw::apply_json_patch(pod, first.patch);
    if (!applied) std::abort();  // a patch that does not apply
    std::string patched = *applied;
    const miw::ReviewResult second = mutate(patched);
    if (second.outcome != miw::ReviewOutcome::allowed || !second.patch.empty()) std::abort();  // not idempotent
    return 0;
}
