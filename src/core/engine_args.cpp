#include "model_image_webhook/engine_args.hpp"

#include "model_image_webhook/download_env.hpp"
#include "model_image_webhook/text.hpp"
#include "model_image_webhook/warning.hpp"

#include <algorithm>
#include <array>
#include <iterator>
#include <optional>

namespace miw {

namespace {

// command, then args, as one command line: an engine's words may sit in
// either (command: [vllm], args: [serve, model, ...]).
struct Word {
    bool in_command;
    std::size_t index;
    const ArgView* arg;

    std::string_view text() const { return arg->is_string ? arg->text : std::string_view(); }
};

std::vector<Word> command_line(const ContainerView& c) {
    std::vector<Word> out;
    out.reserve(c.command.size() + c.args.size());
    for (std::size_t i = 0; i < c.command.size(); ++i) out.push_back({true, i, &c.command[i]});
    for (std::size_t i = 0; i < c.args.size(); ++i) out.push_back({false, i, &c.args[i]});
    return out;
}

std::string_view basename(std::string_view path) {
    const std::size_t slash = path.rfind('/');
    return slash == std::string_view::npos ? path : path.substr(slash + 1);
}

// name: a program's file name, without its directory.
bool is_python(std::string_view name) { return name == "python" || name.rfind("python3", 0) == 0; }

// The image's repository, without registry, tag or digest: "vllm/vllm-openai".
// A tag is what follows a ':' in the last path component: only that
// component is scanned (a registry's port is a ':' before a '/').
std::string_view repository_of(std::string_view image) {
    image = image.substr(0, image.find('@'));
    for (std::size_t i = image.size(); i-- > 0 && image[i] != '/';) {
        if (image[i] == ':') return image.substr(0, i);
    }
    return image;
}

bool ends_with(std::string_view text, std::string_view suffix) {
    return text.size() >= suffix.size() && text.substr(text.size() - suffix.size()) == suffix;
}

constexpr bool shell_word_boundary(char c, bool after) {
    switch (c) {
        case ' ': case '\t': case '\n': case '\r': case '\f': case '\v': case '"': case '\'': case ';': case '&': case '|': return true;
        case '(': return !after;
        case ')': case '=': return after;
        default: return false;
    }
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

enum class Engine { none, vllm_serve, vllm_api_server, sglang, dynamo_trtllm, kserve_huggingface, tgi, tei, llama_cpp, trtllm, nim };

struct Invocation {
    Engine engine = Engine::none;
    std::size_t after = 0;  // the first word after the engine's own words
    bool positional_model = false;  // vllm serve and sglang serve take the model as their first argument
    bool forwarded = false;  // started by a shell script's "$@" (engine_behind_shell)
};

// The engine a container with no `command` runs: its image's entrypoint.
Invocation recognise_image(std::string_view image) {
    // The vllm-openai image's entrypoint is `vllm serve`: its args start with the model.
    const std::string_view repository = repository_of(image);
    if (ends_with(repository, "vllm-openai")) return {Engine::vllm_serve, 0, true};
    // KServe's Hugging Face server image runs `python3 -m huggingfaceserver`.
    if (ends_with(repository, "huggingfaceserver")) return {Engine::kserve_huggingface, 0, false};
    // The TGI and TEI images run text-generation-launcher and
    // text-embeddings-router with the args: Hugging Face's
    // (".../text-generation-inference") and Google Cloud's
    // (".../huggingface-text-generation-inference-cu124.2-4.ubuntu2204.py311").
    const std::string_view last = basename(repository);
    if (last == "text-generation-inference" || last.rfind("huggingface-text-generation-inference", 0) == 0) return {Engine::tgi, 0, false};
    if (last == "text-embeddings-inference" || last.rfind("huggingface-text-embeddings-inference", 0) == 0) return {Engine::tei, 0, false};
    // NVIDIA NIM's images (nvcr.io/nim/<publisher>/<model>, and the
    // model-free nvcr.io/nim/nvidia/llm-nim) start the server with the args.
    if (repository.rfind("nvcr.io/nim/", 0) == 0) return {Engine::nim, 0, false};
    // llama.cpp's server images are its repository's "server" tags
    // (server, server-cuda, server-vulkan, ...); the others run other tools.
    if (last == "llama.cpp") {
        const std::string_view named = image.substr(0, image.find('@'));
        if (named.size() > repository.size() && named.substr(repository.size() + 1).rfind("server", 0) == 0) return {Engine::llama_cpp, 0, false};
    }
    return {};
}

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

// The first word of the command a command line runs once the launchers it
// starts with have run it (`tini -- vllm serve ...`, `env
// VLLM_LOGGING_LEVEL=DEBUG vllm serve ...`, one launcher behind another
// too): 0 for a command line that starts with no launcher. `assignments`
// takes the indices of env's NAME=VALUE words.
std::size_t past_launchers(const std::vector<Word>& words, std::vector<std::size_t>* assignments = nullptr) {
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

// The engine a command line starts with its program, the word at `at`: its
// first, or the first after the launchers before it (past_launchers).
Invocation recognise_program(const std::vector<Word>& words, std::size_t at) {
    if (at >= words.size()) return {};
    const auto word = [&](std::size_t k) { return at + k < words.size() ? words[at + k].text() : std::string_view(); };
    const auto engine = [&](Engine e, std::size_t after, bool positional_model) { return Invocation{e, std::min(at + after, words.size()), positional_model}; };
    const std::string_view program = basename(word(0));
    if (program == "text-generation-launcher") return engine(Engine::tgi, 1, false);
    if (program == "text-embeddings-router") return engine(Engine::tei, 1, false);
    if (program == "llama-server") return engine(Engine::llama_cpp, 1, false);
    if (program == "trtllm-serve") {
        // Its commands that take the model as their argument; with none of
        // its commands first, it runs `serve`. The disaggregated ones read
        // their models from a configuration file.
        const std::string_view command = word(1);
        if (command == "serve" || command == "grpc" || command == "mm_embedding_serve") return engine(Engine::trtllm, 2, false);
        if (command == "disaggregated" || command == "disaggregated_mpi_worker") return {};
        return engine(Engine::trtllm, 1, false);
    }
    const bool serve = word(1) == "serve";
    if (serve && program == "vllm") return engine(Engine::vllm_serve, 2, true);
    if (serve && program == "sglang") {
        // `sglang serve` takes its --model-type before anything else, then the
        // model as its first argument or as --model-path.
        const std::string_view first = word(2);
        return engine(Engine::sglang, first == "--model-type" ? 4 : first.rfind("--model-type=", 0) == 0 ? 3 : 2, true);
    }
    if (is_python(program)) {
        // Python's options come before -m; the first word that is none is a
        // script (its words, a later -m among them, are the script's), as
        // is -c's command. At most kPythonOptions words of them are read, so
        // that asking each word of a long command line (launched_engine_at)
        // costs its length, whatever -X's values hold.
        constexpr std::size_t kPythonOptions = 32;
        for (std::size_t i = at + 1; i + 1 < words.size() && i <= at + kPythonOptions; ++i) {
            const std::string_view option = words[i].text();
            if (option == "-W" || option == "-X") ++i;  // they take a value
            if (option.size() < 2 || option[0] != '-' || option == "-c") return {};
            if (option != "-m") continue;
            const std::string_view module = words[i + 1].text();
            // NVIDIA Dynamo's workers take vLLM's and SGLang's own arguments.
            if (module == "vllm.entrypoints.openai.api_server" || module == "dynamo.vllm") return {Engine::vllm_api_server, i + 2, false};
            if (module == "sglang.launch_server" || module == "dynamo.sglang") return {Engine::sglang, i + 2, false};
            // Dynamo's TensorRT-LLM worker: --model, or its older --model-path.
            if (module == "dynamo.trtllm") return {Engine::dynamo_trtllm, i + 2, false};
            if (module == "huggingfaceserver") return {Engine::kserve_huggingface, i + 2, false};
            return {};
        }
    }
    return {};
}

// program_at: where the program is once launchers have run it (past_launchers).
Invocation recognise(const std::vector<Word>& words, std::size_t program_at, const ContainerView& c) {
    if (c.command.empty()) return recognise_image(c.image);
    return recognise_program(words, program_at);
}

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

// A shell string that starts an engine: whitespace inside, the engine's words
// among it, and no mention of the mount.
bool runs_engine_in_shell_string(std::string_view text) {
    if (text.find_first_of(" \t\n") == std::string_view::npos || text.find(kModelMountPath) != std::string_view::npos) return false;
    // What each recognised engine is started by, as a script writes it.
    static constexpr std::string_view kEngineWords[] = {"vllm serve", "vllm.entrypoints.openai.api_server", "sglang serve", "sglang.launch_server",
                                                        "dynamo.vllm", "dynamo.sglang", "text-generation-launcher", "text-embeddings-router",
                                                        "trtllm-serve", "dynamo.trtllm"};
    return std::any_of(std::begin(kEngineWords), std::end(kEngineWords), [&](std::string_view word) { return text.find(word) != std::string_view::npos; });
}

// What separates a shell string's words where it quotes none of them.
constexpr std::string_view kSpaces = " \t\n\r";

// The runs of text between spaces, tabs and line ends: a shell string's
// words where it quotes none of those.
std::vector<std::string_view> split_on_spaces(std::string_view text) {
    std::vector<std::string_view> words;
    for (std::size_t at = text.find_first_not_of(kSpaces); at != std::string_view::npos; at = text.find_first_not_of(kSpaces, at)) {
        const std::size_t end = std::min(text.find_first_of(kSpaces, at), text.size());
        words.push_back(text.substr(at, end - at));
        at = end;
    }
    return words;
}

bool is_shell(std::string_view program) { return program == "sh" || program == "bash" || program == "dash" || program == "ash" || program == "zsh"; }

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

// The index of a word that is no element of command or args.
constexpr std::size_t kInScript = static_cast<std::size_t>(-1);

// shell_at: where the program is once launchers have run it (`tini -- bash -c ...`).
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
    if (out.run.engine == Engine::none || out.run.after < out.own.size()) return std::nullopt;
    out.run.forwarded = true;
    return std::optional<ShellForwarding>(std::move(out));
}

// A shell word without one pair of quotes around it.
std::string_view unquoted(std::string_view word) {
    if (word.size() >= 2 && (word.front() == '"' || word.front() == '\'') && word.back() == word.front()) return word.substr(1, word.size() - 2);
    return word;
}

// The model a shell string starts the engine with, as the shell would pass
// it in the common forms: the word after `vllm serve` or `sglang serve`, or the value of
// --model / --model-path / --model-id (spaced or joined by '='), one pair of quotes
// around it dropped. Empty when none is written or it is a variable (what it
// holds is not known here).
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

std::string_view without_trailing_slash(std::string_view path) {
    while (path.size() > 1 && path.back() == '/') path.remove_suffix(1);
    return path;
}

// A model argument or variable that already names the mount ("/var/lib/gpustack/model/" too).
bool names_mount(std::string_view value) { return without_trailing_slash(value) == kModelMountPath; }

bool is_path(std::string_view value) { return !value.empty() && (value.front() == '/' || value.front() == '.' || value.front() == '~'); }

// Noted as found; sorted and made unique once planning ends (sort_removals),
// so that a command line of many removed flags costs no more than its length.
void remove_word(ArgvEdits& edits, const Word& w) { (w.in_command ? edits.command_removed : edits.args_removed).push_back(w.index); }

void sort_removals(ArgvEdits& edits) {
    for (auto* list : {&edits.args_removed, &edits.command_removed}) {
        if (list->size() < 2) continue;
        std::sort(list->begin(), list->end());
        list->erase(std::unique(list->begin(), list->end()), list->end());
    }
}

// Takes the warning's text (the warning is spent): one copy fewer a warning.
void add_warning(std::vector<std::string>& warnings, Warning& warning) {
    std::string text = std::move(warning).text();
    if (std::find(warnings.begin(), warnings.end(), text) == warnings.end()) warnings.push_back(std::move(text));
}

// "container \"NAME\": ", the start of each warning about one container;
// built only for a warning.
Warning who(const ContainerView& c) { return Warning("container ").quote(c.name, 63).say(": "); }

// The variable `name` as the kubelet sets it: its last definition in env; null when there is none.
const EnvVarView* last_definition(const ContainerView& c, std::string_view name) {
    const EnvVarView* found = nullptr;
    for (const auto& e : c.env) {
        if (e.name == name) found = &e;
    }
    return found;
}

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

// env's NAME=VALUE words before the command set its variables as the
// container's env does: a download variable set so is removed, as its entry
// in env would be. (With no command, the words are the image entrypoint's.)
// True when one is.
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

// A download step is not edited (it may fetch what the image lacks, a
// tokenizer or a dataset), but the weights it fetches are the image's, and
// where it set a token or a proxy, it now runs without them.
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

// The name clients call the model by, from its old argument. A "$(NAME)" the
// kubelet expands from the container's env cannot expand once the delivery
// removes NAME (HF_MODEL_ID, say): its value is written out instead, the last
// definition's, as the kubelet takes it.
std::string served_name(std::string_view model, const ContainerView& c) {
    if (model.size() > 3 && model.substr(0, 2) == "$(" && model.back() == ')') {
        const std::string_view name = model.substr(2, model.size() - 3);
        if (is_download_env(name)) {
            const EnvVarView* defined = last_definition(c, name);
            if (defined != nullptr && defined->has_string_value) return std::string(defined->value);
        }
    }
    return std::string(model);
}

// An engine started with no model on its command line loads the one its
// --config file names, or vLLM's default from the hub (SGLang and TensorRT-LLM
// do not start):
// nothing here can point it at the mount without guessing the name clients
// call it by, so the warning says what to write.
void warn_no_model(const std::vector<Word>& words, const Invocation& run, const ContainerView& c, ArgvEdits& edits) {
    const std::string mount(kModelMountPath);
    // Behind a shell script, the word after the script is the shell's $0, not
    // one of "$@": a model written there is not passed on.
    Warning said = who(c).say(run.forwarded ? "no model in the words after the script's $0: " : "no model on the command line: ");
    if (run.engine == Engine::trtllm) {
        // Its model is a required argument, whatever --config holds.
        said.say("TensorRT-LLM will not start; pass " + mount + " as the model");
    } else if (const auto config = find_flag(words, run.after, {"--config"})) {
        said.say("the engine loads the one --config ").quote(config->value).say(" names; pass " + mount + " as the model");
    } else if (run.engine == Engine::sglang) {
        said.say("SGLang will not start; pass --model-path " + mount);
    } else if (run.engine == Engine::dynamo_trtllm) {
        said.say("the worker loads DYN_TRTLLM_MODEL or its default model from the hub; pass --model-path " + mount);
    } else {
        said.say("vLLM serves its default model from the hub; pass " + mount + " as the model");
    }
    add_warning(edits.warnings, said);
}

// vLLM's and SGLang's model argument becomes the mount; the name clients call
// the model by stays the old argument.
void plan_model_path(const std::vector<Word>& words, const Invocation& run, const ContainerView& c, ArgvEdits& edits) {
    std::optional<FlagValue> model;
    if (run.positional_model && is_value_word(words, run.after)) {
        model = FlagValue{run.after, {}, words[run.after].text(), false};
    } else if (run.engine == Engine::sglang || run.engine == Engine::dynamo_trtllm) {
        model = find_flag(words, run.after, {"--model-path", "--model"});
    } else {
        model = find_flag(words, run.after, {"--model"});
    }
    if (model && !names_mount(model->value)) {
        const Word& at = words[model->word];
        edits.replacements.push_back({at.in_command, at.index, model->joined ? std::string(model->flag) + "=" + std::string(kModelMountPath) : std::string(kModelMountPath)});
        const bool named = find_flag(words, 0, {"--served-model-name"}).has_value();
        const std::string served = served_name(model->value, c);
        if (!named) edits.appended_args = {"--served-model-name", served};
        Warning said = who(c).say("the model argument ").quote(model->value).say(" now reads ").say(kModelMountPath);
        if (named) said.say("; clients keep the --served-model-name already given");
        else said.say("; --served-model-name ").quote(served).say(" is added so clients keep calling it by that name");
        add_warning(edits.warnings, said);
    }
    if (!model) warn_no_model(words, run, c, edits);
}

// KServe's Hugging Face server loads --model_id from the hub when it is
// given, else --model_dir (by default /mnt/models, where KServe's storage
// initializer downloads the InferenceService's storageUri): the id and the
// revisions it would be fetched at go, and the directory becomes the mount.
// Clients call the model by --model_name, which stays.
void plan_kserve_model(const std::vector<Word>& words, const Invocation& run, const ContainerView& c, ArgvEdits& edits) {
    std::optional<FlagValue> id;
    std::size_t from = run.after;
    while (const auto flag = find_flag(words, from, {"--model_id", "--model_revision", "--tokenizer_revision"})) {
        from = flag->word + 1;
        if (flag->flag == "--model_id") id = flag;  // the last one given, as argparse takes it
        remove_word(edits, words[flag->word]);
        if (!flag->joined) remove_word(edits, words[flag->word - 1]);
    }
    const std::string mount(kModelMountPath);
    std::optional<FlagValue> dir;
    from = run.after;
    while (const auto flag = find_flag(words, from, {"--model_dir"})) {
        from = flag->word + 1;
        dir = flag;  // the last one given
    }
    const bool is_mount = dir && names_mount(dir->value);
    if (!dir) {
        edits.appended_args = {"--model_dir=" + mount};
    } else if (!is_mount) {
        const Word& at = words[dir->word];
        edits.replacements.push_back({at.in_command, at.index, dir->joined ? "--model_dir=" + mount : mount});
    } else if (!id) {
        return;  // already the mount
    }
    Warning said = who(c);
    if (id) said.say("--model_id ").quote(id->value, 40).say(" dropped, ");
    said.say(!dir ? "--model_dir " + mount + " added" : (is_mount ? "--model_dir reads " : "--model_dir now reads ") + mount);
    if (!id && dir && !is_mount) said.say(", not ").quote(dir->value, 48);
    said.say(": the server loads the image's weights");
    if (id) said.say(", not the hub's");
    else if (!dir) said.say(", not /mnt/models (where its storage initializer downloads)");
    add_warning(edits.warnings, said);
}

// Hugging Face's servers, TGI's launcher and TEI's router, load --model-id,
// else their MODEL_ID variable, else (TGI) bigscience/bloom-560m from the
// hub: the flag becomes the mount, or is added (a flag wins over the
// variable). No served name is added: both serve their one model whatever
// name a request gives, and released versions refuse a flag they do not know.
void plan_model_id(const std::vector<Word>& words, const Invocation& run, const ContainerView& c, ArgvEdits& edits) {
    const std::string mount(kModelMountPath);
    const char* const server = run.engine == Engine::tgi ? "TGI" : "TEI";
    if (const auto model = find_flag(words, run.after, {"--model-id"})) {
        if (names_mount(model->value)) return;
        const Word& at = words[model->word];
        edits.replacements.push_back({at.in_command, at.index, model->joined ? "--model-id=" + mount : mount});
        add_warning(edits.warnings, who(c).say("the model argument ").quote(model->value, 48).say(" now reads " + mount + "; ").say(server).say(
                                        " serves it under any name a request gives"));
        return;
    }
    const EnvVarView* variable = last_definition(c, "MODEL_ID");
    if (variable != nullptr && variable->has_string_value && names_mount(variable->value)) return;
    edits.appended_args = {"--model-id=" + mount};
    Warning said = who(c).say("--model-id=" + mount + " added: ").say(server).say(" loads the image's weights");
    if (variable != nullptr && variable->has_string_value) {
        said.say(", not MODEL_ID ").quote(variable->value, 48);
    } else if (variable != nullptr) {
        said.say(", not the model its MODEL_ID names");
    } else if (run.engine == Engine::tgi) {
        said.say(c.has_env_from ? ", not a MODEL_ID from envFrom or its default model from the hub" : ", not its default model from the hub");
    } else if (c.has_env_from) {
        said.say(", not a MODEL_ID from envFrom");
    }
    add_warning(edits.warnings, said);
}

// TensorRT-LLM's trtllm-serve takes its model as an argument, which click
// reads wherever it stands among the options: the first word that is neither
// an option nor an option's value. Its boolean options take no value.
std::optional<FlagValue> trtllm_model(const std::vector<Word>& words, std::size_t from) {
    static constexpr std::string_view kBooleanOptions[] = {"--trust_remote_code", "--enable_chunked_prefill", "--fail_fast_on_attention_window_too_large", "--help"};
    for (std::size_t i = from; i < words.size(); ++i) {
        const std::string_view text = words[i].text();
        if (!words[i].arg->is_string) continue;
        if (text.empty() || text.front() != '-') return FlagValue{i, {}, text, false};
        const bool takes_next = text.find('=') == std::string_view::npos && std::find(std::begin(kBooleanOptions), std::end(kBooleanOptions), text) == std::end(kBooleanOptions);
        if (takes_next) ++i;
    }
    return std::nullopt;
}

// trtllm-serve's model argument becomes the mount. No served name can be
// added: releases before --served_model_name refuse an option they do not
// know. Given a directory, TensorRT-LLM names the model by the directory's
// name, so the warning says what clients will see.
void plan_trtllm_model(const std::vector<Word>& words, const Invocation& run, const ContainerView& c, ArgvEdits& edits) {
    const auto model = trtllm_model(words, run.after);
    if (!model) {
        warn_no_model(words, run, c, edits);
        return;
    }
    if (names_mount(model->value)) return;
    const Word& at = words[model->word];
    edits.replacements.push_back({at.in_command, at.index, std::string(kModelMountPath)});
    const bool named = find_flag(words, run.after, {"--served_model_name"}).has_value();
    add_warning(edits.warnings, who(c).say("the model argument ").quote(model->value).say(" now reads ").say(kModelMountPath).say(
                                    named ? "; clients keep the --served_model_name already given"
                                          : "; TensorRT-LLM names it \"model\" (the directory's name) to clients unless --served_model_name is given"));
}

// llama.cpp's server loads one GGUF file (-m), or downloads one from the hub
// (-hf) or a URL (-mu), each also taken from its LLAMA_ARG_ variable. The
// mount is a directory and which of its files to load is not known here, so
// nothing is edited: a model from anywhere but a file under the mount is
// warned about, with what to write. Kept out of line: it runs for llama.cpp
// alone, and inlined it made every other container's planning dearer
// (docs/performance.md, "TGI, TEI and llama.cpp").
__attribute__((noinline)) void warn_llama_cpp_model(const std::vector<Word>& words, const Invocation& run, const ContainerView& c, ArgvEdits& edits) {
    const std::string advice = "; pass -m with the GGUF file's path under " + std::string(kModelMountPath);
    // value: null for a variable set from a Secret or ConfigMap.
    const auto said = [&](std::string_view source, const std::string_view* value, std::string_view what) {
        Warning said = who(c).bare(source).say(" ");
        if (value != nullptr) said.quote(*value, 40);
        else said.say("(set from a Secret or ConfigMap)");
        add_warning(edits.warnings, said.say(" ").say(what).say(advice));
    };
    const auto value_of = [](const EnvVarView& e) { return e.has_string_value ? &e.value : nullptr; };
    // A download wins over -m: llama.cpp fetches the file to that path.
    if (const auto download = find_flag(words, run.after, {"-hf", "-hfr", "--hf-repo", "-mu", "--model-url", "-dr", "--docker-repo"})) {
        said(download->flag, &download->value, "makes llama.cpp download the model");
        return;
    }
    for (std::string_view name : {std::string_view("LLAMA_ARG_HF_REPO"), std::string_view("LLAMA_ARG_MODEL_URL")}) {
        if (const EnvVarView* e = last_definition(c, name)) {
            said(name, value_of(*e), "makes llama.cpp download the model");
            return;
        }
    }
    const auto under_mount = [](std::string_view path) {
        return path.size() > kModelMountPath.size() + 1 && path.substr(0, kModelMountPath.size()) == kModelMountPath && path[kModelMountPath.size()] == '/';
    };
    if (const auto model = find_flag(words, run.after, {"-m", "--model"})) {
        if (!under_mount(model->value)) said(model->flag, &model->value, "is not a file of the model image");
        return;
    }
    if (const EnvVarView* e = last_definition(c, "LLAMA_ARG_MODEL")) {
        if (!e->has_string_value || !under_mount(e->value)) {
            said("LLAMA_ARG_MODEL", value_of(*e), "is not a file of the model image");
        }
        return;
    }
    add_warning(edits.warnings, who(c).say("no model on the command line: llama.cpp will not find one").say(advice));
}

// NVIDIA NIM loads its model from its positional argument, else from
// NIM_MODEL_PATH (NIM_MODEL_NAME, a path or URI, in the 1.x multi-LLM
// images), else the model its image's manifest names, downloaded from NGC
// into its cache. Nothing is edited: a model-specific image serves only the
// profiles it was built for, which the model image may not hold; a source
// other than the mount is warned about, with what to write for a model-free
// image.
void warn_nim_model(const std::vector<Word>& words, const Invocation& run, const ContainerView& c, ArgvEdits& edits) {
    const std::string mount(kModelMountPath);
    const auto said = [&](std::string_view source, std::string_view value, std::string_view advice) {
        add_warning(edits.warnings, who(c).say(source).say(" ").quote(value).say(" is where NVIDIA NIM loads the model from, not the model image; ").say(advice));
    };
    const auto variable_advice = [&](std::string_view name) { return "set " + std::string(name) + "=" + mount; };
    if (is_value_word(words, run.after)) {
        if (!names_mount(words[run.after].text())) said("the model argument", words[run.after].text(), "pass " + mount + " instead");
        return;
    }
    if (const EnvVarView* path = last_definition(c, "NIM_MODEL_PATH")) {
        if (!path->has_string_value) {
            add_warning(edits.warnings, who(c).say("NIM_MODEL_PATH (set from a Secret or ConfigMap) is where NVIDIA NIM loads the model from; ").say(
                                            variable_advice("NIM_MODEL_PATH")));
        } else if (!names_mount(path->value)) {
            said("NIM_MODEL_PATH", path->value, variable_advice("NIM_MODEL_PATH"));
        }
        return;
    }
    // NIM_MODEL_NAME is a location only as a path or a URI; else it names a model.
    if (const EnvVarView* name = last_definition(c, "NIM_MODEL_NAME");
        name != nullptr && name->has_string_value && (is_path(name->value) || name->value.find("://") != std::string_view::npos)) {
        if (!names_mount(name->value)) said("NIM_MODEL_NAME", name->value, variable_advice("NIM_MODEL_NAME"));
        return;
    }
    add_warning(edits.warnings, who(c).say("NVIDIA NIM loads the model its image names from NGC").say(c.has_env_from ? " (or envFrom's NIM_MODEL_PATH)" : "").say(
                                    ", not the model image; use a model-free NIM image with NIM_MODEL_PATH=" + mount));
}

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

// What else the engine fetches from a hub when a flag names a repository
// rather than a path: a tokenizer or model config the image holds beside the
// weights, a draft model for speculative decoding, LoRA adapters. Warned
// about, not edited: only the first two have a copy in the image, and
// dropping the others changes what is served. One pass over the words for
// the flags of one value.
void warn_hub_repositories(const std::vector<Word>& words, const Invocation& run, const ContainerView& c, ArgvEdits& edits) {
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

void plan_engine(const std::vector<Word>& words, const Invocation& run, const ContainerView& c, ArgvEdits& edits) {
    if (run.engine == Engine::llama_cpp) {
        warn_llama_cpp_model(words, run, c, edits);
        return;  // its other flags name files, not hub repositories
    }
    if (run.engine == Engine::nim) {
        warn_nim_model(words, run, c, edits);
        return;
    }
    if (run.engine == Engine::kserve_huggingface) {
        plan_kserve_model(words, run, c, edits);
    } else if (run.engine == Engine::tgi || run.engine == Engine::tei) {
        plan_model_id(words, run, c, edits);
    } else if (run.engine == Engine::trtllm) {
        plan_trtllm_model(words, run, c, edits);
    } else {
        plan_model_path(words, run, c, edits);
    }
    warn_hub_repositories(words, run, c, edits);
}

// Where an engine's program stands after the first word of a command line
// whose own program is none (`mpirun -np 16 trtllm-llmapi-launch
// trtllm-serve ...`, `numactl --interleave=all vllm serve ...`): a program
// that runs the rest of its words, with options not read here; nothing
// where none is. Each word is asked as a program, at a bounded cost each.
std::optional<std::size_t> launched_engine_at(const std::vector<Word>& words, std::size_t from) {
    for (std::size_t i = from; i < words.size(); ++i) {
        if (recognise_program(words, i).engine != Engine::none) return i;
    }
    return std::nullopt;
}

// An engine an unread launcher starts is not edited: the launcher's options
// are not known, and one of them may be the word an edit would take. What
// the edit would have been says what to warn about.
void warn_launched_engine(const std::vector<Word>& words, std::size_t program_at, const ContainerView& c, ArgvEdits& edits) {
    const std::optional<std::size_t> at = launched_engine_at(words, program_at + 1);
    if (!at) return;
    ArgvEdits would;
    plan_engine(words, recognise_program(words, *at), c, would);
    if (would.empty()) {
        // Nothing to edit (it reads the mount, or only warnings were due,
        // which hold whatever starts it).
        for (std::string& warning : would.warnings) {
            if (std::find(edits.warnings.begin(), edits.warnings.end(), warning) == edits.warnings.end()) edits.warnings.push_back(std::move(warning));
        }
        return;
    }
    std::string_view model;
    if (!would.replacements.empty()) {
        for (const Word& w : words) {
            if (w.in_command == would.replacements[0].in_command && w.index == would.replacements[0].index) model = w.text();
        }
        if (const std::size_t equals = model.find('='); model.rfind("--", 0) == 0 && equals != std::string_view::npos) model = model.substr(equals + 1);
    }
    Warning said = who(c).say("the engine after command[0] (options unknown) is not edited");
    if (!model.empty()) said.say(": it loads ").quote(model).say(", not the image");
    add_warning(edits.warnings, said.say("; make the engine command[0] or pass ").say(kModelMountPath));
}

void plan_model_argument(const std::vector<Word>& words, const ContainerView& c, ArgvEdits& edits) {
    const std::size_t program_at = past_launchers(words);
    if (const auto shell = engine_behind_shell(words, program_at, c)) {
        plan_engine(shell->words, shell->run, c, edits);
        return;
    }
    const Invocation run = recognise(words, program_at, c);
    if (run.engine == Engine::none) {
        for (const Word& w : words) {
            if (runs_engine_in_shell_string(w.text())) {
                // Where the engine will still read the weights from, when the string says.
                const std::string_view model = model_in_shell_string(w.text());
                Warning said = who(c).say("the model");
                if (!model.empty()) said.say(" ").quote(model, 64);
                const char* const source = model.empty() || !is_path(model) ? "fetches it from the hub" : "reads that path, not the image";
                add_warning(edits.warnings, said.say(" in a shell string is not rewritten, so the engine still ").say(source).say(
                                                  "; run the engine in exec form, or point it at ").say(kModelMountPath));
                return;
            }
        }
        if (!c.command.empty() && program_at < words.size()) warn_launched_engine(words, program_at, c, edits);
        return;
    }
    plan_engine(words, run, c, edits);
}

}  // namespace

ArgvEdits plan_argv_edits(const ContainerView& c, bool selected) {
    ArgvEdits edits;
    std::vector<Word> words = command_line(c);
    const bool loses_assignments = plan_launcher_assignments(words, c, edits);
    plan_download_flags(words, c, edits);  // sorts the removals, these too
    plan_download_step(words, c, loses_assignments, edits);
    if (!selected) return edits;
    // The engine and its model are found on the command line as it will be
    // once the download flags are gone, as a second pass would see it: a
    // "--model" whose value was a download flag keeps no value after it.
    std::erase_if(words, [&](const Word& w) {
        const auto& removed = w.in_command ? edits.command_removed : edits.args_removed;
        return std::binary_search(removed.begin(), removed.end(), w.index);
    });
    plan_model_argument(words, c, edits);
    sort_removals(edits);
    return edits;
}

}  // namespace miw
