// Engines started from a shell (design.md 1.2): a script that passes its
// words on to the engine ("$@"), whose words are then edited as in exec
// form; and the model a shell string starts an engine with, for the warning
// about one that cannot be edited.
#pragma once

#include "engines/engine.hpp"

#include <optional>
#include <string_view>
#include <vector>

namespace miw {

// An engine that a shell script starts with the words after it:
// `bash -c 'pip install x && exec vllm serve "$@"' -- Qwen/Qwen3-8B --port 8000`.
// The shell takes the first word after the script as its $0 and passes the
// rest on where the script says "$@": those words are the engine's command
// line as in exec form, and are edited as such. Only a script whose last
// command is the engine's own words (after an `exec`) and then "$@" is read
// so; one that writes anything else there (the model, a flag, a variable)
// is a shell string, warned about and not edited. A script that ends in
// `exec "$@"` runs the words passed on as a command: the engine is then
// recognised among them, as in exec form.
struct ShellForwarding {
    std::vector<ArgView> own;  // the engine's own words, in the script
    std::vector<Word> words;  // those, then the words "$@" stands for
    Invocation run;  // over `words`: the engine's own words all come before run.after, so no edit falls on them
};

// shell_at: where the program is once launchers have run it (`tini -- bash -c ...`).
std::optional<ShellForwarding> engine_behind_shell(const std::vector<Word>& words, std::size_t shell_at, const ContainerView& c);

// The model a shell string starts the engine with, as the shell would pass
// it in the common forms: the word after `vllm serve` or `sglang serve`, or the value of
// --model / --model-path / --model-id (spaced or joined by '='), one pair of quotes
// around it dropped. Empty when none is written or it is a variable (what it
// holds is not known here).
std::string_view model_in_shell_string(std::string_view text);

}  // namespace miw
