// What a container's command line loses so that nothing fetches weights from
// a hub (design.md 1.2, rule 5): the download flags, the hub and proxy
// variables env sets before the command; and what a download step (an init
// container, KServe's storage initializer) is told. Every container, selected
// or not.
#pragma once

#include "argv_plan.hpp"

#include <vector>

namespace miw {

// The download flags removed, spaced or joined; those inside a shell string,
// and the hub or proxy variables it sets, warned about. Sorts the removals.
void plan_download_flags(const std::vector<Word>& words, const ContainerView& c, ArgvEdits& edits);

// env's NAME=VALUE words before the command set its variables as the
// container's env does: a download variable set so is removed, as its entry
// in env would be. (With no command, the words are the image entrypoint's.)
// True when one is.
bool plan_launcher_assignments(const std::vector<Word>& words, const ContainerView& c, ArgvEdits& edits);

// A download step is not edited (it may fetch what the image lacks, a
// tokenizer or a dataset), but the weights it fetches are the image's, and
// where it set a token or a proxy, it now runs without them.
void plan_download_step(const std::vector<Word>& words, const ContainerView& c, bool loses_assignments, ArgvEdits& edits);

}  // namespace miw
