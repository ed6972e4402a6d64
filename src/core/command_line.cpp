#include "command_line.hpp"

#include <algorithm>
#include <array>

namespace miw {

namespace {

// A program that sets its process up and then runs the rest of its words
// as the command, and its options as it reads them (getopt: clusters of
// letters after '-', a letter that takes a value taking the rest of its
// cluster or the next word; long options after "--", a value joined by '='
// or the next word; "--" ends them, as does the first word that is none).
struct Launcher {
    std::string_view program;
    std::string_view letters;  // short options without a value
    std::string_view valued_letters;  // short options that take one
    std::array<std::string_view, 7> long_options;  // without a value (or an optional one, joined by '=')
    std::array<std::string_view, 2> valued_long_options;
    bool assignments;  // NAME=VALUE words before the command set its variables
};

// Init processes that images and Pods put before a server (tini,
// dumb-init), env with the variables it sets, and TensorRT-LLM's launcher,
// which runs its words under MPI. env -S (--split-string) splits a string
// as a shell would: it is read no further.
constexpr Launcher kLaunchers[] = {
    {"tini", "hsvwgl", "pe", {}, {}, false},
    {"dumb-init", "hvVc", "r", {"single-child", "verbose", "version", "help"}, {"rewrite"}, false},
    {"env", "i0v", "uC", {"ignore-environment", "null", "debug", "default-signal", "ignore-signal", "block-signal", "list-signal-handling"},
     {"unset", "chdir"}, true},
    {"trtllm-llmapi-launch", "", "", {}, {}, false},
};

// The word after one launcher's own words (its program at `at`), or `at`
// where they are not read as above (an option it does not have, or none
// after them).
std::size_t past_launcher(const std::vector<Word>& words, std::size_t at, const Launcher& launcher, std::vector<std::size_t>* assignments) {
    const auto among = [](std::string_view name, const auto& names) { return !name.empty() && std::find(names.begin(), names.end(), name) != names.end(); };
    std::size_t i = at + 1;
    for (; i < words.size(); ++i) {
        const std::string_view word = words[i].text();
        if (word == "--") {
            ++i;
            break;
        }
        if (word == "-" && launcher.assignments) continue;  // env's old spelling of -i
        if (word.size() < 2 || word[0] != '-') break;
        if (word[1] == '-') {
            const std::string_view name = word.substr(2, word.find('=') - 2);
            if (among(name, launcher.long_options)) continue;
            if (!among(name, launcher.valued_long_options)) return at;
            if (name.size() + 2 == word.size() && ++i == words.size()) return at;  // "--unset NAME"
            continue;
        }
        for (std::size_t k = 1; k < word.size(); ++k) {
            if (launcher.letters.find(word[k]) != std::string_view::npos) continue;
            if (launcher.valued_letters.find(word[k]) == std::string_view::npos) return at;
            if (k + 1 == word.size() && ++i == words.size()) return at;  // "-u NAME"; "-uNAME" takes the rest
            break;
        }
    }
    if (launcher.assignments) {
        for (; i < words.size() && words[i].text().find('=') != std::string_view::npos; ++i) {
            if (assignments != nullptr) assignments->push_back(i);
        }
    }
    return i < words.size() ? i : at;
}

}  // namespace

std::vector<Word> command_line(const ContainerView& c) {
    std::vector<Word> out;
    out.reserve(c.command.size() + c.args.size());
    for (std::size_t i = 0; i < c.command.size(); ++i) out.push_back({true, i, &c.command[i]});
    for (std::size_t i = 0; i < c.args.size(); ++i) out.push_back({false, i, &c.args[i]});
    return out;
}

// A tag is what follows a ':' in the last path component: only that
// component is scanned (a registry's port is a ':' before a '/').
std::string_view repository_of(std::string_view image) {
    image = image.substr(0, image.find('@'));
    for (std::size_t i = image.size(); i-- > 0 && image[i] != '/';) {
        if (image[i] == ':') return image.substr(0, i);
    }
    return image;
}

// The characters that can stand next to a word in a shell string, before or
// after it: a text without any of them holds no word but itself.
constexpr std::array<bool, 256> kShellBoundaries = [] {
    std::array<bool, 256> table{};
    for (int c = 0; c < 256; ++c) table[c] = shell_word_boundary(static_cast<char>(c), false) || shell_word_boundary(static_cast<char>(c), true);
    return table;
}();

bool has_shell_boundary(std::string_view text) {
    for (char c : text) {
        if (kShellBoundaries[static_cast<unsigned char>(c)]) return true;
    }
    return false;
}

// `word` standing as a word inside a longer string, as in sh -c "vllm serve ... --revision x".
bool mentions_in_shell_string(std::string_view text, std::string_view word) {
    // A word alone or as "--flag=value" is a flag, not a shell string; most words
    // are shorter than the flag and are passed over without a search.
    if (text.size() <= word.size() || (text.compare(0, word.size(), word) == 0 && text[word.size()] == '=')) return false;
    for (std::size_t at = text.find(word); at != std::string_view::npos; at = text.find(word, at + 1)) {
        const std::size_t end = at + word.size();
        const bool before_ok = at == 0 || shell_word_boundary(text[at - 1], false);
        const bool after_ok = end == text.size() || shell_word_boundary(text[end], true);
        if (before_ok && after_ok) return true;
    }
    return false;
}

std::size_t past_launchers(const std::vector<Word>& words, std::vector<std::size_t>* assignments) {
    // Each selected container's command line is asked: its program is told
    // from the launchers by its last byte before any name is compared.
    const auto launcher_of = [](std::string_view program) -> const Launcher* {
        for (const Launcher& l : kLaunchers) {
            if (!program.empty() && program.back() == l.program.back() && basename(program) == l.program) return &l;
        }
        return nullptr;
    };
    std::size_t at = 0;
    while (at < words.size()) {
        const Launcher* launcher = launcher_of(words[at].text());
        if (launcher == nullptr) break;
        const std::size_t next = past_launcher(words, at, *launcher, assignments);
        if (next == at) break;
        at = next;
    }
    return at;
}

std::optional<FlagValue> find_flag(const std::vector<Word>& words, std::size_t from, std::initializer_list<std::string_view> names) {
    for (std::size_t i = from; i < words.size(); ++i) {
        const std::string_view text = words[i].text();
        for (std::string_view name : names) {
            if (text == name && is_value_word(words, i + 1)) {
                return FlagValue{i + 1, name, words[i + 1].text(), false};
            }
            if (text.size() > name.size() && text.rfind(name, 0) == 0 && text[name.size()] == '=') {
                return FlagValue{i, name, text.substr(name.size() + 1), true};
            }
        }
    }
    return std::nullopt;
}

std::vector<std::string_view> split_on_spaces(std::string_view text) {
    std::vector<std::string_view> words;
    for (std::size_t at = text.find_first_not_of(kSpaces); at != std::string_view::npos; at = text.find_first_not_of(kSpaces, at)) {
        const std::size_t end = std::min(text.find_first_of(kSpaces, at), text.size());
        words.push_back(text.substr(at, end - at));
        at = end;
    }
    return words;
}

std::string_view unquoted(std::string_view word) {
    if (word.size() >= 2 && (word.front() == '"' || word.front() == '\'') && word.back() == word.front()) return word.substr(1, word.size() - 2);
    return word;
}

}  // namespace miw
