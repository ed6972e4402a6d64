// vLLM's forms (vllm serve, the OpenAI server module, Dynamo's vLLM worker, the vllm-openai image): the model argument becomes the mount.
#include "engine_test_support.hpp"

using namespace miw;
using namespace miw::test;

TEST_CASE("every form of vLLM reads the mount, and a second pass changes nothing", "[engine_vllm]") {
    const std::string m = "/var/lib/gpustack/model";
    check_rewrites({
        {"vllm serve, positional", "vllm/vllm-openai:v0.8.5", {"vllm", "serve", "meta-llama/Llama-3.1-8B-Instruct"}, {"--port", "8000"},
         {"vllm", "serve", m, "--port", "8000", "--served-model-name", "meta-llama/Llama-3.1-8B-Instruct"}},
        {"vllm serve, positional in args", "i", {"vllm"}, {"serve", "Qwen/Qwen2.5-7B-Instruct"}, {"vllm", "serve", m, "--served-model-name", "Qwen/Qwen2.5-7B-Instruct"}},
        {"vllm serve --model X", "i", {"vllm", "serve"}, {"--model", "Qwen/Q"}, {"vllm", "serve", "--model", m, "--served-model-name", "Qwen/Q"}},
        {"vllm serve --model=X", "i", {"vllm", "serve", "--model=Qwen/Q"}, {}, {"vllm", "serve", "--model=" + m, "--served-model-name", "Qwen/Q"}},
        {"the api_server module", "i", {"python3", "-m", "vllm.entrypoints.openai.api_server"}, {"--model", "Qwen/Q"},
         {"python3", "-m", "vllm.entrypoints.openai.api_server", "--model", m, "--served-model-name", "Qwen/Q"}},
        {"the vllm-openai image's entrypoint", "docker.io/vllm/vllm-openai:v0.8.5", {}, {"Qwen/Q", "--max-model-len", "8192"},
         {m, "--max-model-len", "8192", "--served-model-name", "Qwen/Q"}},
        {"the entrypoint, by digest", "r.io/vllm/vllm-openai@sha256:abc", {}, {"--model", "Qwen/Q"}, {"--model", m, "--served-model-name", "Qwen/Q"}},
        {"the entrypoint from a registry with a port, untagged", "registry.local:5000/vllm/vllm-openai", {}, {"Qwen/Q"}, {m, "--served-model-name", "Qwen/Q"}},
        {"--served-model-name present", "i", {"vllm", "serve", "Qwen/Q", "--served-model-name", "qwen"}, {}, {"vllm", "serve", m, "--served-model-name", "qwen"}},
        {"--served-model-name= present", "i", {"vllm", "serve", "Qwen/Q"}, {"--served-model-name=qwen"}, {"vllm", "serve", m, "--served-model-name=qwen"}},
        {"already the mount", "i", {"vllm", "serve", m}, {}, {"vllm", "serve", m}},
        {"vllm without serve", "i", {"vllm", "bench", "Qwen/Q"}, {}, {"vllm", "bench", "Qwen/Q"}},
        {"--model with no value", "i", {"vllm", "serve"}, {"--model", "--port", "8000"}, {"vllm", "serve", "--model", "--port", "8000"}},
        {"--model followed by a download flag", "vllm/vllm-openai:v0.6.3", {}, {"--model", "--tokenizer-revision=/var/lib/gpustack/model", "--port", "8000"},
         {"--model", "--port", "8000"}},
        {"--model whose value was a download flag", "vllm/vllm-openai:v0.6.3", {}, {"--model", "--tokenizer-revision=/x", "m-port"},
         {"--model", m, "--served-model-name", "m-port"}},
        {"serve then a flag first: --model", "i", {"vllm", "serve", "--port", "8000", "--model", "Qwen/Q"}, {},
         {"vllm", "serve", "--port", "8000", "--model", m, "--served-model-name", "Qwen/Q"}},
        {"NVIDIA Dynamo's vLLM worker", "nvcr.io/nvidia/ai-dynamo/vllm-runtime:0.7.1", {"python3", "-m", "dynamo.vllm"}, {"--model", "Qwen/Q", "--enforce-eager"},
         {"python3", "-m", "dynamo.vllm", "--model", m, "--enforce-eager", "--served-model-name", "Qwen/Q"}},
    });
}
