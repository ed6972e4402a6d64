// Any bytes as an AdmissionReview body, on both endpoints: always an answer,
// a review-shaped one whenever the status says so, the same answer whichever
// reader parses it, and under warn and audit a denial admitted unchanged
// while everything else is answered as under deny.
#include "model_image_webhook/admission_review.hpp"

#include "warnings_fit.hpp"

#include <cstdint>
#include <cstdlib>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    static miw::StaticNodeSource nodes = [] {
        miw::StaticNodeSource n("fuzz");
        n.add("gpu-a", {"v1.35.0", "containerd://2.1.0"});
        n.add("gpu-b", {"v1.34.0", "containerd://2.0.0"});
        return n;
    }();
    for (miw::Endpoint endpoint : {miw::Endpoint::validate, miw::Endpoint::mutate}) {
        std::string body(reinterpret_cast<const char*>(data), size);
        miw::ReviewContext context;
        context.endpoint = endpoint;
        context.policy.apiserver = miw::ApiserverVersion::from_text("v1.35.0");
        context.nodes = &nodes;
        std::string reference_body = body;
        const miw::ReviewResult r = miw::review(body, context);
        // The compact reader must answer as RapidJSON alone does, to the byte.
        context.json_reader = miw::JsonReader::rapidjson_only;
        const miw::ReviewResult reference = miw::review(reference_body, context);
        if (r.body != reference.body || r.http_status != reference.http_status || r.outcome != reference.outcome || r.error != reference.error) std::abort();
        if (r.body.empty()) std::abort();
        if (r.outcome == miw::ReviewOutcome::unreadable && r.http_status != 400) std::abort();
        if (r.outcome != miw::ReviewOutcome::unreadable && (r.http_status != 200 || r.body.front() != '{')) std::abort();
        if (endpoint == miw::Endpoint::validate && !r.patch.empty()) std::abort();
        if (!miw::fuzz::warnings_fit(r.warnings)) std::abort();

        for (miw::Enforcement mode : {miw::Enforcement::warn, miw::Enforcement::audit}) {
            context.json_reader = miw::JsonReader::compact_first;
            context.enforcement = mode;
            std::string softened_body(reinterpret_cast<const char*>(data), size);
            const miw::ReviewResult s = miw::review(softened_body, context);
            if (!miw::fuzz::warnings_fit(s.warnings)) std::abort();  // a denial's message as warnings too
            if (r.outcome == miw::ReviewOutcome::denied) {
                if (s.outcome != miw::ReviewOutcome::would_deny || !s.patch.empty() || s.rules != r.rules) std::abort();
                if (s.body.find("\"status\":") != std::string::npos) std::abort();  // allowed answers carry no status
                if ((mode == miw::Enforcement::warn) != (s.softened_warnings > 0)) std::abort();
            } else if (s.body != r.body || s.outcome != r.outcome || s.http_status != r.http_status) {
                std::abort();
            }
        }
    }
    return 0;
}
