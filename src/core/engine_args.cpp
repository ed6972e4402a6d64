// Where each piece lives: the words of a command line and its launchers
// (command_line.hpp), the download flags and steps (download_plan.hpp), the
// scripts that pass their words on (shell_forwarding.hpp), and each engine
// family's recognition and model argument (engines/, one file a family, one
// row of engines/registry.cpp). This file puts them in order.
#include "model_image_webhook/engine_args.hpp"

#include "download_plan.hpp"
#include "engines/hub_repositories.hpp"
#include "engines/recognise.hpp"
#include "shell_forwarding.hpp"

#include <algorithm>
#include <optional>

namespace miw {

namespace {

void plan_engine(const std::vector<Word>& words, const Invocation& run, const ContainerView& c, ArgvEdits& edits) {
    const EngineCall call{words, run, c, edits};
    run.family->plan(call);
    if (run.family->reads_hub_repositories) warn_hub_repositories(call);
}

// program_at: where the program is once launchers have run it (past_launchers).
Invocation recognise(const std::vector<Word>& words, std::size_t program_at, const ContainerView& c) {
    if (c.command.empty()) return recognise_image(c.image);
    return recognise_program(words, program_at);
}

// Where an engine's program stands after the first word of a command line
// whose own program is none (`mpirun -np 16 trtllm-llmapi-launch
// trtllm-serve ...`, `numactl --interleave=all vllm serve ...`): a program
// that runs the rest of its words, with options not read here; nothing
// where none is. Each word is asked as a program, at a bounded cost each.
std::optional<std::size_t> launched_engine_at(const std::vector<Word>& words, std::size_t from) {
    for (std::size_t i = from; i < words.size(); ++i) {
        if (recognise_program(words, i).family != nullptr) return i;
    }
    return std::nullopt;
}

// An engine an unread launcher starts is not edited: the launcher's options
// are not known, and one of them may be the word an edit would take. What
// the edit would have been says what to warn about.
void warn_launched_engine(const std::vector<Word>& words, std::size_t program_at, const ContainerView& c, ArgvEdits& edits) {
    const std::optional<std::size_t> at = launched_engine_at(words, program_at + 1);
    if (!at) return;
    ArgvEdits would;
    plan_engine(words, recognise_program(words, *at), c, would);
    if (would.empty()) {
        // Nothing to edit (it reads the mount, or only warnings were due,
        // which hold whatever starts it).
        for (std::string& warning : would.warnings) {
            if (std::find(edits.warnings.begin(), edits.warnings.end(), warning) == edits.warnings.end()) edits.warnings.push_back(std::move(warning));
        }
        return;
    }
    std::string_view model;
    if (!would.replacements.empty()) {
        for (const Word& w : words) {
            if (w.in_command == would.replacements[0].in_command && w.index == would.replacements[0].index) model = w.text();
        }
        if (const std::size_t equals = model.find('='); model.rfind("--", 0) == 0 && equals != std::string_view::npos) model = model.substr(equals + 1);
    }
    Warning said = who(c).say("the engine after command[0] (options unknown) is not edited");
    if (!model.empty()) said.say(": it loads ").quote(model).say(", not the image");
    add_warning(edits.warnings, said.say("; make the engine command[0] or pass ").say(kModelMountPath));
}

void plan_model_argument(const std::vector<Word>& words, const ContainerView& c, ArgvEdits& edits) {
    const std::size_t program_at = past_launchers(words);
    if (const auto shell = engine_behind_shell(words, program_at, c)) {
        plan_engine(shell->words, shell->run, c, edits);
        return;
    }
    const Invocation run = recognise(words, program_at, c);
    if (run.family == nullptr) {
        for (const Word& w : words) {
            if (runs_engine_in_shell_string(w.text())) {
                // Where the engine will still read the weights from, when the string says.
                const std::string_view model = model_in_shell_string(w.text());
                Warning said = who(c).say("the model");
                if (!model.empty()) said.say(" ").quote(model, 64);
                const char* const source = model.empty() || !is_path(model) ? "fetches it from the hub" : "reads that path, not the image";
                add_warning(edits.warnings, said.say(" in a shell string is not rewritten, so the engine still ").say(source).say(
                                                  "; run the engine in exec form, or point it at ").say(kModelMountPath));
                return;
            }
        }
        if (!c.command.empty() && program_at < words.size()) warn_launched_engine(words, program_at, c, edits);
        return;
    }
    plan_engine(words, run, c, edits);
}

}  // namespace

ArgvEdits plan_argv_edits(const ContainerView& c, bool selected) {
    ArgvEdits edits;
    std::vector<Word> words = command_line(c);
    const bool loses_assignments = plan_launcher_assignments(words, c, edits);
    plan_download_flags(words, c, edits);  // sorts the removals, these too
    plan_download_step(words, c, loses_assignments, edits);
    if (!selected) return edits;
    // The engine and its model are found on the command line as it will be
    // once the download flags are gone, as a second pass would see it: a
    // "--model" whose value was a download flag keeps no value after it.
    std::erase_if(words, [&](const Word& w) {
        const auto& removed = w.in_command ? edits.command_removed : edits.args_removed;
        return std::binary_search(removed.begin(), removed.end(), w.index);
    });
    plan_model_argument(words, c, edits);
    sort_removals(edits);
    return edits;
}

}  // namespace miw
