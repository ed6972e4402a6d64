#include "download_plan.hpp"

#include "model_image_webhook/download_env.hpp"

#include <algorithm>
#include <array>
#include <iterator>

namespace miw {

namespace {

// Which of kDownloadFlags stand as words inside a shell string, one bit each.
// A flag can only stand where "--" starts a word: the text is searched once
// for that, not once for each flag.
unsigned download_flags_in_shell_string(std::string_view text) {
    static_assert(std::size(kDownloadFlags) <= 32);
    unsigned found = 0;
    for (std::size_t at = text.find("--"); at != std::string_view::npos; at = text.find("--", at + 1)) {
        if (at > 0 && !shell_word_boundary(text[at - 1], false)) continue;
        for (std::size_t k = 0; k < std::size(kDownloadFlags); ++k) {
            const std::string_view flag = kDownloadFlags[k];
            const std::size_t end = at + flag.size();
            if (text.compare(at, flag.size(), flag) == 0 && (end == text.size() || shell_word_boundary(text[end], true))) found |= 1u << k;
        }
    }
    return found;
}

// A character of a shell variable's name.
constexpr bool in_variable_name(char ch) { return (ch >= 'A' && ch <= 'Z') || (ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9') || ch == '_'; }

// A shell variable's name: such characters, the first no digit.
bool is_variable_name(std::string_view name) {
    return !name.empty() && !(name[0] >= '0' && name[0] <= '9') && std::all_of(name.begin(), name.end(), in_variable_name);
}

// Whether the NAME=value word whose name starts at `start` of a shell string
// sets NAME: it stands where a shell takes assignments (the start of a
// command: the string's start, after a separator, a keyword or other
// assignments) or after a builtin that sets variables (`export`, `env`,
// `declare -x`...). `echo "HF_TOKEN=x"` only prints it.
bool sets_shell_variable(std::string_view text, std::size_t start) {
    static constexpr std::string_view kSetters[] = {"export", "env", "declare", "typeset", "local", "readonly", "then", "do", "else", "time", "!"};
    constexpr std::size_t kLongestWordRead = 32;  // past the setters and a short assignment: a longer word is an argument
    constexpr int kWordsRead = 4;                  // a setter's options before the assignment, or assignments before it
    std::size_t at = start;
    if (at > 0 && (text[at - 1] == '"' || text[at - 1] == '\'')) --at;
    for (int word = 0; word < kWordsRead; ++word) {
        while (at > 0 && (text[at - 1] == ' ' || text[at - 1] == '\t')) --at;
        if (at == 0) return true;
        const char before = text[at - 1];
        if (before == '\n' || before == ';' || before == '&' || before == '|' || before == '(' || before == '{' || before == '`') return true;
        const std::size_t end = at;
        while (at > 0 && end - at <= kLongestWordRead && text[at - 1] != ' ' && text[at - 1] != '\t' && text[at - 1] != '\n') --at;
        if (end - at > kLongestWordRead) return false;
        const std::string_view previous = text.substr(at, end - at);
        if (std::find(std::begin(kSetters), std::end(kSetters), previous) != std::end(kSetters)) return true;
        const std::size_t equals = previous.find('=');
        const bool assignment = equals != std::string_view::npos && is_variable_name(previous.substr(0, equals));
        // Another assignment, or a setter's option (`declare -x`): the word before decides.
        if (!assignment && previous[0] != '-') return false;
    }
    return false;
}

// The hub or proxy variables a shell string sets (`export HF_TOKEN=...`,
// `HF_HUB_OFFLINE=0 vllm serve ...`): a name that starts a shell word,
// stands before '=' and where a shell takes assignments. The first one
// found, and whether another follows.
struct ShellStringVariables {
    std::string_view first;
    bool more = false;
};

void note_download_variables(std::string_view text, ShellStringVariables& found) {
    // A word, not a script: most such words are a flag with its value
    // ("--port=8000"), passed over by one table lookup a byte.
    static constexpr std::array<bool, 256> kSeparators = [] {
        std::array<bool, 256> table{};
        for (const char ch : std::string_view(" \t\n;&|")) table[static_cast<unsigned char>(ch)] = true;
        return table;
    }();
    if (std::none_of(text.begin(), text.end(), [](char ch) { return kSeparators[static_cast<unsigned char>(ch)]; })) return;
    for (std::size_t equals = text.find('='); equals != std::string_view::npos; equals = text.find('=', equals + 1)) {
        std::size_t start = equals;
        while (start > 0 && in_variable_name(text[start - 1])) --start;  // stops at the '=' before: linear
        const std::string_view name = text.substr(start, equals - start);
        if (!is_variable_name(name)) continue;
        if (start > 0 && !shell_word_boundary(text[start - 1], false)) continue;
        if (!is_download_env(name) || !sets_shell_variable(text, start)) continue;
        if (found.first.empty()) {
            found.first = name;
        } else if (name != found.first) {
            found.more = true;
        }
    }
}

// The hubs' own download commands, as a step that fetches weights writes them
// (an init container, or a script before the server).
constexpr std::string_view kDownloadCommands[] = {"huggingface-cli download", "hf download", "modelscope download"};

// The download command a container's command line runs, in exec form or
// inside a shell string (Python's snapshot_download() as well); empty when
// none.
std::string_view download_command(const std::vector<Word>& words) {
    for (std::size_t i = 0; i < words.size(); ++i) {
        const std::string_view text = words[i].text();
        if (i + 1 < words.size() && words[i + 1].text() == "download") {
            const std::string_view program = basename(text);
            for (std::string_view command : kDownloadCommands) {
                if (command.substr(0, command.find(' ')) == program) return command;
            }
        }
        // Most words are flags and values: one search passes them over.
        if (text.size() <= std::string_view("download").size() || text.find("download") == std::string_view::npos) continue;
        for (std::string_view command : kDownloadCommands) {
            if (mentions_in_shell_string(text, command)) return command;
        }
        if (text.find("snapshot_download(") != std::string_view::npos) return "snapshot_download()";
    }
    return {};
}

// KServe's storage initializer: the init container KServe adds to download
// an InferenceService's storageUri (its first argument) into the model
// directory.
bool is_kserve_storage_initializer(const ContainerView& c) {
    return !c.args.empty() && c.args[0].is_string && ends_with(repository_of(c.image), "storage-initializer");
}

}  // namespace

void plan_download_flags(const std::vector<Word>& words, const ContainerView& c, ArgvEdits& edits) {
    constexpr std::size_t kFlags = std::size(kDownloadFlags);
    // The program itself (command[0]) is never a flag.
    const std::size_t first = c.command.empty() ? 0 : 1;
    ShellStringVariables variables;
    for (std::size_t i = first; i < words.size(); ++i) {
        const std::string_view text = words[i].text();
        // A word that is no flag (none starts without "-") and no shell
        // string (it has no character a shell separates words with) is passed over.
        const bool shell_string = has_shell_boundary(text);
        const bool flag_like = text.size() > 1 && text[0] == '-';
        if (!shell_string && !flag_like) continue;
        // The download flag this word is, alone ("--flag VALUE") or with its value ("--flag=VALUE").
        std::size_t matched = kFlags;
        bool alone = false;
        for (std::size_t k = 0; k < kFlags && flag_like; ++k) {
            const std::string_view flag = kDownloadFlags[k];
            if (text.size() < flag.size() || text.compare(0, flag.size(), flag) != 0) continue;
            if (text.size() == flag.size() || text[flag.size()] == '=') {
                matched = k;
                alone = text.size() == flag.size();
                break;
            }
        }
        // Flags inside a shell string are not removed; those before the one
        // the word is are warned about, in the list's order.
        if (shell_string) {
            const unsigned mentioned = download_flags_in_shell_string(text);
            for (std::size_t k = 0; k < matched && mentioned != 0; ++k) {
                if ((mentioned >> k & 1u) != 0) add_warning(edits.warnings, who(c).say("a ").say(kDownloadFlags[k]).say(" inside a shell string is not removed"));
            }
            note_download_variables(text, variables);
        }
        if (matched == kFlags) continue;
        remove_word(edits, words[i]);
        if (alone && i + 1 < words.size()) remove_word(edits, words[++i]);
    }
    if (!variables.first.empty()) {
        // Named, never its value (a token); at most 64 bytes of the name.
        add_warning(edits.warnings, who(c).bare(variables.first, 64).say(" set inside a shell string is not removed").say(
                                        variables.more ? " (nor the other hub or proxy variables it sets)" : ""));
    }
    sort_removals(edits);
}

bool plan_launcher_assignments(const std::vector<Word>& words, const ContainerView& c, ArgvEdits& edits) {
    if (c.command.empty()) return false;
    std::vector<std::size_t> assignments;
    past_launchers(words, &assignments);
    bool removed = false;
    for (const std::size_t i : assignments) {
        const std::string_view text = words[i].text();
        if (is_download_env(text.substr(0, text.find('=')))) {
            remove_word(edits, words[i]);
            removed = true;
        }
    }
    return removed;
}

void plan_download_step(const std::vector<Word>& words, const ContainerView& c, bool loses_assignments, ArgvEdits& edits) {
    const bool kserve = is_kserve_storage_initializer(c);
    const std::string_view command = kserve ? std::string_view() : download_command(words);
    if (!kserve && command.empty()) return;
    const bool loses_env = loses_assignments || std::any_of(c.env.begin(), c.env.end(), [](const EnvVarView& e) { return is_download_env(e.name); });
    const char* const without = loses_env ? ", now without its hub and proxy variables (a gated or proxied download fails)" : "";
    if (kserve) {
        // KServe writes the step from the InferenceService's storageUri: the
        // advice is to drop that. The URI itself is left out, to keep the
        // advice inside the 256 bytes the apiserver passes on.
        add_warning(edits.warnings, who(c).say("downloads the InferenceService's storageUri").say(without).say("; the model image holds the weights: drop the storageUri"));
        return;
    }
    add_warning(edits.warnings, who(c).bare(command).say(" still fetches from the hub").say(without).say("; the model image holds the weights: drop the step"));
}

}  // namespace miw
