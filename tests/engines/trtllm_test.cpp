// TensorRT-LLM: trtllm-serve's model argument and Dynamo's TensorRT-LLM worker's --model-path become the mount.
#include "engine_test_support.hpp"

using namespace miw;
using namespace miw::test;

TEST_CASE("TensorRT-LLM reads the mount, and a second pass changes nothing", "[engine_trtllm]") {
    const std::string m = "/var/lib/gpustack/model";
    check_rewrites({
        {"NVIDIA Dynamo's TensorRT-LLM worker, --model-path", "nvcr.io/nvidia/ai-dynamo/tensorrtllm-runtime:0.7.1", {"python3", "-m", "dynamo.trtllm"},
         {"--model-path", "meta-llama/Llama-3.1-8B-Instruct", "--served-model-name", "llama3-8b", "--max-batch-size", "2"},
         {"python3", "-m", "dynamo.trtllm", "--model-path", m, "--served-model-name", "llama3-8b", "--max-batch-size", "2"}},
        {"NVIDIA Dynamo's TensorRT-LLM worker, --model=", "i", {"python3", "-m", "dynamo.trtllm", "--model=Qwen/Q"}, {},
         {"python3", "-m", "dynamo.trtllm", "--model=" + m, "--served-model-name", "Qwen/Q"}},
        {"trtllm-serve serve, its model first", "nvcr.io/nvidia/tensorrt-llm/release:1.0.0", {"trtllm-serve", "serve", "meta-llama/Llama-3.1-8B-Instruct"},
         {"--host", "0.0.0.0", "--port", "8000", "--backend", "pytorch"}, {"trtllm-serve", "serve", m, "--host", "0.0.0.0", "--port", "8000", "--backend", "pytorch"}},
        {"trtllm-serve with no command name runs serve", "i", {"trtllm-serve"}, {"TinyLlama/TinyLlama-1.1B-Chat-v1.0", "--max_batch_size", "8"},
         {"trtllm-serve", m, "--max_batch_size", "8"}},
        {"trtllm-serve, options and a boolean flag before the model, its revision gone", "i", {"/usr/local/bin/trtllm-serve", "serve"},
         {"--tp_size", "2", "--log_level=info", "--trust_remote_code", "Qwen/Q", "--revision", "main"},
         {"/usr/local/bin/trtllm-serve", "serve", "--tp_size", "2", "--log_level=info", "--trust_remote_code", m}},
        {"trtllm-serve, a boolean flag just before the model", "i", {"trtllm-serve", "serve", "--trust_remote_code"}, {"Qwen/Q", "--tp_size", "2"},
         {"trtllm-serve", "serve", "--trust_remote_code", m, "--tp_size", "2"}},
        {"trtllm-serve's grpc command", "i", {"trtllm-serve", "grpc", "/engines/llama"}, {"--port", "50051"}, {"trtllm-serve", "grpc", m, "--port", "50051"}},
        {"trtllm-serve's disaggregated command reads its models from a file", "i", {"trtllm-serve", "disaggregated", "-c", "disagg.yaml"}, {},
         {"trtllm-serve", "disaggregated", "-c", "disagg.yaml"}},
    });
}
