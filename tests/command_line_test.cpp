// A command line's words as an engine reads them: launchers, flags, shell words.
#include "../src/core/command_line.hpp"

#include <catch2/catch.hpp>

#include <string>
#include <vector>

using namespace miw;

namespace {

// Words over strings the caller keeps.
struct Line {
    std::vector<std::string> texts;
    std::vector<ArgView> args;
    std::vector<Word> words;
    explicit Line(std::vector<std::string> t) : texts(std::move(t)) {
        for (const auto& text : texts) args.push_back(ArgView{true, text});
        for (std::size_t i = 0; i < args.size(); ++i) words.push_back({false, i, &args[i]});
    }
};

}  // namespace

TEST_CASE("launchers are read past as getopt reads their options", "[command_line]") {
    struct Case {
        const char* name;
        std::vector<std::string> words;
        std::size_t program_at;
        std::vector<std::size_t> assignments;
    };
    const std::vector<Case> cases = {
        {"no launcher", {"vllm", "serve"}, 0, {}},
        {"tini --", {"/usr/bin/tini", "--", "vllm"}, 2, {}},
        {"tini's options, a value joined and apart", {"tini", "-sg", "-p", "SIGTERM", "-e143", "--", "python3"}, 6, {}},
        {"dumb-init without --", {"dumb-init", "--single-child", "-r", "15:2", "vllm"}, 4, {}},
        {"env's assignments", {"env", "-u", "X", "A=1", "B=2", "vllm"}, 5, {3, 4}},
        {"one launcher behind another", {"tini", "--", "trtllm-llmapi-launch", "trtllm-serve"}, 3, {}},
        {"an option it does not have", {"tini", "-x", "vllm"}, 0, {}},
        {"nothing to run", {"dumb-init", "--"}, 0, {}},
    };
    for (const Case& c : cases) {
        DYNAMIC_SECTION(c.name) {
            const Line line(c.words);
            std::vector<std::size_t> assignments;
            CHECK(past_launchers(line.words, &assignments) == c.program_at);
            CHECK(assignments == c.assignments);
        }
    }
}

TEST_CASE("a flag's value is found spaced or joined, never a flag for a value", "[command_line]") {
    const Line line({"serve", "--port", "8000", "--model=Qwen/Q", "--tokenizer", "--trust"});
    const auto model = find_flag(line.words, 0, {"--model-path", "--model"});
    REQUIRE(model);
    CHECK(model->word == 3);
    CHECK(model->joined);
    CHECK(model->value == "Qwen/Q");
    const auto port = find_flag(line.words, 0, {"--port"});
    REQUIRE(port);
    CHECK(port->word == 2);
    CHECK_FALSE(port->joined);
    CHECK_FALSE(find_flag(line.words, 0, {"--tokenizer"}));  // its next word is a flag
    CHECK_FALSE(find_flag(line.words, 4, {"--model"}));  // only from the word asked
}

TEST_CASE("images, programs and shell words are read as a person writes them", "[command_line]") {
    CHECK(repository_of("registry.local:5000/vllm/vllm-openai:v0.8.5") == "registry.local:5000/vllm/vllm-openai");
    CHECK(repository_of("r.io/vllm/vllm-openai@sha256:abc") == "r.io/vllm/vllm-openai");
    CHECK(repository_of("registry.local:5000/vllm") == "registry.local:5000/vllm");
    CHECK(basename("/usr/local/bin/vllm") == "vllm");
    CHECK(is_python("python3.11"));
    CHECK_FALSE(is_python("pythonista"));
    CHECK(mentions_in_shell_string("pip install x && huggingface-cli download org/m", "huggingface-cli download"));
    CHECK_FALSE(mentions_in_shell_string("my-huggingface-cli download", "huggingface-cli download"));
    CHECK_FALSE(mentions_in_shell_string("--revision=main", "--revision"));  // a flag, not a shell string
    CHECK(split_on_spaces(" a\tb\n c ") == std::vector<std::string_view>{"a", "b", "c"});
    CHECK(unquoted("'Qwen/Q'") == "Qwen/Q");
    CHECK(unquoted("\"x") == "\"x");
    CHECK(has_shell_boundary("a;b"));
    CHECK_FALSE(has_shell_boundary("--port"));
}
