#include "shell_forwarding.hpp"

#include "engines/recognise.hpp"

#include <algorithm>
#include <string>

namespace miw {

namespace {

// The index of a word that is no element of command or args.
constexpr std::size_t kInScript = static_cast<std::size_t>(-1);

}  // namespace

std::optional<ShellForwarding> engine_behind_shell(const std::vector<Word>& words, std::size_t shell_at, const ContainerView& c) {
    if (c.command.empty() || shell_at + 3 > words.size() || !is_shell(basename(words[shell_at].text()))) return std::nullopt;
    // The options before the script: clusters of letters after - or + ("-c",
    // "-lc", "-ec", "+x"), one of them a -c; each o or O in a cluster takes
    // the next word as its name ("-o pipefail", "-eo pipefail"); and bash's
    // long options ("--login", "--noprofile").
    const auto letters = [](std::string_view text, bool hyphens) {
        return std::all_of(text.begin(), text.end(), [&](char ch) { return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (hyphens && ch == '-'); });
    };
    std::size_t script_at = shell_at + 1;
    bool script_follows = false;
    while (script_at < words.size()) {
        const std::string_view option = words[script_at].text();
        if (option.size() > 2 && option.rfind("--", 0) == 0 && letters(option.substr(2), true)) {
            ++script_at;
            continue;
        }
        if (option.size() < 2 || (option[0] != '-' && option[0] != '+') || !letters(option.substr(1), false)) break;
        script_follows = script_follows || (option[0] == '-' && option.find('c') != std::string_view::npos);
        script_at += 1 + static_cast<std::size_t>(std::count(option.begin(), option.end(), 'o') + std::count(option.begin(), option.end(), 'O'));
    }
    if (!script_follows || script_at >= words.size()) return std::nullopt;
    // The script's last command: what follows its last separator, once
    // trailing spaces and semicolons are dropped.
    std::string_view script = words[script_at].text();
    script = script.substr(0, script.find_last_not_of(std::string(kSpaces) + ";") + 1);  // npos + 1: nothing left
    const std::size_t separator = script.find_last_of(";&|\n");
    std::vector<std::string_view> last = split_on_spaces(separator == std::string_view::npos ? script : script.substr(separator + 1));
    if (!last.empty() && last.front() == "exec") last.erase(last.begin());
    if (last.empty()) return std::nullopt;
    const std::string_view all = last.back();
    if (all != "\"$@\"" && all != "$@" && all != "\"${@}\"" && all != "${@}") return std::nullopt;
    last.pop_back();
    // Plain words only: nothing the shell would expand, quote or assign.
    for (std::string_view word : last) {
        if (word.find_first_of("\"'$`\\(){}<>*?[]=") != std::string_view::npos) return std::nullopt;
    }
    ShellForwarding out;
    out.own.reserve(last.size());
    for (std::string_view word : last) out.own.push_back(ArgView{true, word});
    out.words.reserve(out.own.size() + words.size());
    for (const ArgView& word : out.own) out.words.push_back({true, kInScript, &word});
    for (std::size_t i = script_at + 2; i < words.size(); ++i) out.words.push_back(words[i]);
    if (out.words.empty()) return std::nullopt;  // `exec "$@"` with nothing passed on
    out.run = recognise_program(out.words, past_launchers(out.words));
    if (out.run.family == nullptr || out.run.after < out.own.size()) return std::nullopt;
    out.run.forwarded = true;
    return std::optional<ShellForwarding>(std::move(out));
}

std::string_view model_in_shell_string(std::string_view text) {
    std::vector<std::string_view> words;
    for (std::string_view word : split_on_spaces(text)) {
        while (!word.empty() && word.back() == ';') word.remove_suffix(1);
        word = unquoted(word);
        if (!word.empty() && word != "\\") words.push_back(word);
    }
    const auto usable = [](std::string_view value) { return value.empty() || value.front() == '-' || value.front() == '$' ? std::string_view() : value; };
    for (std::size_t i = 0; i + 1 < words.size(); ++i) {
        const std::string_view word = words[i];
        const std::string_view program = basename(word);
        if ((program == "vllm" || program == "sglang") && words[i + 1] == "serve" && i + 2 < words.size() && words[i + 2].front() != '-') {
            return usable(words[i + 2]);
        }
        if (program == "trtllm-serve") {
            const std::size_t model = words[i + 1] == "serve" ? i + 2 : i + 1;
            if (model < words.size() && words[model].front() != '-') return usable(words[model]);
        }
        if (word == "--model" || word == "--model-path" || word == "--model-id") return usable(words[i + 1]);
    }
    for (std::string_view word : words) {
        for (std::string_view flag : {std::string_view("--model="), std::string_view("--model-path="), std::string_view("--model-id=")}) {
            if (word.rfind(flag, 0) == 0) return usable(unquoted(word.substr(flag.size())));
        }
    }
    return {};
}

}  // namespace miw
