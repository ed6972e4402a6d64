// Which engine a command line or an image starts, the table's families asked in turn.
#include "../../src/core/engines/recognise.hpp"

#include <catch2/catch.hpp>

#include <string>
#include <vector>

using namespace miw;

namespace {

std::vector<ArgView> as_words(const std::vector<std::string>& texts) {
    std::vector<ArgView> out;
    for (const auto& t : texts) out.push_back(ArgView{true, t});
    return out;
}
}  // namespace

TEST_CASE("programs, Python modules and images are recognised as the families they start", "[engine_recognise]") {
    struct Case {
        const char* name;
        std::vector<std::string> command;  // empty: the image's entrypoint
        std::string image;
        const char* family;  // "" for none
    };
    const std::vector<Case> cases = {
        {"vllm serve", {"vllm", "serve", "m"}, "", "vLLM"},
        {"vllm alone", {"vllm", "bench"}, "", ""},
        {"the OpenAI server module", {"python3", "-m", "vllm.entrypoints.openai.api_server"}, "", "vLLM"},
        {"sglang serve", {"/usr/bin/sglang", "serve"}, "", "SGLang"},
        {"Dynamo's SGLang worker", {"python", "-m", "dynamo.sglang"}, "", "SGLang"},
        {"KServe's module", {"python3", "-u", "-m", "huggingfaceserver"}, "", "KServe's Hugging Face server"},
        {"TGI's launcher", {"text-generation-launcher"}, "", "Hugging Face TGI and TEI"},
        {"TEI's router", {"/usr/local/bin/text-embeddings-router"}, "", "Hugging Face TGI and TEI"},
        {"trtllm-serve", {"trtllm-serve", "serve", "m"}, "", "TensorRT-LLM"},
        {"trtllm-serve disaggregated", {"trtllm-serve", "disaggregated"}, "", ""},
        {"Dynamo's TensorRT-LLM worker", {"python3", "-m", "dynamo.trtllm"}, "", "TensorRT-LLM"},
        {"llama-server", {"llama-server", "-m", "x.gguf"}, "", "llama.cpp"},
        {"a script's -m", {"python3", "serve.py", "-m", "dynamo.vllm"}, "", ""},
        {"the vllm-openai image", {}, "docker.io/vllm/vllm-openai:v0.11.0", "vLLM"},
        {"KServe's image", {}, "kserve/huggingfaceserver:v0.15.2", "KServe's Hugging Face server"},
        {"TGI's image", {}, "ghcr.io/huggingface/text-generation-inference:3.0.1", "Hugging Face TGI and TEI"},
        {"llama.cpp's server image", {}, "ghcr.io/ggml-org/llama.cpp:server-cuda", "llama.cpp"},
        {"llama.cpp's other tools", {}, "ghcr.io/ggml-org/llama.cpp:full", ""},
        {"a NIM image", {}, "nvcr.io/nim/meta/llama-3.1-8b-instruct:1.8", "NVIDIA NIM"},
        {"another image", {}, "busybox", ""},
    };
    for (const Case& c : cases) {
        DYNAMIC_SECTION(c.name) {
            const std::vector<ArgView> args = as_words(c.command);
            std::vector<Word> words;
            for (std::size_t i = 0; i < args.size(); ++i) words.push_back({true, i, &args[i]});
            const Invocation run = c.command.empty() ? recognise_image(c.image) : recognise_program(words, 0);
            CHECK(std::string(run.family != nullptr ? run.family->name : "") == c.family);
        }
    }
}

TEST_CASE("a shell string that starts an engine is told by the families' words", "[engine_recognise]") {
    CHECK(runs_engine_in_shell_string("pip install x && vllm serve Qwen/Q"));
    CHECK(runs_engine_in_shell_string("exec text-generation-launcher --port 80"));
    CHECK_FALSE(runs_engine_in_shell_string("vllm serve /var/lib/gpustack/model"));  // reads the mount
    CHECK_FALSE(runs_engine_in_shell_string("vllm"));  // one word: no shell string
    CHECK_FALSE(runs_engine_in_shell_string("echo ready && sleep infinity"));
}
