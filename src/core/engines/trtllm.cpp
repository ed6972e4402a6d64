// TensorRT-LLM: `trtllm-serve` (its commands that take the model as their
// argument; with none of them first it runs `serve`), and NVIDIA Dynamo's
// TensorRT-LLM worker, `python -m dynamo.trtllm`, which takes --model or its
// older --model-path.
#include "model_path.hpp"

#include <algorithm>
#include <iterator>
#include <optional>
#include <string>

namespace miw {

extern constinit const EngineFamily kTrtllm;

namespace {

// The family's forms.
constexpr unsigned char kServeForm = 0, kDynamoWorkerForm = 1;

Invocation trtllm_program(const std::vector<Word>& words, std::size_t at, std::string_view program) {
    if (program != "trtllm-serve") return {};
    // The disaggregated commands read their models from a configuration file.
    const std::string_view command = at + 1 < words.size() ? words[at + 1].text() : std::string_view();
    if (command == "serve" || command == "grpc" || command == "mm_embedding_serve") return found(kTrtllm, std::min(at + 2, words.size()), false, kServeForm);
    if (command == "disaggregated" || command == "disaggregated_mpi_worker") return {};
    return found(kTrtllm, std::min(at + 1, words.size()), false, kServeForm);
}

Invocation trtllm_module(std::string_view module, std::size_t after) {
    if (module == "dynamo.trtllm") return found(kTrtllm, after, false, kDynamoWorkerForm);
    return {};
}

// TensorRT-LLM's trtllm-serve takes its model as an argument, which click
// reads wherever it stands among the options: the first word that is neither
// an option nor an option's value. Its boolean options take no value.
std::optional<FlagValue> trtllm_model(const std::vector<Word>& words, std::size_t from) {
    static constexpr std::string_view kBooleanOptions[] = {"--trust_remote_code", "--enable_chunked_prefill", "--fail_fast_on_attention_window_too_large", "--help"};
    for (std::size_t i = from; i < words.size(); ++i) {
        const std::string_view text = words[i].text();
        if (!words[i].arg->is_string) continue;
        if (text.empty() || text.front() != '-') return FlagValue{i, {}, text, false};
        const bool takes_next = text.find('=') == std::string_view::npos && std::find(std::begin(kBooleanOptions), std::end(kBooleanOptions), text) == std::end(kBooleanOptions);
        if (takes_next) ++i;
    }
    return std::nullopt;
}

// trtllm-serve's model argument becomes the mount. No served name can be
// added: releases before --served_model_name refuse an option they do not
// know. Given a directory, TensorRT-LLM names the model by the directory's
// name, so the warning says what clients will see.
void plan_trtllm_serve(const EngineCall& call) {
    const std::vector<Word>& words = call.words;
    const Invocation& run = call.run;
    const ContainerView& c = call.container;
    ArgvEdits& edits = call.edits;
    const auto model = trtllm_model(words, run.after);
    if (!model) {
        // Its model is a required argument, whatever --config holds.
        warn_no_model(call, "TensorRT-LLM will not start; pass " + std::string(kModelMountPath) + " as the model", false);
        return;
    }
    if (names_mount(model->value)) return;
    const Word& at = words[model->word];
    edits.replacements.push_back({at.in_command, at.index, std::string(kModelMountPath)});
    const bool named = find_flag(words, run.after, {"--served_model_name"}).has_value();
    add_warning(edits.warnings, who(c).say("the model argument ").quote(model->value).say(" now reads ").say(kModelMountPath).say(
                                    named ? "; clients keep the --served_model_name already given"
                                          : "; TensorRT-LLM names it \"model\" (the directory's name) to clients unless --served_model_name is given"));
}

void plan_trtllm(const EngineCall& call) {
    if (call.run.form == kServeForm) return plan_trtllm_serve(call);
    plan_model_path(call, {"--model-path", "--model"},
                    "the worker loads DYN_TRTLLM_MODEL or its default model from the hub; pass --model-path " + std::string(kModelMountPath));
}

constexpr std::string_view kShellWords[] = {"trtllm-serve", "dynamo.trtllm"};

}  // namespace

constinit const EngineFamily kTrtllm{"TensorRT-LLM", trtllm_program, trtllm_module, nullptr, kShellWords, plan_trtllm, true};

}  // namespace miw
