#include "model_path.hpp"

#include "model_image_webhook/download_env.hpp"

namespace miw {

void warn_no_model(const EngineCall& call, std::string_view advice, bool config_names_it) {
    const std::vector<Word>& words = call.words;
    const Invocation& run = call.run;
    const ContainerView& c = call.container;
    ArgvEdits& edits = call.edits;
    // Behind a shell script, the word after the script is the shell's $0, not
    // one of "$@": a model written there is not passed on.
    Warning said = who(c).say(run.forwarded ? "no model in the words after the script's $0: " : "no model on the command line: ");
    if (const auto config = config_names_it ? find_flag(words, run.after, {"--config"}) : std::nullopt) {
        said.say("the engine loads the one --config ").quote(config->value).say(" names; pass " + std::string(kModelMountPath) + " as the model");
    } else {
        said.say(advice);
    }
    add_warning(edits.warnings, said);
}

void plan_model_path(const EngineCall& call, std::initializer_list<std::string_view> flags, std::string_view no_model_advice) {
    const std::vector<Word>& words = call.words;
    const Invocation& run = call.run;
    const ContainerView& c = call.container;
    ArgvEdits& edits = call.edits;
    std::optional<FlagValue> model;
    if (run.positional_model && is_value_word(words, run.after)) {
        model = FlagValue{run.after, {}, words[run.after].text(), false};
    } else {
        model = find_flag(words, run.after, flags);
    }
    if (model && !names_mount(model->value)) {
        const Word& at = words[model->word];
        edits.replacements.push_back({at.in_command, at.index, model->joined ? std::string(model->flag) + "=" + std::string(kModelMountPath) : std::string(kModelMountPath)});
        const bool named = find_flag(words, 0, {"--served-model-name"}).has_value();
        const std::string served = served_name(model->value, c);
        if (!named) edits.appended_args = {"--served-model-name", served};
        Warning said = who(c).say("the model argument ").quote(model->value).say(" now reads ").say(kModelMountPath);
        if (named) said.say("; clients keep the --served-model-name already given");
        else said.say("; --served-model-name ").quote(served).say(" is added so clients keep calling it by that name");
        add_warning(edits.warnings, said);
    }
    if (!model) warn_no_model(call, no_model_advice);
}

std::string served_name(std::string_view model, const ContainerView& c) {
    if (model.size() > 3 && model.substr(0, 2) == "$(" && model.back() == ')') {
        const std::string_view name = model.substr(2, model.size() - 3);
        if (is_download_env(name)) {
            const EnvVarView* defined = last_definition(c, name);
            if (defined != nullptr && defined->has_string_value) return std::string(defined->value);
        }
    }
    return std::string(model);
}

}  // namespace miw
