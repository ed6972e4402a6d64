// Engines a shell starts: scripts that pass "$@" on, and the model a shell
// string names.
#include "../src/core/shell_forwarding.hpp"

#include <catch2/catch.hpp>

#include <string>
#include <vector>

using namespace miw;

TEST_CASE("a script that passes its words on is read as the engine's command line", "[shell_forwarding]") {
    struct Case {
        const char* name;
        std::vector<std::string> command;
        std::vector<std::string> args;
        const char* family;  // "" when the script is not read so
        std::size_t engine_words;  // the script's own words for the engine
    };
    const std::vector<Case> cases = {
        {"exec vllm serve \"$@\"", {"bash", "-c", "pip install x && exec vllm serve \"$@\"", "--"}, {"Qwen/Q"}, "vLLM", 2},
        {"sh -ec, a module", {"sh", "-ec", "nvidia-smi; exec python3 -m sglang.launch_server \"$@\";\n", "sglang"}, {"--model-path", "m"}, "SGLang", 3},
        {"the model in the script", {"sh", "-c", "exec vllm serve Qwen/Q \"$@\"", "--"}, {}, "", 0},
        {"no -c", {"bash", "run.sh", "vllm serve \"$@\""}, {"Qwen/Q"}, "", 0},
        {"another program", {"sh", "-c", "exec sidecar \"$@\"", "--"}, {"Qwen/Q"}, "", 0},
    };
    for (const Case& c : cases) {
        DYNAMIC_SECTION(c.name) {
            std::vector<std::string> texts = c.command;
            texts.insert(texts.end(), c.args.begin(), c.args.end());
            ContainerView container;
            for (const auto& t : c.command) container.command.push_back(ArgView{true, t});
            for (const auto& t : c.args) container.args.push_back(ArgView{true, t});
            const std::vector<Word> words = command_line(container);
            const auto forwarded = engine_behind_shell(words, 0, container);
            if (*c.family == '\0') {
                CHECK_FALSE(forwarded);
                continue;
            }
            REQUIRE(forwarded);
            CHECK(std::string(forwarded->run.family->name) == c.family);
            CHECK(forwarded->run.forwarded);
            CHECK(forwarded->own.size() == c.engine_words);
        }
    }
}

TEST_CASE("the model a shell string starts an engine with", "[shell_forwarding]") {
    struct Case {
        const char* text;
        const char* model;
    };
    const std::vector<Case> cases = {
        {"vllm serve Qwen/Q --port 8000", "Qwen/Q"},
        {"exec python3 -m sglang.launch_server --model-path='Qwen/Q' --tp 2", "Qwen/Q"},
        {"text-generation-launcher --model-id=org/x", "org/x"},
        {"trtllm-serve serve nvidia/Q-FP8 --tp_size 8", "nvidia/Q-FP8"},
        {"vllm serve $MODEL_ID", ""},
        {"vllm serve --port 8000", ""},
    };
    for (const Case& c : cases) {
        DYNAMIC_SECTION(c.text) { CHECK(model_in_shell_string(c.text) == c.model); }
    }
}
