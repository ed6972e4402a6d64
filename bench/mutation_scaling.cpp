// Prints the cost of answering a /mutate review as the Pod grows, to show
// that it stays linear in the size of the object (no copy of the object per
// patch operation). A measurement, not a test: it prints and never fails.
//
//   build/bench/mutation_scaling [ROUNDS]
#include "model_image_webhook/admission_review.hpp"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>

namespace {

// An opted-in vLLM Pod with `env_count` variables, one in eight of them HF_*.
std::string pod_review(int env_count) {
    std::string env;
    for (int i = 0; i < env_count; ++i) {
        if (i) env += ',';
        env += "{\"name\":\"" + std::string(i % 8 == 0 ? "HF_VAR_" : "APP_SETTING_") + std::to_string(i) + "\",\"value\":\"value-" + std::to_string(i) +
               "-xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\"}";
    }
    return R"({"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"uid":"bench","kind":{"group":"","version":"v1","kind":"Pod"},)"
           R"("operation":"CREATE","namespace":"gpustack","object":{"apiVersion":"v1","kind":"Pod","metadata":{"name":"qwen","labels":)"
           R"({"gpustack.ai/model-delivery":"image"},"annotations":{"gpustack.ai/model-image":"registry.example.com/team/qwen@sha256:)"
           R"(9372c470eeadd5ecd9c3c74c2b3cb633f8e2f2fad799250a0f70d652b6b825e4"}},"spec":{"volumes":[{"name":"hf","emptyDir":{}}],)"
           R"("containers":[{"name":"vllm","image":"vllm/vllm-openai:v0.6.3","args":["--revision","main"],"env":[)" +
           env + R"(],"volumeMounts":[{"name":"hf","mountPath":"/root/.cache/huggingface"}]}]}}}})";
}

}  // namespace

int main(int argc, char** argv) {
    const int rounds = argc > 1 ? std::atoi(argv[1]) : 20;
    miw::ReviewContext context;
    context.endpoint = miw::Endpoint::mutate;
    context.policy.apiserver = miw::ApiserverVersion::from_text("v1.35.0");
    std::printf("%10s %10s %12s %12s %10s\n", "env", "KiB", "patch ops", "ms/review", "us/KiB");
    for (int env_count : {100, 1000, 4000, 16000, 40000}) {
        const std::string body = pod_review(env_count);
        std::size_t ops = 0;
        const auto start = std::chrono::steady_clock::now();
        for (int r = 0; r < rounds; ++r) {
            std::string copy = body;  // review() parses in place
            const miw::ReviewResult result = miw::review(copy, context);
            if (result.outcome != miw::ReviewOutcome::allowed) {
                std::fprintf(stderr, "unexpected answer: %s\n", result.body.c_str());
                return 1;
            }
            ops = 0;
            for (std::size_t at = result.patch.find("\"op\""); at != std::string::npos; at = result.patch.find("\"op\"", at + 1)) ++ops;
        }
        const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count() / rounds;
        const double kib = static_cast<double>(body.size()) / 1024.0;
        std::printf("%10d %10.0f %12zu %12.3f %10.2f\n", env_count, kib, ops, ms, ms * 1000.0 / kib);
    }
    return 0;
}
