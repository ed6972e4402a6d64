// NVIDIA NIM: its images (nvcr.io/nim/<publisher>/<model>, and the
// model-free nvcr.io/nim/nvidia/llm-nim) start the server with the args.
#include "engine.hpp"

#include <string>

namespace miw {

extern constinit const EngineFamily kNim;

namespace {

Invocation nim_image(std::string_view, std::string_view repository) {
    if (repository.rfind("nvcr.io/nim/", 0) == 0) return found(kNim, 0);
    return {};
}

// NVIDIA NIM loads its model from its positional argument, else from
// NIM_MODEL_PATH (NIM_MODEL_NAME, a path or URI, in the 1.x multi-LLM
// images), else the model its image's manifest names, downloaded from NGC
// into its cache. Nothing is edited: a model-specific image serves only the
// profiles it was built for, which the model image may not hold; a source
// other than the mount is warned about, with what to write for a model-free
// image.
void plan_nim(const EngineCall& call) {
    const std::vector<Word>& words = call.words;
    const Invocation& run = call.run;
    const ContainerView& c = call.container;
    ArgvEdits& edits = call.edits;
    const std::string mount(kModelMountPath);
    const auto said = [&](std::string_view source, std::string_view value, std::string_view advice) {
        add_warning(edits.warnings, who(c).say(source).say(" ").quote(value).say(" is where NVIDIA NIM loads the model from, not the model image; ").say(advice));
    };
    const auto variable_advice = [&](std::string_view name) { return "set " + std::string(name) + "=" + mount; };
    if (is_value_word(words, run.after)) {
        if (!names_mount(words[run.after].text())) said("the model argument", words[run.after].text(), "pass " + mount + " instead");
        return;
    }
    if (const EnvVarView* path = last_definition(c, "NIM_MODEL_PATH")) {
        if (!path->has_string_value) {
            add_warning(edits.warnings, who(c).say("NIM_MODEL_PATH (set from a Secret or ConfigMap) is where NVIDIA NIM loads the model from; ").say(
                                            variable_advice("NIM_MODEL_PATH")));
        } else if (!names_mount(path->value)) {
            said("NIM_MODEL_PATH", path->value, variable_advice("NIM_MODEL_PATH"));
        }
        return;
    }
    // NIM_MODEL_NAME is a location only as a path or a URI; else it names a model.
    if (const EnvVarView* name = last_definition(c, "NIM_MODEL_NAME");
        name != nullptr && name->has_string_value && (is_path(name->value) || name->value.find("://") != std::string_view::npos)) {
        if (!names_mount(name->value)) said("NIM_MODEL_NAME", name->value, variable_advice("NIM_MODEL_NAME"));
        return;
    }
    add_warning(edits.warnings, who(c).say("NVIDIA NIM loads the model its image names from NGC").say(c.has_env_from ? " (or envFrom's NIM_MODEL_PATH)" : "").say(
                                    ", not the model image; use a model-free NIM image with NIM_MODEL_PATH=" + mount));
}

}  // namespace

constinit const EngineFamily kNim{"NVIDIA NIM", nullptr, nullptr, nim_image, {}, plan_nim, false};

}  // namespace miw
