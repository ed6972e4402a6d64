// llama.cpp's server: `llama-server`, and the server tags of its images
// (server, server-cuda, server-vulkan, ...; the others run other tools).
#include "engine.hpp"

#include <string>

namespace miw {

extern constinit const EngineFamily kLlamaCpp;

namespace {

Invocation llama_program(const std::vector<Word>& words, std::size_t at, std::string_view program) {
    if (program == "llama-server") return found(kLlamaCpp, std::min(at + 1, words.size()));
    return {};
}

Invocation llama_image(std::string_view image, std::string_view repository) {
    if (basename(repository) != "llama.cpp") return {};
    const std::string_view named = image.substr(0, image.find('@'));
    if (named.size() > repository.size() && named.substr(repository.size() + 1).rfind("server", 0) == 0) return found(kLlamaCpp, 0);
    return {};
}

// llama.cpp's server loads one GGUF file (-m), or downloads one from the hub
// (-hf) or a URL (-mu), each also taken from its LLAMA_ARG_ variable. The
// mount is a directory and which of its files to load is not known here, so
// nothing is edited: a model from anywhere but a file under the mount is
// warned about, with what to write. Its other flags name files, not hub
// repositories.
void plan_llama_cpp(const EngineCall& call) {
    const std::vector<Word>& words = call.words;
    const Invocation& run = call.run;
    const ContainerView& c = call.container;
    ArgvEdits& edits = call.edits;
    const std::string advice = "; pass -m with the GGUF file's path under " + std::string(kModelMountPath);
    // value: null for a variable set from a Secret or ConfigMap.
    const auto said = [&](std::string_view source, const std::string_view* value, std::string_view what) {
        Warning said = who(c).bare(source).say(" ");
        if (value != nullptr) said.quote(*value, 40);
        else said.say("(set from a Secret or ConfigMap)");
        add_warning(edits.warnings, said.say(" ").say(what).say(advice));
    };
    const auto value_of = [](const EnvVarView& e) { return e.has_string_value ? &e.value : nullptr; };
    // A download wins over -m: llama.cpp fetches the file to that path.
    if (const auto download = find_flag(words, run.after, {"-hf", "-hfr", "--hf-repo", "-mu", "--model-url", "-dr", "--docker-repo"})) {
        said(download->flag, &download->value, "makes llama.cpp download the model");
        return;
    }
    for (std::string_view name : {std::string_view("LLAMA_ARG_HF_REPO"), std::string_view("LLAMA_ARG_MODEL_URL")}) {
        if (const EnvVarView* e = last_definition(c, name)) {
            said(name, value_of(*e), "makes llama.cpp download the model");
            return;
        }
    }
    const auto under_mount = [](std::string_view path) {
        return path.size() > kModelMountPath.size() + 1 && path.substr(0, kModelMountPath.size()) == kModelMountPath && path[kModelMountPath.size()] == '/';
    };
    if (const auto model = find_flag(words, run.after, {"-m", "--model"})) {
        if (!under_mount(model->value)) said(model->flag, &model->value, "is not a file of the model image");
        return;
    }
    if (const EnvVarView* e = last_definition(c, "LLAMA_ARG_MODEL")) {
        if (!e->has_string_value || !under_mount(e->value)) {
            said("LLAMA_ARG_MODEL", value_of(*e), "is not a file of the model image");
        }
        return;
    }
    add_warning(edits.warnings, who(c).say("no model on the command line: llama.cpp will not find one").say(advice));
}

}  // namespace

constinit const EngineFamily kLlamaCpp{"llama.cpp", llama_program, nullptr, llama_image, {}, plan_llama_cpp, false};

}  // namespace miw
