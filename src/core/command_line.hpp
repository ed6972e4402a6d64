// A container's command line as its engine will read it (design.md 1.2):
// the words of command then args, the launchers in front of a program (tini,
// dumb-init, env, trtllm-llmapi-launch) read as getopt reads them, flags and
// their values, and the words of a shell string. Nothing here knows an engine:
// the engines (src/core/engines/) and the download planning read through it.
#pragma once

#include "model_image_webhook/pod_spec.hpp"

#include <cstddef>
#include <initializer_list>
#include <optional>
#include <string_view>
#include <vector>

namespace miw {

// command, then args, as one command line: an engine's words may sit in
// either (command: [vllm], args: [serve, model, ...]).
struct Word {
    bool in_command;
    std::size_t index;
    const ArgView* arg;

    std::string_view text() const { return arg->is_string ? arg->text : std::string_view(); }
};

std::vector<Word> command_line(const ContainerView& c);

inline std::string_view basename(std::string_view path) {
    const std::size_t slash = path.rfind('/');
    return slash == std::string_view::npos ? path : path.substr(slash + 1);
}

inline bool ends_with(std::string_view text, std::string_view suffix) {
    return text.size() >= suffix.size() && text.substr(text.size() - suffix.size()) == suffix;
}

// name: a program's file name, without its directory.
inline bool is_python(std::string_view name) { return name == "python" || name.rfind("python3", 0) == 0; }

// The image's repository, without registry, tag or digest: "vllm/vllm-openai".
std::string_view repository_of(std::string_view image);

constexpr bool shell_word_boundary(char c, bool after) {
    switch (c) {
        case ' ': case '\t': case '\n': case '\r': case '\f': case '\v': case '"': case '\'': case ';': case '&': case '|': return true;
        case '(': return !after;
        case ')': case '=': return after;
        default: return false;
    }
}

// Whether a text holds a character that can stand next to a word in a shell
// string: one without any holds no word but itself.
bool has_shell_boundary(std::string_view text);

// `word` standing as a word inside a longer string, as in sh -c "vllm serve ... --revision x".
bool mentions_in_shell_string(std::string_view text, std::string_view word);

// The first word of the command a command line runs once the launchers it
// starts with have run it (`tini -- vllm serve ...`, `env
// VLLM_LOGGING_LEVEL=DEBUG vllm serve ...`, one launcher behind another
// too): 0 for a command line that starts with no launcher. `assignments`
// takes the indices of env's NAME=VALUE words.
std::size_t past_launchers(const std::vector<Word>& words, std::vector<std::size_t>* assignments = nullptr);

// Where a flag's value is: the word after "--flag", or inside "--flag=value".
struct FlagValue {
    std::size_t word = 0;
    std::string_view flag;
    std::string_view value;
    bool joined = false;  // "--flag=value"
};

// words[i] can be a value (a flag's, or a positional one): a string that is
// there and does not start with '-' ("--model --port": no value). Inlined by
// force: find_flag asks it for each word and flag name, and as a call it cost
// a small mutation's review 0.8 % (bench/instructions.sh).
__attribute__((always_inline)) inline bool is_value_word(const std::vector<Word>& words, std::size_t i) {
    return i < words.size() && words[i].arg->is_string && !words[i].text().empty() && words[i].text().front() != '-';
}

// The first of `names` from words[from] on, spaced or joined by '='.
std::optional<FlagValue> find_flag(const std::vector<Word>& words, std::size_t from, std::initializer_list<std::string_view> names);

// What separates a shell string's words where it quotes none of them.
inline constexpr std::string_view kSpaces = " \t\n\r";

// The runs of text between spaces, tabs and line ends: a shell string's
// words where it quotes none of those.
std::vector<std::string_view> split_on_spaces(std::string_view text);

inline bool is_shell(std::string_view program) { return program == "sh" || program == "bash" || program == "dash" || program == "ash" || program == "zsh"; }

// A shell word without one pair of quotes around it.
std::string_view unquoted(std::string_view word);

}  // namespace miw
