// KServe's Hugging Face server: `python -m huggingfaceserver` and its image.
// KServe's Hugging Face server loads --model_id from the hub when it is
// given, else --model_dir (by default /mnt/models, where KServe's storage
// initializer downloads the InferenceService's storageUri): the id and the
// revisions it would be fetched at go, and the directory becomes the mount.
// Clients call the model by --model_name, which stays.
#include "engine.hpp"

#include <optional>
#include <string>

namespace miw {

extern constinit const EngineFamily kKserveHuggingface;

namespace {

Invocation kserve_module(std::string_view module, std::size_t after) {
    if (module == "huggingfaceserver") return found(kKserveHuggingface, after);
    return {};
}

// The image runs `python3 -m huggingfaceserver` with the args.
Invocation kserve_image(std::string_view, std::string_view repository) {
    if (ends_with(repository, "huggingfaceserver")) return found(kKserveHuggingface, 0);
    return {};
}

void plan_kserve(const EngineCall& call) {
    const std::vector<Word>& words = call.words;
    const Invocation& run = call.run;
    const ContainerView& c = call.container;
    ArgvEdits& edits = call.edits;
    std::optional<FlagValue> id;
    std::size_t from = run.after;
    while (const auto flag = find_flag(words, from, {"--model_id", "--model_revision", "--tokenizer_revision"})) {
        from = flag->word + 1;
        if (flag->flag == "--model_id") id = flag;  // the last one given, as argparse takes it
        remove_word(edits, words[flag->word]);
        if (!flag->joined) remove_word(edits, words[flag->word - 1]);
    }
    const std::string mount(kModelMountPath);
    std::optional<FlagValue> dir;
    from = run.after;
    while (const auto flag = find_flag(words, from, {"--model_dir"})) {
        from = flag->word + 1;
        dir = flag;  // the last one given
    }
    const bool is_mount = dir && names_mount(dir->value);
    if (!dir) {
        edits.appended_args = {"--model_dir=" + mount};
    } else if (!is_mount) {
        const Word& at = words[dir->word];
        edits.replacements.push_back({at.in_command, at.index, dir->joined ? "--model_dir=" + mount : mount});
    } else if (!id) {
        return;  // already the mount
    }
    Warning said = who(c);
    if (id) said.say("--model_id ").quote(id->value, 40).say(" dropped, ");
    said.say(!dir ? "--model_dir " + mount + " added" : (is_mount ? "--model_dir reads " : "--model_dir now reads ") + mount);
    if (!id && dir && !is_mount) said.say(", not ").quote(dir->value, 48);
    said.say(": the server loads the image's weights");
    if (id) said.say(", not the hub's");
    else if (!dir) said.say(", not /mnt/models (where its storage initializer downloads)");
    add_warning(edits.warnings, said);
}

}  // namespace

constinit const EngineFamily kKserveHuggingface{"KServe's Hugging Face server", nullptr, kserve_module, kserve_image, {}, plan_kserve, true};

}  // namespace miw
