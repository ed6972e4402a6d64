// What a container's command line must lose or change for its engine to read
// the weights from the mount and nothing else (design.md 1.2, rules 5 and 5a):
// the download flags go, and a vLLM or SGLang model argument (KServe's
// Hugging Face server's --model_dir, TGI's and TEI's --model-id) becomes the mount path. Exec form only: a command line inside a shell string is warned
// about, never edited.
#pragma once

#include "model_image_webhook/pod_spec.hpp"
#include "model_image_webhook/rule.hpp"

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace miw {

// The flags that make an engine fetch from a hub, removed in both the
// "--flag VALUE" and "--flag=VALUE" forms.
inline constexpr std::string_view kDownloadFlags[] = {"--revision", "--tokenizer-revision", "--code-revision", "--download-dir"};

struct ArgvEdits {
    // Indices to remove from args and command, ascending.
    std::vector<std::size_t> args_removed;
    std::vector<std::size_t> command_removed;
    // One element replaced in place (by its index before the removals).
    struct Replacement {
        bool in_command = false;
        std::size_t index = 0;
        std::string value;
    };
    std::vector<Replacement> replacements;
    // Appended to args after the removals ("--served-model-name", the old model).
    std::vector<std::string> appended_args;
    std::vector<std::string> warnings;  // each names the container

    bool empty() const { return args_removed.empty() && command_removed.empty() && replacements.empty() && appended_args.empty(); }
};

// The edits for one container. `selected`: it gets the mount, so its engine
// is pointed at it; every container loses its download flags.
ArgvEdits plan_argv_edits(const ContainerView& container, bool selected);

}  // namespace miw
