// SGLang: `sglang serve` (its --model-type first, then the model as its first
// argument or --model-path), the launch_server module and NVIDIA Dynamo's
// SGLang worker. The model argument becomes the mount; clients keep calling
// the model by its old name.
#include "model_path.hpp"

namespace miw {

extern constinit const EngineFamily kSglang;

namespace {

Invocation sglang_program(const std::vector<Word>& words, std::size_t at, std::string_view program) {
    if (program != "sglang" || at + 1 >= words.size() || words[at + 1].text() != "serve") return {};
    // `sglang serve` takes its --model-type before anything else, then the
    // model as its first argument or as --model-path.
    const std::string_view first = at + 2 < words.size() ? words[at + 2].text() : std::string_view();
    const std::size_t own = first == "--model-type" ? 4 : first.rfind("--model-type=", 0) == 0 ? 3 : 2;
    return found(kSglang, std::min(at + own, words.size()), true);
}

Invocation sglang_module(std::string_view module, std::size_t after) {
    if (module == "sglang.launch_server" || module == "dynamo.sglang") return found(kSglang, after);
    return {};
}

void plan_sglang(const EngineCall& call) {
    plan_model_path(call, {"--model-path", "--model"}, "SGLang will not start; pass --model-path " + std::string(kModelMountPath));
}

constexpr std::string_view kShellWords[] = {"sglang serve", "sglang.launch_server", "dynamo.sglang"};

}  // namespace

constinit const EngineFamily kSglang{"SGLang", sglang_program, sglang_module, nullptr, kShellWords, plan_sglang, true};

}  // namespace miw
