// vLLM: `vllm serve MODEL`, the OpenAI server module and NVIDIA Dynamo's vLLM
// worker (which take vLLM's own arguments), and the vllm-openai image, whose
// entrypoint is `vllm serve` (its args start with the model). The model
// argument becomes the mount; clients keep calling the model by its old name.
#include "model_path.hpp"

namespace miw {

extern constinit const EngineFamily kVllm;

namespace {

Invocation vllm_program(const std::vector<Word>& words, std::size_t at, std::string_view program) {
    if (program != "vllm" || at + 1 >= words.size() || words[at + 1].text() != "serve") return {};
    return found(kVllm, std::min(at + 2, words.size()), true);
}

Invocation vllm_module(std::string_view module, std::size_t after) {
    if (module == "vllm.entrypoints.openai.api_server" || module == "dynamo.vllm") return found(kVllm, after);
    return {};
}

Invocation vllm_image(std::string_view, std::string_view repository) {
    if (ends_with(repository, "vllm-openai")) return found(kVllm, 0, true);
    return {};
}

void plan_vllm(const EngineCall& call) {
    plan_model_path(call, {"--model"}, "vLLM serves its default model from the hub; pass " + std::string(kModelMountPath) + " as the model");
}

constexpr std::string_view kShellWords[] = {"vllm serve", "vllm.entrypoints.openai.api_server", "dynamo.vllm"};

}  // namespace

constinit const EngineFamily kVllm{"vLLM", vllm_program, vllm_module, vllm_image, kShellWords, plan_vllm, true};

}  // namespace miw
