// Hugging Face's TGI (text-generation-launcher) and TEI
// (text-embeddings-router), started by name or by their images.
// Hugging Face's servers, TGI's launcher and TEI's router, load --model-id,
// else their MODEL_ID variable, else (TGI) bigscience/bloom-560m from the
// hub: the flag becomes the mount, or is added (a flag wins over the
// variable). No served name is added: both serve their one model whatever
// name a request gives, and released versions refuse a flag they do not know.
#include "engine.hpp"

#include <string>

namespace miw {

extern constinit const EngineFamily kTgiTei;

namespace {

// The family's forms.
constexpr unsigned char kTgiForm = 0, kTeiForm = 1;

Invocation tgi_program(const std::vector<Word>& words, std::size_t at, std::string_view program) {
    if (program == "text-generation-launcher") return found(kTgiTei, std::min(at + 1, words.size()), false, kTgiForm);
    if (program == "text-embeddings-router") return found(kTgiTei, std::min(at + 1, words.size()), false, kTeiForm);
    return {};
}

// The images run the launcher and the router with the args: Hugging Face's
// (".../text-generation-inference") and Google Cloud's
// (".../huggingface-text-generation-inference-cu124.2-4.ubuntu2204.py311").
Invocation tgi_image(std::string_view, std::string_view repository) {
    const std::string_view last = basename(repository);
    if (last == "text-generation-inference" || last.rfind("huggingface-text-generation-inference", 0) == 0) return found(kTgiTei, 0, false, kTgiForm);
    if (last == "text-embeddings-inference" || last.rfind("huggingface-text-embeddings-inference", 0) == 0) return found(kTgiTei, 0, false, kTeiForm);
    return {};
}

void plan_tgi(const EngineCall& call) {
    const std::vector<Word>& words = call.words;
    const Invocation& run = call.run;
    const ContainerView& c = call.container;
    ArgvEdits& edits = call.edits;
    const std::string mount(kModelMountPath);
    const char* const server = run.form == kTgiForm ? "TGI" : "TEI";
    if (const auto model = find_flag(words, run.after, {"--model-id"})) {
        if (names_mount(model->value)) return;
        const Word& at = words[model->word];
        edits.replacements.push_back({at.in_command, at.index, model->joined ? "--model-id=" + mount : mount});
        add_warning(edits.warnings, who(c).say("the model argument ").quote(model->value, 48).say(" now reads " + mount + "; ").say(server).say(
                                        " serves it under any name a request gives"));
        return;
    }
    const EnvVarView* variable = last_definition(c, "MODEL_ID");
    if (variable != nullptr && variable->has_string_value && names_mount(variable->value)) return;
    edits.appended_args = {"--model-id=" + mount};
    Warning said = who(c).say("--model-id=" + mount + " added: ").say(server).say(" loads the image's weights");
    if (variable != nullptr && variable->has_string_value) {
        said.say(", not MODEL_ID ").quote(variable->value, 48);
    } else if (variable != nullptr) {
        said.say(", not the model its MODEL_ID names");
    } else if (run.form == kTgiForm) {
        said.say(c.has_env_from ? ", not a MODEL_ID from envFrom or its default model from the hub" : ", not its default model from the hub");
    } else if (c.has_env_from) {
        said.say(", not a MODEL_ID from envFrom");
    }
    add_warning(edits.warnings, said);
}

constexpr std::string_view kShellWords[] = {"text-generation-launcher", "text-embeddings-router"};

}  // namespace

constinit const EngineFamily kTgiTei{"Hugging Face TGI and TEI", tgi_program, nullptr, tgi_image, kShellWords, plan_tgi, true};

}  // namespace miw
