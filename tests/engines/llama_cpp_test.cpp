// llama.cpp's server: told where its model comes from, never edited.
#include "engine_test_support.hpp"

using namespace miw;
using namespace miw::test;

TEST_CASE("llama.cpp's server is told where its model comes from, and not edited", "[engine_llama_cpp]") {
    const std::string advice = "; pass -m with the GGUF file's path under /var/lib/gpustack/model";
    const std::string gguf = "/var/lib/gpustack/model/qwen2.5-7b-instruct-q4_k_m.gguf";
    const std::vector<WarnedOnlyCase> cases = {
        {"-hf from the hub, the CUDA server image", "ghcr.io/ggml-org/llama.cpp:server-cuda", {}, {"-hf", "ggml-org/gemma-3-1b-it-GGUF", "--port", "8080"}, {},
         "container \"e\": -hf \"ggml-org/gemma-3-1b-it-GGUF\" makes llama.cpp download the model" + advice},
        {"--hf-repo beside -m: the download wins", "i", {"llama-server"}, {"-m", gguf, "--hf-repo", "org/x-GGUF"}, {},
         "container \"e\": --hf-repo \"org/x-GGUF\" makes llama.cpp download the model" + advice},
        {"a URL", "i", {"/app/llama-server"}, {"-mu", "https://example.com/x.gguf"}, {},
         "container \"e\": -mu \"https://example.com/x.gguf\" makes llama.cpp download the model" + advice},
        {"-m elsewhere", "ghcr.io/ggml-org/llama.cpp:server", {}, {"-m", "/models/qwen.gguf"}, {},
         "container \"e\": -m \"/models/qwen.gguf\" is not a file of the model image" + advice},
        {"-m in a directory whose name only starts like the mount's", "i", {"llama-server", "-m", "/var/lib/gpustack/models/qwen.gguf"}, {}, {},
         "container \"e\": -m \"/var/lib/gpustack/models/qwen.gguf\" is not a file of the model image" + advice},
        {"-m at the mount's directory", "i", {"llama-server", "--model", "/var/lib/gpustack/model/"}, {}, {},
         "container \"e\": --model \"/var/lib/gpustack/model/\" is not a file of the model image" + advice},
        {"-m a file under the mount", "ghcr.io/ggml-org/llama.cpp:server-vulkan@sha256:abc", {}, {"-m", gguf}, {}, ""},
        {"the repository from a ConfigMap", "ghcr.io/ggml-org/llama.cpp:server", {}, {}, {EnvVarView{"LLAMA_ARG_HF_REPO", false, {}}},
         "container \"e\": LLAMA_ARG_HF_REPO (set from a Secret or ConfigMap) makes llama.cpp download the model" + advice},
        {"the model file in LLAMA_ARG_MODEL, under the mount", "ghcr.io/ggml-org/llama.cpp:server", {}, {}, {EnvVarView{"LLAMA_ARG_MODEL", true, gguf}}, ""},
        {"the model file in LLAMA_ARG_MODEL, elsewhere", "ghcr.io/ggml-org/llama.cpp:server", {}, {}, {EnvVarView{"LLAMA_ARG_MODEL", true, "/m/x.gguf"}},
         "container \"e\": LLAMA_ARG_MODEL \"/m/x.gguf\" is not a file of the model image" + advice},
        {"no model at all", "ghcr.io/ggml-org/llama.cpp:server", {}, {"--port", "8080"}, {},
         "container \"e\": no model on the command line: llama.cpp will not find one" + advice},
        {"the image's other tags run other tools", "ghcr.io/ggml-org/llama.cpp:full", {}, {"--server", "-m", "/models/x.gguf"}, {}, ""},
        {"-hf to another program is its own", "i", {"hf-mirror"}, {"-hf", "org/x"}, {}, ""},
    };
    check_warned_only(cases);
    SECTION("the longest container name and value leave the advice whole") {
        const std::string name(300, 'n'), repo = "org/" + std::string(300, 'v');  // the views point into them
        CommandLineContainer container(name, {"llama-server"}, {});
        container.view.env = {EnvVarView{"LLAMA_ARG_MODEL_URL", true, repo}};  // the longest source's name
        const ArgvEdits edits = plan_argv_edits(container.view, true);
        REQUIRE(edits.warnings.size() == 1);
        CHECK(edits.warnings[0].size() <= 256);
        CHECK(edits.warnings[0].substr(edits.warnings[0].size() - advice.size()) == advice);
    }
}
