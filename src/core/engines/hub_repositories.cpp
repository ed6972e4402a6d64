#include "hub_repositories.hpp"

#include <algorithm>
#include <string>

namespace miw {

namespace {

// The member `key` of a flag's JSON object ({"model": "org/draft", ...}),
// as far as a plain string goes: empty where there is none, it is not a
// string (null: a method with no draft model), or it holds an escape.
std::string_view json_string_member(std::string_view json, std::string_view key) {
    constexpr std::string_view space = " \t\n\r";
    for (std::size_t at = json.find(key); at != std::string_view::npos; at = json.find(key, at + 1)) {
        // The key in quotes ("path" is not inside "base_path"), then a colon
        // (else it was a string value that reads as the key).
        if (at == 0 || json[at - 1] != '"' || at + key.size() >= json.size() || json[at + key.size()] != '"') continue;
        const std::size_t colon = json.find_first_not_of(space, at + key.size() + 1);
        if (colon == std::string_view::npos || json[colon] != ':') continue;
        const std::size_t open = json.find_first_not_of(space, colon + 1);
        if (open == std::string_view::npos || json[open] != '"') return {};
        const std::size_t close = json.find_first_of("\"\\", open + 1);
        if (close == std::string_view::npos || json[close] != '"') return {};
        return json.substr(open + 1, close - open - 1);
    }
    return {};
}

// Each value cut at its commas (TGI's --lora-adapters list).
std::vector<std::string_view> split_commas(const std::vector<std::string_view>& values) {
    std::vector<std::string_view> out;
    for (std::string_view value : values) {
        for (std::size_t at = 0; at <= value.size();) {
            const std::size_t comma = std::min(value.find(',', at), value.size());
            out.push_back(value.substr(at, comma - at));
            at = comma + 1;
        }
    }
    return out;
}

}  // namespace

void warn_hub_repositories(const EngineCall& call) {
    const std::vector<Word>& words = call.words;
    const Invocation& run = call.run;
    const ContainerView& c = call.container;
    ArgvEdits& edits = call.edits;
    const auto warn = [&](std::string_view flag, std::string_view value, std::string_view what, std::string_view advice) {
        add_warning(edits.warnings, who(c).bare(flag).say(" ").quote(value).say(" names a hub repository, so the engine will download the ").say(what).say(
                                        " from the hub; ").say(advice));
    };
    std::size_t from = run.after;
    while (const auto named = find_flag(words, from, {"--tokenizer", "--tokenizer-path", "--hf-config-path", "--speculative-model",
                                                      "--speculative-draft-model-path", "--speculative-config"})) {
        from = named->word + 1;
        if (named->flag == "--speculative-config") {
            const std::string_view draft = json_string_member(named->value, "model");
            if (!draft.empty() && !is_path(draft)) warn(named->flag, draft, "draft model", "mount it from an image");
        } else if (!is_path(named->value)) {
            if (named->flag.rfind("--speculative", 0) == 0) {
                warn(named->flag, named->value, "draft model", "mount it from an image");
            } else {
                const std::string what = named->flag == "--hf-config-path" ? "model config" : "tokenizer";
                warn(named->flag, named->value, what, "drop the flag to use the " + what + " in the model image");
            }
        }
    }
    // LoRA adapters, one or more values after the flag: NAME=PATH (vLLM's
    // --lora-modules, SGLang's --lora-paths), a bare path (SGLang), or a
    // JSON object with a "path"; TGI's --lora-adapters, one value of
    // adapters split by commas, each a repository or NAME=PATH. The first
    // that names a repository is warned about.
    for (std::size_t i = run.after; i < words.size(); ++i) {
        const std::string_view text = words[i].text();
        if (text.rfind("--lora-", 0) != 0) continue;  // most words: one comparison
        std::string_view flag;
        for (std::string_view name : {std::string_view("--lora-modules"), std::string_view("--lora-paths"), std::string_view("--lora-adapters")}) {
            if (text.rfind(name, 0) == 0 && (text.size() == name.size() || text[name.size()] == '=')) flag = name;
        }
        if (flag.empty()) continue;
        // The values: the rest of "--flag=VALUE", or the words up to the next flag.
        std::vector<std::string_view> values;
        if (text.size() > flag.size()) {
            values.push_back(text.substr(flag.size() + 1));
        } else {
            for (std::size_t v = i + 1; v < words.size() && !words[v].text().empty() && words[v].text().front() != '-'; ++v) values.push_back(words[v].text());
        }
        if (flag == "--lora-adapters") values = split_commas(values);
        for (std::string_view value : values) {
            std::string_view path = value;
            if (value.empty()) continue;
            if (value.front() == '{') {
                path = json_string_member(value, "path");
            } else if (const std::size_t equals = value.find('='); equals != std::string_view::npos) {
                path = value.substr(equals + 1);
            }
            if (path.empty() || is_path(path)) continue;
            warn(flag, path, "LoRA adapter", "mount it from an image");
            break;
        }
    }
}

}  // namespace miw
