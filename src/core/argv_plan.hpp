// What planning the edits of one container's command line shares, between
// the download planning (download_plan.cpp) and the engines (engines/):
// noting a word to remove, a warning about the container, its variables.
#pragma once

#include "command_line.hpp"

#include "model_image_webhook/engine_args.hpp"
#include "model_image_webhook/warning.hpp"

#include <string>
#include <string_view>
#include <vector>

namespace miw {

// Noted as found; sorted and made unique once planning ends (sort_removals),
// so that a command line of many removed flags costs no more than its length.
inline void remove_word(ArgvEdits& edits, const Word& w) { (w.in_command ? edits.command_removed : edits.args_removed).push_back(w.index); }

void sort_removals(ArgvEdits& edits);

// Takes the warning's text (the warning is spent): one copy fewer a warning.
void add_warning(std::vector<std::string>& warnings, Warning& warning);

// "container \"NAME\": ", the start of each warning about one container;
// built only for a warning.
Warning who(const ContainerView& c);

// The variable `name` as the kubelet sets it: its last definition in env; null when there is none.
const EnvVarView* last_definition(const ContainerView& c, std::string_view name);

// A model argument or variable that already names the mount ("/var/lib/gpustack/model/" too).
bool names_mount(std::string_view value);

inline bool is_path(std::string_view value) { return !value.empty() && (value.front() == '/' || value.front() == '.' || value.front() == '~'); }

}  // namespace miw
