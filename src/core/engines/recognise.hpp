// Which engine a command line, or an image's entrypoint, starts: each
// family of the table asked in turn (engine.hpp), Python's own options read
// once for all the families that are Python modules.
#pragma once

#include "engine.hpp"

#include <string_view>
#include <vector>

namespace miw {

// The engine a command line starts with its program, the word at `at`: its
// first, or the first after the launchers before it (past_launchers).
Invocation recognise_program(const std::vector<Word>& words, std::size_t at);

// The engine a container with no `command` runs: its image's entrypoint.
Invocation recognise_image(std::string_view image);

// A shell string that starts an engine: whitespace inside, one of the
// families' shell words among it, and no mention of the mount.
bool runs_engine_in_shell_string(std::string_view text);

}  // namespace miw
