// The engine's command line: download flags out, the model argument pointed
// at the mount, in every form vLLM, SGLang, KServe's Hugging Face server, TGI,
// TEI and TensorRT-LLM's trtllm-serve are started in exec form, or behind a
// shell script that passes its words on to them.
#include "model_image_webhook/engine_args.hpp"

#include <catch2/catch.hpp>

#include <string>
#include <string_view>
#include <vector>

using namespace miw;

namespace {

std::vector<ArgView> words(const std::vector<std::string>& texts, std::vector<std::string>& storage) {
    storage = texts;
    std::vector<ArgView> out;
    for (const auto& t : storage) out.push_back(ArgView{true, t});
    return out;
}

// A container named `name` running command then args, keeping the strings
// its views point into; not copied or moved, so the views stay valid.
struct CommandLineContainer {
    std::vector<std::string> command_store, args_store;
    ContainerView view;

    CommandLineContainer(std::string_view name, const std::vector<std::string>& command, const std::vector<std::string>& args) {
        view.name = name;
        view.command = words(command, command_store);
        view.args = words(args, args_store);
    }
    CommandLineContainer(const CommandLineContainer&) = delete;
    CommandLineContainer& operator=(const CommandLineContainer&) = delete;
};

// The command line after the edits, as the patch leaves it: replacements,
// then removals, then what is appended to args.
std::vector<std::string> applied(const std::vector<std::string>& command, const std::vector<std::string>& args, const ArgvEdits& e) {
    std::vector<std::string> c = command, a = args;
    for (const auto& r : e.replacements) (r.in_command ? c : a)[r.index] = r.value;
    for (auto it = e.command_removed.rbegin(); it != e.command_removed.rend(); ++it) c.erase(c.begin() + static_cast<long>(*it));
    for (auto it = e.args_removed.rbegin(); it != e.args_removed.rend(); ++it) a.erase(a.begin() + static_cast<long>(*it));
    a.insert(a.end(), e.appended_args.begin(), e.appended_args.end());
    c.insert(c.end(), a.begin(), a.end());
    return c;
}

// No warning when `says` is empty, else exactly one, starting with `says`.
void check_single_warning(const ArgvEdits& edits, const std::string& says) {
    if (says.empty()) {
        CHECK(edits.warnings.empty());
    } else {
        REQUIRE(edits.warnings.size() == 1);
        CHECK(edits.warnings[0].rfind(says, 0) == 0);
    }
}

}  // namespace

TEST_CASE("every recognised engine form reads the mount, and a second pass changes nothing", "[engine_args]") {
    struct Case {
        const char* name;
        std::string image;
        std::vector<std::string> command;
        std::vector<std::string> args;
        std::vector<std::string> after;  // command then args, once edited
    };
    const std::string m = "/var/lib/gpustack/model";
    const std::vector<Case> cases = {
        {"vllm serve, positional", "vllm/vllm-openai:v0.8.5", {"vllm", "serve", "meta-llama/Llama-3.1-8B-Instruct"}, {"--port", "8000"},
         {"vllm", "serve", m, "--port", "8000", "--served-model-name", "meta-llama/Llama-3.1-8B-Instruct"}},
        {"vllm serve, positional in args", "i", {"vllm"}, {"serve", "Qwen/Qwen2.5-7B-Instruct"}, {"vllm", "serve", m, "--served-model-name", "Qwen/Qwen2.5-7B-Instruct"}},
        {"vllm serve --model X", "i", {"vllm", "serve"}, {"--model", "Qwen/Q"}, {"vllm", "serve", "--model", m, "--served-model-name", "Qwen/Q"}},
        {"vllm serve --model=X", "i", {"vllm", "serve", "--model=Qwen/Q"}, {}, {"vllm", "serve", "--model=" + m, "--served-model-name", "Qwen/Q"}},
        {"the api_server module", "i", {"python3", "-m", "vllm.entrypoints.openai.api_server"}, {"--model", "Qwen/Q"},
         {"python3", "-m", "vllm.entrypoints.openai.api_server", "--model", m, "--served-model-name", "Qwen/Q"}},
        {"sglang --model-path", "i", {"python3", "-m", "sglang.launch_server", "--model-path", "Qwen/Q"}, {},
         {"python3", "-m", "sglang.launch_server", "--model-path", m, "--served-model-name", "Qwen/Q"}},
        {"sglang --model alias", "i", {"python", "-m", "sglang.launch_server"}, {"--model=Qwen/Q"},
         {"python", "-m", "sglang.launch_server", "--model=" + m, "--served-model-name", "Qwen/Q"}},
        {"the vllm-openai image's entrypoint", "docker.io/vllm/vllm-openai:v0.8.5", {}, {"Qwen/Q", "--max-model-len", "8192"},
         {m, "--max-model-len", "8192", "--served-model-name", "Qwen/Q"}},
        {"the entrypoint, by digest", "r.io/vllm/vllm-openai@sha256:abc", {}, {"--model", "Qwen/Q"}, {"--model", m, "--served-model-name", "Qwen/Q"}},
        {"the entrypoint from a registry with a port, untagged", "registry.local:5000/vllm/vllm-openai", {}, {"Qwen/Q"}, {m, "--served-model-name", "Qwen/Q"}},
        {"--served-model-name present", "i", {"vllm", "serve", "Qwen/Q", "--served-model-name", "qwen"}, {}, {"vllm", "serve", m, "--served-model-name", "qwen"}},
        {"--served-model-name= present", "i", {"vllm", "serve", "Qwen/Q"}, {"--served-model-name=qwen"}, {"vllm", "serve", m, "--served-model-name=qwen"}},
        {"already the mount", "i", {"vllm", "serve", m}, {}, {"vllm", "serve", m}},
        {"download flags go beside the rewrite", "i", {"vllm", "serve", "Qwen/Q", "--revision", "main"}, {"--download-dir=/d", "--tokenizer-revision", "t"},
         {"vllm", "serve", m, "--served-model-name", "Qwen/Q"}},
        {"another program: only the download flags", "i", {"server"}, {"--model", "Qwen/Q", "--code-revision=x"}, {"server", "--model", "Qwen/Q"}},
        {"another image without a command", "busybox", {}, {"Qwen/Q"}, {"Qwen/Q"}},
        {"vllm without serve", "i", {"vllm", "bench", "Qwen/Q"}, {}, {"vllm", "bench", "Qwen/Q"}},
        {"--model with no value", "i", {"vllm", "serve"}, {"--model", "--port", "8000"}, {"vllm", "serve", "--model", "--port", "8000"}},
        {"--model followed by a download flag", "vllm/vllm-openai:v0.6.3", {}, {"--model", "--tokenizer-revision=/var/lib/gpustack/model", "--port", "8000"},
         {"--model", "--port", "8000"}},
        {"--model whose value was a download flag", "vllm/vllm-openai:v0.6.3", {}, {"--model", "--tokenizer-revision=/x", "m-port"},
         {"--model", m, "--served-model-name", "m-port"}},
        {"sglang serve, positional", "lmsysorg/sglang:v0.5.4", {"sglang", "serve", "Qwen/Q"}, {"--tp", "2"},
         {"sglang", "serve", m, "--tp", "2", "--served-model-name", "Qwen/Q"}},
        {"sglang serve --model-path X", "i", {"/usr/local/bin/sglang", "serve"}, {"--model-path", "Qwen/Q", "--port", "30000"},
         {"/usr/local/bin/sglang", "serve", "--model-path", m, "--port", "30000", "--served-model-name", "Qwen/Q"}},
        {"sglang serve after its --model-type", "i", {"sglang", "serve", "--model-type", "llm", "Qwen/Q"}, {},
         {"sglang", "serve", "--model-type", "llm", m, "--served-model-name", "Qwen/Q"}},
        {"sglang serve after its --model-type=", "i", {"sglang", "serve"}, {"--model-type=llm", "Qwen/Q"},
         {"sglang", "serve", "--model-type=llm", m, "--served-model-name", "Qwen/Q"}},
        {"serve then a flag first: --model", "i", {"vllm", "serve", "--port", "8000", "--model", "Qwen/Q"}, {},
         {"vllm", "serve", "--port", "8000", "--model", m, "--served-model-name", "Qwen/Q"}},
        {"KServe's server image, --model_id=", "kserve/huggingfaceserver:v0.15.2-gpu", {}, {"--model_name=llama3", "--model_id=meta-llama/L"},
         {"--model_name=llama3", "--model_dir=" + m}},
        {"KServe's server, --model_id spaced, with its revisions", "docker.io/kserve/huggingfaceserver@sha256:abc", {},
         {"--model_name", "llama3", "--model_id", "meta-llama/L", "--model_revision", "main", "--tokenizer_revision=t"}, {"--model_name", "llama3", "--model_dir=" + m}},
        {"KServe's server reading its storage initializer's directory", "kserve/huggingfaceserver:v0.15.2", {}, {"--model_name=llama3", "--model_dir=/mnt/models"},
         {"--model_name=llama3", "--model_dir=" + m}},
        {"KServe's server, --model_dir spaced", "kserve/huggingfaceserver:v0.15.2", {}, {"--model_dir", "/mnt/models", "--max_model_len", "8192"},
         {"--model_dir", m, "--max_model_len", "8192"}},
        {"KServe's server, both: the id goes, the directory is the mount", "kserve/huggingfaceserver:v0.15.2", {}, {"--model_id", "org/x", "--model_dir", "/mnt/models"},
         {"--model_dir", m}},
        {"KServe's server with no model argument reads /mnt/models", "kserve/huggingfaceserver:v0.15.2", {}, {"--model_name=llama3"},
         {"--model_name=llama3", "--model_dir=" + m}},
        {"KServe's server from a registry with a port", "registry.local:5000/kserve/huggingfaceserver:v0.15.2", {}, {"--model_id=org/x"}, {"--model_dir=" + m}},
        {"KServe's server as its module", "i", {"python3", "-m", "huggingfaceserver"}, {"--model_name=m1", "--model_id=org/x"},
         {"python3", "-m", "huggingfaceserver", "--model_name=m1", "--model_dir=" + m}},
        {"another image: --model_id is its own", "example.com/server:1", {}, {"--model_id=org/x", "--model_revision=main"}, {"--model_id=org/x", "--model_revision=main"}},
        {"TGI's launcher, --model-id spaced", "i", {"text-generation-launcher"}, {"--model-id", "org/x", "--port", "8080"},
         {"text-generation-launcher", "--model-id", m, "--port", "8080"}},
        {"TGI's image, --model-id=, its revision gone", "ghcr.io/huggingface/text-generation-inference:3.0.1", {}, {"--model-id=org/x", "--revision", "main"},
         {"--model-id=" + m}},
        {"TGI's image with no --model-id", "ghcr.io/huggingface/text-generation-inference@sha256:abc", {}, {"--port", "8080", "--num-shard", "2"},
         {"--port", "8080", "--num-shard", "2", "--model-id=" + m}},
        {"Google Cloud's TGI image with no args", "us-docker.pkg.dev/deeplearning-platform-release/gcr.io/huggingface-text-generation-inference-cu124.2-4.ubuntu2204.py311",
         {}, {}, {"--model-id=" + m}},
        {"TGI's launcher by its path, the model in command", "i", {"/usr/local/bin/text-generation-launcher", "--model-id", "org/x"}, {"--quantize", "awq"},
         {"/usr/local/bin/text-generation-launcher", "--model-id", m, "--quantize", "awq"}},
        {"an image only named like TGI's", "example.com/text-generation-inference-router:1", {}, {"--model-id=org/x"}, {"--model-id=org/x"}},
        {"NVIDIA Dynamo's vLLM worker", "nvcr.io/nvidia/ai-dynamo/vllm-runtime:0.7.1", {"python3", "-m", "dynamo.vllm"}, {"--model", "Qwen/Q", "--enforce-eager"},
         {"python3", "-m", "dynamo.vllm", "--model", m, "--enforce-eager", "--served-model-name", "Qwen/Q"}},
        {"NVIDIA Dynamo's SGLang worker", "i", {"python", "-m", "dynamo.sglang", "--model-path=Qwen/Q", "--tp", "2"}, {},
         {"python", "-m", "dynamo.sglang", "--model-path=" + m, "--tp", "2", "--served-model-name", "Qwen/Q"}},
        {"NVIDIA Dynamo's TensorRT-LLM worker, --model-path", "nvcr.io/nvidia/ai-dynamo/tensorrtllm-runtime:0.7.1", {"python3", "-m", "dynamo.trtllm"},
         {"--model-path", "meta-llama/Llama-3.1-8B-Instruct", "--served-model-name", "llama3-8b", "--max-batch-size", "2"},
         {"python3", "-m", "dynamo.trtllm", "--model-path", m, "--served-model-name", "llama3-8b", "--max-batch-size", "2"}},
        {"NVIDIA Dynamo's TensorRT-LLM worker, --model=", "i", {"python3", "-m", "dynamo.trtllm", "--model=Qwen/Q"}, {},
         {"python3", "-m", "dynamo.trtllm", "--model=" + m, "--served-model-name", "Qwen/Q"}},
        {"TEI's router, --model-id spaced", "i", {"text-embeddings-router"}, {"--model-id", "BAAI/bge-large-en-v1.5", "--revision", "refs/pr/5"},
         {"text-embeddings-router", "--model-id", m}},
        {"TEI's CPU image, --model-id=", "ghcr.io/huggingface/text-embeddings-inference:cpu-1.8", {}, {"--model-id=BAAI/bge-m3", "--port", "80"},
         {"--model-id=" + m, "--port", "80"}},
        {"Google Cloud's TEI image with no args", "us-docker.pkg.dev/deeplearning-platform-release/gcr.io/huggingface-text-embeddings-inference-cu122.1-6.ubuntu2204",
         {}, {}, {"--model-id=" + m}},
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
        {"vllm serve behind a script's \"$@\"", "vllm/vllm-openai:v0.11.0", {"/bin/bash", "-c", "pip install vllm-gguf-plugin && exec vllm serve \"$@\"", "--"},
         {"Qwen/Q", "--port", "8000", "--download-dir", "/cache"},
         {"/bin/bash", "-c", "pip install vllm-gguf-plugin && exec vllm serve \"$@\"", "--", m, "--port", "8000", "--served-model-name", "Qwen/Q"}},
        {"SGLang's module behind sh -ec, its $0 a name", "i", {"sh", "-ec", "nvidia-smi; exec python3 -m sglang.launch_server \"$@\";\n", "sglang"},
         {"--model-path", "Qwen/Q", "--tp", "2"},
         {"sh", "-ec", "nvidia-smi; exec python3 -m sglang.launch_server \"$@\";\n", "sglang", "--model-path", m, "--tp", "2", "--served-model-name", "Qwen/Q"}},
        {"an unquoted $@, the words it passes on in command", "i", {"bash", "-lc", "/usr/sbin/sshd && vllm serve $@", "vllm", "Qwen/Q"}, {},
         {"bash", "-lc", "/usr/sbin/sshd && vllm serve $@", "vllm", m, "--served-model-name", "Qwen/Q"}},
        {"TGI's launcher behind a script's \"${@}\"", "i", {"sh", "-c", "exec text-generation-launcher \"${@}\"", "tgi"}, {"--model-id", "org/x"},
         {"sh", "-c", "exec text-generation-launcher \"${@}\"", "tgi", "--model-id", m}},
        {"a script that names its model itself is not read as passing words on", "i", {"sh", "-c", "exec vllm serve Qwen/Q \"$@\"", "--"}, {"--port", "8000"},
         {"sh", "-c", "exec vllm serve Qwen/Q \"$@\"", "--", "--port", "8000"}},
        {"a script that passes its words to another program", "i", {"sh", "-c", "vllm serve /var/lib/gpustack/model & exec sidecar \"$@\"", "--"}, {"Qwen/Q"},
         {"sh", "-c", "vllm serve /var/lib/gpustack/model & exec sidecar \"$@\"", "--", "Qwen/Q"}},
        {"a script that runs the words passed on as the command", "i", {"sh", "-c", "ulimit -n 65536 && exec \"$@\"", "--"}, {"vllm", "serve", "Qwen/Q"},
         {"sh", "-c", "ulimit -n 65536 && exec \"$@\"", "--", "vllm", "serve", m, "--served-model-name", "Qwen/Q"}},
        {"a script that runs what is passed on, and nothing is", "i", {"sh", "-c", "exec \"$@\"", "--"}, {}, {"sh", "-c", "exec \"$@\"", "--"}},
        {"bash's options before -c: a long one, and o taking a name", "i", {"/bin/bash", "--noprofile", "-eo", "pipefail", "+x", "-c", "exec vllm serve \"$@\"", "--"},
         {"Qwen/Q"}, {"/bin/bash", "--noprofile", "-eo", "pipefail", "+x", "-c", "exec vllm serve \"$@\"", "--", m, "--served-model-name", "Qwen/Q"}},
        {"-o's name is no script", "i", {"bash", "-o", "pipefail", "exec vllm serve \"$@\"", "--"}, {"Qwen/Q"},
         {"bash", "-o", "pipefail", "exec vllm serve \"$@\"", "--", "Qwen/Q"}},
        {"a script run without -c is a file's name", "i", {"bash", "run.sh", "vllm serve \"$@\""}, {"Qwen/Q"}, {"bash", "run.sh", "vllm serve \"$@\"", "Qwen/Q"}},
        {"Python's options before -m, one taking a value", "i", {"python3", "-u", "-X", "faulthandler", "-m", "vllm.entrypoints.openai.api_server"},
         {"--model", "Qwen/Q"}, {"python3", "-u", "-X", "faulthandler", "-m", "vllm.entrypoints.openai.api_server", "--model", m, "--served-model-name", "Qwen/Q"}},
        {"a script's own -m is not Python's", "i", {"python3", "serve.py", "-m", "vllm.entrypoints.openai.api_server"}, {"--model", "Qwen/Q"},
         {"python3", "serve.py", "-m", "vllm.entrypoints.openai.api_server", "--model", "Qwen/Q"}},
        {"vllm serve started by tini", "i", {"/usr/bin/tini", "--", "vllm", "serve"}, {"Qwen/Q", "--port", "8000"},
         {"/usr/bin/tini", "--", "vllm", "serve", m, "--port", "8000", "--served-model-name", "Qwen/Q"}},
        {"SGLang's module started by tini with its options, a signal's value joined and apart", "i",
         {"tini", "-sg", "-p", "SIGTERM", "-e143", "--", "python3", "-m", "sglang.launch_server"}, {"--model-path", "Qwen/Q"},
         {"tini", "-sg", "-p", "SIGTERM", "-e143", "--", "python3", "-m", "sglang.launch_server", "--model-path", m, "--served-model-name", "Qwen/Q"}},
        {"vllm serve started by dumb-init, no -- before it", "i", {"dumb-init", "--single-child", "-r", "15:2", "vllm", "serve", "Qwen/Q"}, {},
         {"dumb-init", "--single-child", "-r", "15:2", "vllm", "serve", m, "--served-model-name", "Qwen/Q"}},
        {"env's variables: a hub one removed, the others kept", "i", {"env", "-u", "PYTHONPATH", "VLLM_LOGGING_LEVEL=DEBUG", "HF_HUB_ENABLE_HF_TRANSFER=1", "vllm"},
         {"serve", "Qwen/Q"}, {"env", "-u", "PYTHONPATH", "VLLM_LOGGING_LEVEL=DEBUG", "vllm", "serve", m, "--served-model-name", "Qwen/Q"}},
        {"TensorRT-LLM's MPI launcher, behind tini", "i", {"tini", "--", "trtllm-llmapi-launch", "trtllm-serve", "serve"}, {"nvidia/Q-FP8", "--tp_size", "8"},
         {"tini", "--", "trtllm-llmapi-launch", "trtllm-serve", "serve", m, "--tp_size", "8"}},
        {"a shell script behind tini, passing its words on", "i", {"tini", "--", "bash", "-c", "exec vllm serve \"$@\"", "--"}, {"Qwen/Q"},
         {"tini", "--", "bash", "-c", "exec vllm serve \"$@\"", "--", m, "--served-model-name", "Qwen/Q"}},
        {"a script that starts the engine through tini", "i", {"sh", "-c", "exec tini -- vllm serve \"$@\"", "--"}, {"Qwen/Q"},
         {"sh", "-c", "exec tini -- vllm serve \"$@\"", "--", m, "--served-model-name", "Qwen/Q"}},
        {"env -S splits a string as a shell does: not read", "i", {"env", "-S", "vllm serve Qwen/Q"}, {}, {"env", "-S", "vllm serve Qwen/Q"}},
        {"an option a launcher does not have: not read", "i", {"tini", "-x", "vllm", "serve", "Qwen/Q"}, {}, {"tini", "-x", "vllm", "serve", "Qwen/Q"}},
        {"a launcher with nothing to run", "i", {"dumb-init", "--"}, {}, {"dumb-init", "--"}},
    };
    for (const auto& c : cases) {
        DYNAMIC_SECTION(c.name) {
            CommandLineContainer engine("engine", c.command, c.args);
            ContainerView& container = engine.view;
            container.image = c.image;
            const ArgvEdits edits = plan_argv_edits(container, true);
            const std::vector<std::string> after = applied(c.command, c.args, edits);
            CHECK(after == c.after);
            // A second pass over the edited command line: nothing more to do.
            std::vector<std::string> command2(after.begin(), after.begin() + static_cast<long>(std::min(after.size(), c.command.size() - edits.command_removed.size()))),
                args2(after.begin() + static_cast<long>(command2.size()), after.end());
            std::vector<std::string> s1, s2;
            container.command = words(command2, s1);
            container.args = words(args2, s2);
            CHECK(plan_argv_edits(container, true).empty());
        }
    }
}

TEST_CASE("what cannot be edited is warned about, naming the container", "[engine_args]") {
    struct Case {
        const char* name;
        std::vector<std::string> command;
        std::vector<std::string> args;
        bool selected;
        std::vector<std::string> says;
    };
    const std::vector<Case> cases = {
        {"an engine in a shell string", {"sh", "-c", "vllm serve Qwen/Q --port 8000"}, {}, true,
         {"container \"e\": the model \"Qwen/Q\" in a shell string is not rewritten, so the engine still fetches it from the hub; run the engine in exec form, or point it at /var/lib/gpustack/model"}},
        {"the module's --model in a script over lines", {"bash", "-c"}, {"ray start --head; \\\n  python3 -m vllm.entrypoints.openai.api_server --port 8080 --model meta/L-405B"},
         true, {"container \"e\": the model \"meta/L-405B\" in a shell string is not rewritten, so the engine still fetches it from the hub"}},
        {"a quoted --model-path joined by =", {"sh", "-c", "exec python3 -m sglang.launch_server --model-path='Qwen/Q' --tp 2"}, {}, true,
         {"container \"e\": the model \"Qwen/Q\" in a shell string"}},
        {"weights from a path stay there", {"/bin/bash", "-c"}, {"python3 -m sglang.launch_server \\\n--model /llm-folder \\\n--tp 16\n"}, true,
         {"container \"e\": the model \"/llm-folder\" in a shell string is not rewritten, so the engine still reads that path, not the image; run the engine in exec form"}},
        {"vllm serve by its full path, the model last", {"sh", "-c", "/opt/venv/bin/vllm serve ./weights;"}, {}, true,
         {"container \"e\": the model \"./weights\" in a shell string is not rewritten, so the engine still reads that path"}},
        {"a model in a variable is not named", {"sh", "-c", "vllm serve $MODEL_ID --port 8000"}, {}, true,
         {"container \"e\": the model in a shell string is not rewritten, so the engine still fetches it from the hub"}},
        {"no model written", {"sh", "-c", "vllm serve --port 8000"}, {}, true, {"container \"e\": the model in a shell string is not rewritten"}},
        {"sglang serve in a shell string", {"sh", "-c", "sglang serve Qwen/Q --tp 2"}, {}, true,
         {"container \"e\": the model \"Qwen/Q\" in a shell string is not rewritten, so the engine still fetches it from the hub"}},
        {"a download flag in a shell string", {"bash", "-c"}, {"exec vllm serve /var/lib/gpustack/model --download-dir /d"}, true,
         {"container \"e\": a --download-dir inside a shell string is not removed"}},
        {"a shell string that already reads the mount", {"sh", "-c", "vllm serve /var/lib/gpustack/model"}, {}, true, {}},
        {"a hub tokenizer", {"vllm", "serve", "Qwen/Q", "--tokenizer", "Qwen/Q-tok"}, {}, true,
         {"container \"e\": --tokenizer \"Qwen/Q-tok\" names a hub repository", "now reads /var/lib/gpustack/model"}},
        {"a tokenizer path is fine", {"vllm", "serve", "/var/lib/gpustack/model", "--tokenizer=/var/lib/gpustack/model"}, {}, true, {}},
        {"SGLang's hub tokenizer", {"python3", "-m", "sglang.launch_server", "--model-path", "/var/lib/gpustack/model"}, {"--tokenizer-path", "Qwen/Q"}, true,
         {"container \"e\": --tokenizer-path \"Qwen/Q\" names a hub repository, so the engine will download the tokenizer from the hub; drop the flag to "
          "use the tokenizer in the model image"}},
        {"a hub model config", {"vllm", "serve", "/var/lib/gpustack/model", "--hf-config-path=Qwen/Q"}, {}, true,
         {"container \"e\": --hf-config-path \"Qwen/Q\" names a hub repository, so the engine will download the model config from the hub; drop the "
          "flag to use the model config in the model image"}},
        {"a model config path is fine", {"vllm", "serve", "/var/lib/gpustack/model", "--hf-config-path", "/etc/model-config"}, {}, true, {}},
        {"vLLM's draft model in --speculative-config", {"vllm", "serve", "/var/lib/gpustack/model"},
         {"--speculative-config", R"({"model": "org/draft-1b", "num_speculative_tokens": 5})"}, true,
         {"container \"e\": --speculative-config \"org/draft-1b\" names a hub repository, so the engine will download the draft model from the hub; mount "
          "it from an image"}},
        {"a speculative method with no draft model", {"vllm", "serve", "/var/lib/gpustack/model"},
         {R"(--speculative-config={"method": "ngram", "model": null, "num_speculative_tokens": 5})"}, true, {}},
        {"the key's name as another member's value first", {"vllm", "serve", "/var/lib/gpustack/model"},
         {"--speculative-config", R"({"method": "model", "model" : "org/draft"})"}, true, {"container \"e\": --speculative-config \"org/draft\" names a hub"}},
        {"a draft model from a path", {"vllm", "serve", "/var/lib/gpustack/model"}, {"--speculative-config", R"({"model":"/drafts/1b"})"}, true, {}},
        {"an older vLLM's --speculative-model", {"vllm", "serve", "/var/lib/gpustack/model", "--speculative-model=org/draft"}, {}, true,
         {"container \"e\": --speculative-model \"org/draft\" names a hub repository, so the engine will download the draft model"}},
        {"SGLang's draft model", {"python3", "-m", "sglang.launch_server", "--model-path", "/var/lib/gpustack/model"},
         {"--speculative-algorithm", "EAGLE", "--speculative-draft-model-path", "org/eagle"}, true,
         {"container \"e\": --speculative-draft-model-path \"org/eagle\" names a hub repository"}},
        {"vLLM's LoRA adapters, the second from the hub", {"vllm", "serve", "/var/lib/gpustack/model", "--enable-lora"},
         {"--lora-modules", "sql=/adapters/sql", "chat=org/chat-lora", "--port", "8000"}, true,
         {"container \"e\": --lora-modules \"org/chat-lora\" names a hub repository, so the engine will download the LoRA adapter from the hub; "
          "mount it from an image"}},
        {"LoRA adapters from paths", {"vllm", "serve", "/var/lib/gpustack/model"}, {"--lora-modules", "sql=/adapters/sql", "--lora-modules=chat=./chat"}, true, {}},
        {"a LoRA adapter as JSON, from the hub", {"python3", "-m", "vllm.entrypoints.openai.api_server", "--model", "/var/lib/gpustack/model"},
         {"--lora-modules", R"({"name": "food-review-1", "path": "Kawon/llama3.1-food-finetune_v14_r8", "base_model_name": "meta-llama/Llama-3.1-8B"})"}, true,
         {"container \"e\": --lora-modules \"Kawon/llama3.1-food-finetune_v14_r8\" names a hub repository"}},
        {"a LoRA adapter as JSON, from a path", {"vllm", "serve", "/var/lib/gpustack/model"}, {"--lora-modules", R"({"name":"sql","base_path":"org/x","path":"/adapters/sql"})"},
         true, {}},
        {"a LoRA adapter as JSON with no path", {"vllm", "serve", "/var/lib/gpustack/model"}, {"--lora-modules", R"({"name": "food-review-1"})"}, true, {}},
        {"SGLang's LoRA path joined by =", {"python3", "-m", "sglang.launch_server", "--model-path", "/var/lib/gpustack/model", "--lora-paths=org/lora"}, {}, true,
         {"container \"e\": --lora-paths \"org/lora\" names a hub repository"}},
        {"a LoRA flag on another program", {"trainer"}, {"--lora-modules", "a=org/x"}, true, {}},
        {"the rewrite says what changed", {"vllm", "serve", "Qwen/Q"}, {}, true,
         {"container \"e\": the model argument \"Qwen/Q\" now reads /var/lib/gpustack/model; --served-model-name \"Qwen/Q\" is added"}},
        {"a download step in exec form", {"huggingface-cli", "download"}, {"Qwen/Q", "--include", "tokenizer*"}, false,
         {"container \"e\": huggingface-cli download still fetches from the hub; the model image holds the weights: drop the step"}},
        {"the new hub CLI by its path", {"/usr/local/bin/hf"}, {"download", "Qwen/Q", "--local-dir", "/models"}, false,
         {"container \"e\": hf download still fetches"}},
        {"a download inside a script", {"sh", "-c", "pip install modelscope && modelscope download --model Qwen/Q --local_dir /m"}, {}, false,
         {"container \"e\": modelscope download still fetches"}},
        {"snapshot_download() from python -c", {"python3", "-c", "from huggingface_hub import snapshot_download; snapshot_download('Qwen/Q', local_dir='/m')"},
         {}, false, {"container \"e\": snapshot_download() still fetches"}},
        {"a download step beside a server it starts", {"sh", "-c", "huggingface-cli download Qwen/Q && vllm serve Qwen/Q"}, {}, true,
         {"container \"e\": huggingface-cli download still fetches", "the model \"Qwen/Q\" in a shell string"}},
        {"download as an argument of something else", {"curl"}, {"-o", "download", "https://example.com/hf"}, false, {}},
        {"a lookalike program", {"myhf", "download"}, {}, false, {}},
        {"a container not selected is not rewritten", {"vllm", "serve", "Qwen/Q"}, {}, false, {}},
        {"TGI in a shell string", {"/bin/sh", "-c"}, {"text-generation-launcher --model-id=org/x --port 80"}, true,
         {"container \"e\": the model \"org/x\" in a shell string is not rewritten, so the engine still fetches it from the hub"}},
        {"TGI's rewrite says what changed", {"text-generation-launcher"}, {"--model-id", "org/x"}, true,
         {"container \"e\": the model argument \"org/x\" now reads /var/lib/gpustack/model; TGI serves it under any name a request gives"}},
        {"TGI's default model from the hub", {"text-generation-launcher"}, {"--port", "80"}, true,
         {"container \"e\": --model-id=/var/lib/gpustack/model added: TGI loads the image's weights, not its default model from the hub"}},
        {"NVIDIA Dynamo's worker in a shell string", {"/bin/sh", "-c"}, {"python3 -m dynamo.vllm --model meta-llama/Llama-3.1-8B-Instruct --max-model-len 8192"}, true,
         {"container \"e\": the model \"meta-llama/Llama-3.1-8B-Instruct\" in a shell string is not rewritten, so the engine still fetches it from the hub"}},
        {"NVIDIA Dynamo's TensorRT-LLM worker in a shell string", {"bash", "-c"},
         {"trtllm-llmapi-launch python3 -m dynamo.trtllm --model-path nvidia/DeepSeek-R1-FP4 --served-model-name dsr1 --extra-engine-args /cfg/agg.yaml"}, true,
         {"container \"e\": the model \"nvidia/DeepSeek-R1-FP4\" in a shell string is not rewritten, so the engine still fetches it from the hub"}},
        {"NVIDIA Dynamo's frontend is no engine", {"python3", "-m", "dynamo.frontend", "--http-port=8000"}, {}, true, {}},
        {"TEI in a shell string", {"bash", "-c", "exec text-embeddings-router --model-id BAAI/bge-m3 --port 80"}, {}, true,
         {"container \"e\": the model \"BAAI/bge-m3\" in a shell string is not rewritten"}},
        {"TEI's rewrite says what changed", {"/usr/local/bin/text-embeddings-router", "--model-id=BAAI/bge-m3"}, {}, true,
         {"container \"e\": the model argument \"BAAI/bge-m3\" now reads /var/lib/gpustack/model; TEI serves it under any name a request gives"}},
        {"TGI's LoRA adapters, the second from the hub", {"text-generation-launcher", "--model-id", "/var/lib/gpustack/model"},
         {"--lora-adapters", "sql=/adapters/sql,org/chat-lora"}, true,
         {"container \"e\": --lora-adapters \"org/chat-lora\" names a hub repository, so the engine will download the LoRA adapter from the hub; "
          "mount it from an image"}},
        {"TensorRT-LLM's rewrite says what clients will see", {"trtllm-serve", "serve", "meta-llama/L"}, {"--port", "8000"}, true,
         {"container \"e\": the model argument \"meta-llama/L\" now reads /var/lib/gpustack/model; TensorRT-LLM names it \"model\" (the directory's name) "
          "to clients unless --served_model_name is given"}},
        {"TensorRT-LLM given its served name", {"trtllm-serve", "meta-llama/L"}, {"--served_model_name", "llama"}, true,
         {"container \"e\": the model argument \"meta-llama/L\" now reads /var/lib/gpustack/model; clients keep the --served_model_name already given"}},
        {"TensorRT-LLM's tokenizer from the hub", {"trtllm-serve", "serve", "/var/lib/gpustack/model"}, {"--tokenizer", "org/tok"}, true,
         {"container \"e\": --tokenizer \"org/tok\" names a hub repository"}},
        {"TensorRT-LLM in a shell string", {"bash", "-c", "trtllm-serve serve nvidia/Llama-3.1-8B-Instruct-FP8 --host 0.0.0.0"}, {}, true,
         {"container \"e\": the model \"nvidia/Llama-3.1-8B-Instruct-FP8\" in a shell string is not rewritten, so the engine still fetches it from the hub"}},
        {"a script that names its model and passes the rest on", {"sh", "-c", "exec vllm serve Qwen/Q \"$@\"", "--"}, {"--port", "8000"}, true,
         {"container \"e\": the model \"Qwen/Q\" in a shell string is not rewritten, so the engine still fetches it from the hub"}},
        {"the rewrite behind a script says what changed", {"bash", "-c", "exec vllm serve \"$@\"", "--"}, {"Qwen/Q", "--tokenizer", "Qwen/Q-tok"}, true,
         {"container \"e\": the model argument \"Qwen/Q\" now reads /var/lib/gpustack/model; --served-model-name \"Qwen/Q\" is added",
          "container \"e\": --tokenizer \"Qwen/Q-tok\" names a hub repository"}},
        {"TGI's LoRA adapters joined by =, from paths", {"text-generation-launcher", "--model-id=/var/lib/gpustack/model", "--lora-adapters=a=/l/a,b=./b"}, {},
         true, {}},
        {"a token exported in a script, named and not shown", {"sh", "-c", "export HF_TOKEN=hf_secret && exec vllm serve /var/lib/gpustack/model"}, {}, false,
         {"container \"e\": HF_TOKEN set inside a shell string is not removed"}},
        {"variables before the command, the others counted", {"bash", "-c"}, {"HF_HUB_OFFLINE=0 https_proxy=http://p:3128 LANG=C HF_HUB_OFFLINE=1 ./run.sh"},
         false, {"container \"e\": HF_HUB_OFFLINE set inside a shell string is not removed (nor the other hub or proxy variables it sets)"}},
        {"names that only end like a variable, or are values", {"sh", "-c", "run --hf_token=x MY_HF_TOKEN=y URL=http://h/?HF_X=1 echo 1=2"}, {}, false, {}},
        {"an argument that is one assignment is no shell string", {"./server"}, {"HF_TOKEN=x"}, false, {}},
        {"an assignment only printed sets nothing", {"sh", "-c", "echo \"HF_TOKEN=hf_secret\"; printf 'HTTPS_PROXY=%s' x; exec vllm serve /var/lib/gpustack/model"},
         {}, false, {}},
        {"an assignment after an option of a program sets nothing", {"sh", "-c", "run -e HF_TOKEN=hf_secret && echo A=1 HF_HOME=/c"}, {}, false, {}},
        {"a quoted export sets the variable", {"sh", "-c", "export \"HF_TOKEN=hf_secret\"; exec vllm serve /var/lib/gpustack/model"}, {}, false,
         {"container \"e\": HF_TOKEN set inside a shell string is not removed"}},
        {"declare -x after a keyword sets the variable", {"bash", "-c", "if true; then declare -x HF_HUB_OFFLINE=0; fi"}, {}, false,
         {"container \"e\": HF_HUB_OFFLINE set inside a shell string is not removed"}},
        {"an assignment on its own line of a script", {"/bin/sh", "-c", "set -e\nHTTPS_PROXY=http://p:3128\nexec ./serve"}, {}, false,
         {"container \"e\": HTTPS_PROXY set inside a shell string is not removed"}},
        {"env's assignments inside a script", {"sh", "-c", "exec env LANG=C HF_TOKEN=hf_secret vllm serve /var/lib/gpustack/model"}, {}, false,
         {"container \"e\": HF_TOKEN set inside a shell string is not removed"}},
    };
    for (const auto& c : cases) {
        DYNAMIC_SECTION(c.name) {
            const CommandLineContainer container("e", c.command, c.args);
            const ArgvEdits edits = plan_argv_edits(container.view, c.selected);
            CHECK(edits.warnings.size() == c.says.size());
            for (const auto& fragment : c.says) {
                const bool found = std::any_of(edits.warnings.begin(), edits.warnings.end(), [&](const std::string& w) { return w.find(fragment) != std::string::npos; });
                INFO(fragment);
                CHECK(found);
            }
            if (!c.selected) CHECK(edits.replacements.empty());
            for (const auto& w : edits.warnings) CHECK(w.find("hf_secret") == std::string::npos);
        }
    }
}

TEST_CASE("an engine started through a launcher whose options are not read is warned about, not edited", "[engine_args]") {
    struct Case {
        const char* name;
        std::vector<std::string> command;
        std::vector<std::string> args;
        const char* warning;  // the one warning, whole; empty for none
    };
    const std::vector<Case> cases = {
        {"TensorRT-LLM under mpirun", {"mpirun", "--allow-run-as-root", "-np", "16", "trtllm-llmapi-launch", "trtllm-serve"}, {"nvidia/Q-FP8", "--tp_size", "16"},
         "container \"e\": the engine after command[0] (options unknown) is not edited: it loads \"nvidia/Q-FP8\", not the image; "
         "make the engine command[0] or pass /var/lib/gpustack/model"},
        {"vllm serve under numactl, its model a path", {"/usr/bin/numactl", "--interleave=all", "vllm", "serve", "/models/llama"}, {},
         "container \"e\": the engine after command[0] (options unknown) is not edited: it loads \"/models/llama\", not the image; "
         "make the engine command[0] or pass /var/lib/gpustack/model"},
        {"SGLang's module, --model-path joined", {"taskset", "-c", "0-7", "python3", "-u", "-m", "sglang.launch_server"}, {"--model-path=Qwen/Q"},
         "container \"e\": the engine after command[0] (options unknown) is not edited: it loads \"Qwen/Q\", not the image; "
         "make the engine command[0] or pass /var/lib/gpustack/model"},
        {"TGI given no model", {"chrt", "-r", "10", "text-generation-launcher"}, {"--port", "80"},
         "container \"e\": the engine after command[0] (options unknown) is not edited; make the engine command[0] or pass /var/lib/gpustack/model"},
        {"an engine that already reads the mount", {"numactl", "-N", "0", "vllm", "serve", "/var/lib/gpustack/model"}, {}, ""},
        {"vLLM with no model: its own warning", {"numactl", "-N", "0", "vllm", "serve"}, {"--port", "8000"},
         "container \"e\": no model on the command line: vLLM serves its default model from the hub; pass /var/lib/gpustack/model as the model"},
        {"a program that only mentions an engine", {"benchmark"}, {"--backend", "vllm", "--model", "Qwen/Q"}, ""},
        {"python running a script, -m far after it", {"python3", "bench.py", "a", "b", "c", "d", "-m", "vllm.entrypoints.openai.api_server"}, {}, ""},
    };
    for (const auto& c : cases) {
        DYNAMIC_SECTION(c.name) {
            CommandLineContainer container("e", c.command, c.args);
            const ArgvEdits edits = plan_argv_edits(container.view, true);
            CHECK(edits.empty());
            if (*c.warning == '\0') {
                CHECK(edits.warnings.empty());
            } else {
                REQUIRE(edits.warnings.size() == 1);
                CHECK(edits.warnings[0] == c.warning);
            }
        }
    }
    SECTION("the longest container name and model leave the advice whole") {
        const std::string name(63, 'n');
        CommandLineContainer container(name, {std::string(300, 'l'), "vllm", "serve", "org/" + std::string(300, 'm')}, {});
        const ArgvEdits edits = plan_argv_edits(container.view, true);
        REQUIRE(edits.warnings.size() == 1);
        CHECK(edits.warnings[0].size() <= 256);
        CHECK(edits.warnings[0].find(", not the image; make the engine command[0] or pass /var/lib/gpustack/model") != std::string::npos);
    }
}

TEST_CASE("a hub repository's warning keeps its advice whole however long the names", "[engine_args]") {
    const std::string name(300, 'n');  // the views point into it
    const std::string value = "org/" + std::string(300, 'v');
    const std::vector<std::pair<std::vector<std::string>, std::string>> command_lines = {
        {{"vllm", "serve", "/var/lib/gpustack/model", "--tokenizer", value}, "drop the flag to use the tokenizer in the model image"},
        {{"python3", "-m", "sglang.launch_server", "--model-path", "/m", "--speculative-draft-model-path", value}, "mount it from an image"},
        {{"vllm", "serve", "/var/lib/gpustack/model", "--lora-modules", "a=" + value}, "mount it from an image"},
    };
    for (const auto& [command, advice] : command_lines) {
        CommandLineContainer container(name, command, {});
        const ArgvEdits edits = plan_argv_edits(container.view, true);
        const auto hub = std::find_if(edits.warnings.begin(), edits.warnings.end(), [](const std::string& w) { return w.find("names a hub repository") != std::string::npos; });
        REQUIRE(hub != edits.warnings.end());
        CHECK(hub->size() <= 256);
        CHECK(hub->substr(hub->size() - advice.size()) == advice);
    }
}

TEST_CASE("the rewrite's warning keeps what was added whole however long the names", "[engine_args]") {
    const std::string name(300, 'n'), model = "org/" + std::string(300, 'v');  // the views point into them
    const std::vector<std::pair<std::vector<std::string>, std::string>> command_lines = {
        {{"vllm", "serve", model}, "vvv...\" is added so clients keep calling it by that name"},
        {{"vllm", "serve", model, "--served-model-name", "x"}, "vvv...\" now reads /var/lib/gpustack/model; clients keep the --served-model-name already given"},
        {{"trtllm-serve", "serve", model}, "vvv...\" now reads /var/lib/gpustack/model; TensorRT-LLM names it \"model\" (the directory's name) to clients "
                                           "unless --served_model_name is given"},
    };
    for (const auto& [command, end] : command_lines) {
        CommandLineContainer container(name, command, {});
        const ArgvEdits edits = plan_argv_edits(container.view, true);
        REQUIRE(edits.warnings.size() == 1);
        const std::string& warning = edits.warnings[0];
        INFO(warning);
        CHECK(warning.size() <= 256);
        CHECK(warning.size() >= 200);  // cut no more than it must
        CHECK(warning.substr(warning.size() - end.size()) == end);
        CHECK_THAT(warning, Catch::StartsWith("container \"nnn"));  // the name is cut too, and still says whose
    }
    // A warning inside the bound is left whole.
    const std::string long_name(40, 'n');  // 246 bytes in all
    CommandLineContainer container(long_name, {"vllm", "serve", "meta-llama/Llama-3.1-8B-Instruct"}, {});
    const ArgvEdits edits = plan_argv_edits(container.view, true);
    REQUIRE(edits.warnings.size() == 1);
    CHECK(edits.warnings[0] == "container \"" + long_name + "\": the model argument \"meta-llama/Llama-3.1-8B-Instruct\" now reads /var/lib/gpustack/model; "
                               "--served-model-name \"meta-llama/Llama-3.1-8B-Instruct\" is added so clients keep calling it by that name");
    // TensorRT-LLM's, with an 80-byte model that fits beside a short name (245 bytes in all).
    const std::string model_80 = "org/" + std::string(76, 'm');
    CommandLineContainer trtllm("t", {"trtllm-serve", "serve", model_80}, {});
    CHECK(plan_argv_edits(trtllm.view, true).warnings ==
          std::vector<std::string>{"container \"t\": the model argument \"" + model_80 + "\" now reads /var/lib/gpustack/model; TensorRT-LLM names it \"model\" "
                                   "(the directory's name) to clients unless --served_model_name is given"});
}

TEST_CASE("the served name keeps what the kubelet would have expanded", "[engine_args]") {
    struct Case {
        const char* name;
        std::string model;
        std::vector<EnvVarView> env;
        std::string served;
    };
    const std::vector<Case> cases = {
        {"a variable that stays expands as before", "$(MODEL_ID)", {{"MODEL_ID", true, "meta-llama/Meta-Llama-3-8B"}}, "$(MODEL_ID)"},
        {"a removed variable is written out", "$(HF_MODEL_ID)", {{"HF_MODEL_ID", true, "Qwen/Q"}}, "Qwen/Q"},
        {"its last definition, as the kubelet takes it", "$(HF_MODEL_ID)", {{"HF_MODEL_ID", true, "a/first"}, {"HF_MODEL_ID", true, "b/last"}}, "b/last"},
        {"a removed variable from a Secret is not known", "$(HF_MODEL_ID)", {{"HF_MODEL_ID", false, {}}}, "$(HF_MODEL_ID)"},
        {"a reference to nothing is left as written", "$(HF_MODEL_ID)", {}, "$(HF_MODEL_ID)"},
        {"a reference inside a longer value is left as written", "org/$(HF_MODEL)", {{"HF_MODEL", true, "q"}}, "org/$(HF_MODEL)"},
    };
    for (const auto& c : cases) {
        DYNAMIC_SECTION(c.name) {
            CommandLineContainer container("engine", {"vllm", "serve"}, {"--model=" + c.model});
            container.view.image = "i";
            container.view.env = c.env;
            const ArgvEdits edits = plan_argv_edits(container.view, true);
            CHECK(edits.appended_args == std::vector<std::string>{"--served-model-name", c.served});
        }
    }
}

TEST_CASE("a download step that set a token or a proxy is told it runs without them", "[engine_args]") {
    struct Case {
        const char* name;
        std::vector<EnvVarView> env;
        bool loses;
    };
    const std::vector<Case> cases = {
        {"a token from a Secret", {{"HF_TOKEN", false, {}}}, true},
        {"a proxy", {{"PYTHONUNBUFFERED", true, "1"}, {"https_proxy", true, "http://p:3128"}}, true},
        {"nothing the delivery removes", {{"PYTHONUNBUFFERED", true, "1"}}, false},
        {"no env", {}, false},
    };
    for (const auto& c : cases) {
        DYNAMIC_SECTION(c.name) {
            CommandLineContainer container("fetch", {"huggingface-cli", "download"}, {"Qwen/Q"});
            container.view.env = c.env;
            const ArgvEdits edits = plan_argv_edits(container.view, false);
            REQUIRE(edits.warnings.size() == 1);
            CHECK(edits.warnings[0] ==
                  std::string("container \"fetch\": huggingface-cli download still fetches from the hub") +
                      (c.loses ? ", now without its hub and proxy variables (a gated or proxied download fails)" : "") +
                      "; the model image holds the weights: drop the step");
        }
    }
}

TEST_CASE("env's hub and proxy variables leave every container's command line, as they leave its env", "[engine_args]") {
    struct Case {
        const char* name;
        std::vector<std::string> command;
        std::vector<std::string> args;
        std::vector<std::string> after;  // command then args, once edited
        const char* warning;  // the one warning's start, or empty
    };
    const std::vector<Case> cases = {
        {"a download step given a token and a proxy by env", {"env", "HF_TOKEN=hf_secret", "https_proxy=http://p:3128", "LANG=C"},
         {"huggingface-cli", "download", "Qwen/Q"}, {"env", "LANG=C", "huggingface-cli", "download", "Qwen/Q"},
         "container \"fetch\": huggingface-cli download still fetches from the hub, now without its hub and proxy variables"},
        {"behind tini, env's options first", {"tini", "--", "env", "-i", "HF_HUB_OFFLINE=1", "./serve.sh"}, {}, {"tini", "--", "env", "-i", "./serve.sh"}, ""},
        {"words after the command are its own", {"env", "LANG=C", "./run.sh"}, {"HF_TOKEN=x"}, {"env", "LANG=C", "./run.sh", "HF_TOKEN=x"}, ""},
        {"with no command, the words are the entrypoint's", {}, {"env", "HF_TOKEN=x", "run"}, {"env", "HF_TOKEN=x", "run"}, ""},
    };
    for (const auto& c : cases) {
        DYNAMIC_SECTION(c.name) {
            CommandLineContainer container("fetch", c.command, c.args);
            const ArgvEdits edits = plan_argv_edits(container.view, false);
            CHECK(applied(c.command, c.args, edits) == c.after);
            check_single_warning(edits, c.warning);
            // The values are never worded into a warning.
            for (const auto& w : edits.warnings) CHECK(w.find("hf_secret") == std::string::npos);
        }
    }
}

TEST_CASE("KServe's server and storage initializer are told where the weights now come from", "[engine_args]") {
    struct Case {
        const char* name;
        std::string image;
        std::vector<std::string> args;
        std::vector<EnvVarView> env;
        bool selected;
        std::string says;  // empty: no warning
    };
    const std::string m = "/var/lib/gpustack/model";
    const std::string server = "kserve/huggingfaceserver:v0.15.2-gpu";
    const std::string initializer = "kserve/storage-initializer:v0.15.2";
    const std::vector<Case> cases = {
        {"a hub id", server, {"--model_name=llama3", "--model_id=meta-llama/L"}, {}, true,
         "container \"e\": --model_id \"meta-llama/L\" dropped, --model_dir " + m + " added: the server loads the image's weights, not the hub's"},
        {"a hub id beside the directory", server, {"--model_id=org/x", "--model_dir=/mnt/models"}, {}, true,
         "container \"e\": --model_id \"org/x\" dropped, --model_dir now reads " + m + ": the server loads the image's weights, not the hub's"},
        {"a hub id beside the mount", server, {"--model_id=org/x", "--model_dir=" + m + "/"}, {}, true,
         "container \"e\": --model_id \"org/x\" dropped, --model_dir reads " + m + ": the server loads the image's weights, not the hub's"},
        {"another directory", server, {"--model_dir", "/data/llama"}, {}, true,
         "container \"e\": --model_dir now reads " + m + ", not \"/data/llama\": the server loads the image's weights"},
        {"no model argument", server, {"--model_name=llama3"}, {}, true,
         "container \"e\": --model_dir " + m + " added: the server loads the image's weights, not /mnt/models (where its storage initializer downloads)"},
        {"already the mount", server, {"--model_dir=" + m}, {}, true, ""},
        {"the server in a container not selected", server, {"--model_id=org/x"}, {}, false, ""},
        {"the storage initializer with a token", initializer, {"hf://meta-llama/L", "/mnt/models"}, {{"HF_TOKEN", false, {}}}, false,
         "container \"e\": downloads the InferenceService's storageUri, now without its hub and proxy variables (a gated or proxied download fails); the model image "
         "holds the weights: drop the storageUri"},
        {"the storage initializer from S3", "quay.io/modh/kserve-storage-initializer@sha256:abc", {"s3://models/llama", "/mnt/models"}, {}, false,
         "container \"e\": downloads the InferenceService's storageUri; the model image holds the weights: drop the storageUri"},
        {"a storage initializer with no arguments", initializer, {}, {}, false, ""},
    };
    for (const auto& c : cases) {
        DYNAMIC_SECTION(c.name) {
            CommandLineContainer container("e", {}, c.args);
            container.view.image = c.image;
            container.view.env = c.env;
            const ArgvEdits edits = plan_argv_edits(container.view, c.selected);
            if (c.says.empty()) {
                CHECK(edits.warnings.empty());
            } else {
                REQUIRE(edits.warnings.size() == 1);
                CHECK(edits.warnings[0] == c.says);
            }
        }
    }
    SECTION("the longest container name and values leave the advice whole") {
        const std::string name(300, 'n');  // the views point into it
        const std::string long_value = "org/" + std::string(300, 'x');
        CommandLineContainer server_container(name, {}, {"--model_id=" + long_value, "--model_dir=/" + std::string(300, 'd')});
        server_container.view.image = server;
        CommandLineContainer initializer_container(name, {}, {"hf://" + long_value, "/mnt/models"});
        initializer_container.view.image = initializer;
        initializer_container.view.env = {{"HF_TOKEN", false, {}}};
        for (const auto* container : {&server_container, &initializer_container}) {
            const ArgvEdits edits = plan_argv_edits(container->view, container == &server_container);
            REQUIRE(edits.warnings.size() == 1);
            CHECK(edits.warnings[0].size() <= 256);
            const std::string_view end = container == &server_container ? ", not the hub's" : "drop the storageUri";
            CHECK(std::string_view(edits.warnings[0]).substr(edits.warnings[0].size() - end.size()) == end);
        }
    }
}

TEST_CASE("an engine given no model is told where its weights will come from", "[engine_args]") {
    struct Case {
        const char* name;
        std::string image;
        std::vector<std::string> command;
        std::vector<std::string> args;
        bool selected;
        std::string says;  // empty: no warning
    };
    const std::string m = "/var/lib/gpustack/model";
    const std::vector<Case> cases = {
        {"vllm serve reading a config file", "i", {"vllm", "serve"}, {"--config", "/etc/vllm/config.yaml", "--port", "8000"}, true,
         "container \"e\": no model on the command line: the engine loads the one --config \"/etc/vllm/config.yaml\" names; pass " + m + " as the model"},
        {"the vllm-openai entrypoint with a config file", "vllm/vllm-openai:v0.11.0", {}, {"--config=/cfg/serve.yaml"}, true,
         "container \"e\": no model on the command line: the engine loads the one --config \"/cfg/serve.yaml\" names"},
        {"the vllm-openai entrypoint with no args", "vllm/vllm-openai:v0.11.0", {}, {}, true,
         "container \"e\": no model on the command line: vLLM serves its default model from the hub; pass " + m + " as the model"},
        {"the api_server module without --model", "i", {"python3", "-m", "vllm.entrypoints.openai.api_server", "--port", "8000"}, {}, true,
         "container \"e\": no model on the command line: vLLM serves its default model from the hub"},
        {"sglang without --model-path", "i", {"python3", "-m", "sglang.launch_server"}, {"--port", "30000"}, true,
         "container \"e\": no model on the command line: SGLang will not start; pass --model-path " + m},
        {"sglang serve without a model", "i", {"sglang", "serve", "--model-type", "llm"}, {"--port", "30000"}, true,
         "container \"e\": no model on the command line: SGLang will not start"},
        {"Dynamo's TensorRT-LLM worker without a model", "i", {"python3", "-m", "dynamo.trtllm"}, {"--extra-engine-args", "/cfg/agg.yaml"}, true,
         "container \"e\": no model on the command line: the worker loads DYN_TRTLLM_MODEL or its default model from the hub; pass --model-path " + m},
        {"trtllm-serve without a model", "i", {"trtllm-serve", "serve"}, {"--host", "0.0.0.0", "--trust_remote_code"}, true,
         "container \"e\": no model on the command line: TensorRT-LLM will not start; pass " + m + " as the model"},
        {"trtllm-serve with a config file and no model", "i", {"trtllm-serve"}, {"--config", "/etc/trtllm/extra.yaml"}, true,
         "container \"e\": no model on the command line: TensorRT-LLM will not start"},
        {"a container not selected is not told", "i", {"vllm", "serve"}, {"--config", "/etc/vllm/config.yaml"}, false, ""},
        {"a model on the command line beside a config file", "i", {"vllm", "serve", m}, {"--config", "/etc/vllm/config.yaml"}, true, ""},
        {"another program with no model", "i", {"ray", "start", "--head"}, {}, true, ""},
        {"vllm behind a script, its model taken as the shell's $0", "i", {"bash", "-c", "exec vllm serve \"$@\""}, {"Qwen/Q", "--port", "8000"}, true,
         "container \"e\": no model in the words after the script's $0: vLLM serves its default model from the hub; pass " + m + " as the model"},
        {"SGLang behind a script with nothing passed on", "i", {"sh", "-c", "exec python3 -m sglang.launch_server \"$@\"", "sglang"}, {}, true,
         "container \"e\": no model in the words after the script's $0: SGLang will not start; pass --model-path " + m},
    };
    for (const auto& c : cases) {
        DYNAMIC_SECTION(c.name) {
            CommandLineContainer container("e", c.command, c.args);
            container.view.image = c.image;
            const ArgvEdits edits = plan_argv_edits(container.view, c.selected);
            CHECK(edits.empty());
            check_single_warning(edits, c.says);
        }
    }
    SECTION("the longest container name and config path leave the advice whole") {
        // Warnings past 256 bytes are cut; this one is built to stay inside.
        const std::string name(300, 'n');  // the view points into it
        CommandLineContainer container(name, {"vllm", "serve"}, {"--config=/" + std::string(300, 'c')});
        const ArgvEdits edits = plan_argv_edits(container.view, true);
        REQUIRE(edits.warnings.size() == 1);
        CHECK(edits.warnings[0].size() <= 256);
        CHECK(edits.warnings[0].rfind("; pass /var/lib/gpustack/model as the model") == edits.warnings[0].size() - 43);
    }
    SECTION("behind a shell script too") {
        const std::string name(300, 'n');
        CommandLineContainer container(name, {"sh", "-c", "exec vllm serve \"$@\"", "--"}, {"--config=/" + std::string(300, 'c')});
        const ArgvEdits edits = plan_argv_edits(container.view, true);
        REQUIRE(edits.warnings.size() == 1);
        CHECK(edits.warnings[0].find("no model in the words after the script's $0: the engine loads the one --config") != std::string::npos);
        CHECK(edits.warnings[0].size() <= 256);
        CHECK(edits.warnings[0].rfind("; pass /var/lib/gpustack/model as the model") == edits.warnings[0].size() - 43);
    }
}

TEST_CASE("TGI and TEI with no --model-id are given the mount over their MODEL_ID", "[engine_args]") {
    struct Env {
        std::string name;
        bool has_string_value;
        std::string value;
    };
    struct Case {
        const char* name;
        std::vector<std::string> args;
        std::vector<Env> env;
        bool env_from;
        std::vector<std::string> appended;
        std::string says;  // empty: no warning
    };
    const std::string m = "/var/lib/gpustack/model";
    const std::string added = "container \"tgi\": --model-id=" + m + " added: TGI loads the image's weights, not ";
    const std::vector<Case> cases = {
        {"the model in MODEL_ID, as Google's GKE guide writes it", {}, {{"NUM_SHARD", true, "1"}, {"MODEL_ID", true, "google/gemma-2-9b-it"}}, false,
         {"--model-id=" + m}, added + "MODEL_ID \"google/gemma-2-9b-it\""},
        {"MODEL_ID from a ConfigMap", {"--port", "80"}, {{"MODEL_ID", false, ""}}, false, {"--model-id=" + m}, added + "the model its MODEL_ID names"},
        {"no MODEL_ID, but envFrom", {}, {}, true, {"--model-id=" + m}, added + "a MODEL_ID from envFrom or its default model from the hub"},
        {"MODEL_ID already the mount", {}, {{"MODEL_ID", true, m + "/"}}, false, {}, ""},
        {"the last MODEL_ID counts: the mount", {}, {{"MODEL_ID", true, "org/x"}, {"MODEL_ID", true, m}}, false, {}, ""},
        {"the last MODEL_ID counts: the hub", {}, {{"MODEL_ID", true, m}, {"MODEL_ID", true, "org/y"}}, false, {"--model-id=" + m}, added + "MODEL_ID \"org/y\""},
        {"a --model-id beside MODEL_ID is the one rewritten", {"--model-id", "org/x"}, {{"MODEL_ID", true, "org/x"}}, false, {},
         "container \"tgi\": the model argument \"org/x\" now reads " + m},
        {"a --model-id with no value is no model", {"--model-id", "--port", "80"}, {}, false, {"--model-id=" + m}, added + "its default model from the hub"},
    };
    for (const auto& c : cases) {
        DYNAMIC_SECTION(c.name) {
            CommandLineContainer container("tgi", {}, c.args);
            container.view.image = "ghcr.io/huggingface/text-generation-inference:3.3.6";
            for (const auto& e : c.env) container.view.env.push_back(EnvVarView{e.name, e.has_string_value, e.value});
            container.view.has_env = !c.env.empty();
            container.view.has_env_from = c.env_from;
            const ArgvEdits edits = plan_argv_edits(container.view, true);
            CHECK(edits.appended_args == c.appended);
            check_single_warning(edits, c.says);
        }
    }
    SECTION("TEI with no MODEL_ID is given the mount, which it needs to start") {
        CommandLineContainer tei("tei", {}, {"--port", "80"});
        tei.view.image = "ghcr.io/huggingface/text-embeddings-inference:1.8";
        const ArgvEdits edits = plan_argv_edits(tei.view, true);
        CHECK(edits.appended_args == std::vector<std::string>{"--model-id=" + m});
        CHECK(edits.warnings == std::vector<std::string>{"container \"tei\": --model-id=" + m + " added: TEI loads the image's weights"});
        tei.view.has_env_from = true;
        CHECK(plan_argv_edits(tei.view, true).warnings ==
              std::vector<std::string>{"container \"tei\": --model-id=" + m + " added: TEI loads the image's weights, not a MODEL_ID from envFrom"});
    }
    SECTION("the longest container name and model leave the advice whole") {
        const std::string name(300, 'n'), model = "org/" + std::string(300, 'v');  // the views point into them
        CommandLineContainer spaced(name, {"text-generation-launcher"}, {"--model-id", model});
        CommandLineContainer from_env(name, {"text-generation-launcher"}, {});
        from_env.view.env.push_back(EnvVarView{"MODEL_ID", true, model});
        for (const auto* container : {&spaced.view, &from_env.view}) {
            const ArgvEdits edits = plan_argv_edits(*container, true);
            REQUIRE(edits.warnings.size() == 1);
            CHECK(edits.warnings[0].size() <= 256);
            CHECK(edits.warnings[0].find("... (304 bytes)") != std::string::npos);
        }
        CHECK(plan_argv_edits(spaced.view, true).warnings[0].rfind("; TGI serves it under any name a request gives") != std::string::npos);
    }
}

// An engine that is warned about and never edited: each case's container,
// planned as selected, is left as it is and says `says` (nothing when empty).
struct WarnedOnlyCase {
    const char* name;
    std::string image;
    std::vector<std::string> command;
    std::vector<std::string> args;
    std::vector<EnvVarView> env;
    std::string says;
    bool env_from = false;
};

void check_warned_only(const std::vector<WarnedOnlyCase>& cases) {
    for (const auto& c : cases) {
        DYNAMIC_SECTION(c.name) {
            CommandLineContainer container("e", c.command, c.args);
            container.view.image = c.image;
            container.view.env = c.env;
            container.view.has_env_from = c.env_from;
            const ArgvEdits edits = plan_argv_edits(container.view, true);
            CHECK(edits.empty());
            if (c.says.empty()) {
                CHECK(edits.warnings.empty());
            } else {
                CHECK(edits.warnings == std::vector<std::string>{c.says});
            }
        }
    }
}

TEST_CASE("NVIDIA NIM is told where its model comes from, and not edited", "[engine_args]") {
    const std::string m = "/var/lib/gpustack/model";
    const std::string model_specific = "nvcr.io/nim/meta/llama-3.1-8b-instruct:1.3.3";
    const std::string model_free = "nvcr.io/nim/nvidia/llm-nim:2.0.1";
    const std::string m_slash = m + "/";  // the views point into it
    const std::string from_ngc = "container \"e\": NVIDIA NIM loads the model its image names from NGC, not the model image; use a model-free NIM image "
                                 "with NIM_MODEL_PATH=" + m;
    const std::vector<WarnedOnlyCase> cases = {
        {"a model-specific image, its model from NGC", model_specific, {}, {}, {EnvVarView{"NGC_API_KEY", false, {}}}, from_ngc},
        {"with envFrom, which may set NIM_MODEL_PATH", model_specific, {}, {}, {},
         "container \"e\": NVIDIA NIM loads the model its image names from NGC (or envFrom's NIM_MODEL_PATH), not the model image; use a model-free "
         "NIM image with NIM_MODEL_PATH=" + m, true},
        {"NIM_MODEL_PATH on the hub", model_free, {}, {}, {EnvVarView{"NIM_MODEL_PATH", true, "hf://meta-llama/Llama-3.1-8B-Instruct"}},
         "container \"e\": NIM_MODEL_PATH \"hf://meta-llama/Llama-3.1-8B-Instruct\" is where NVIDIA NIM loads the model from, not the model image; set "
         "NIM_MODEL_PATH=" + m},
        {"NIM_MODEL_PATH the mount", model_free, {}, {}, {EnvVarView{"NIM_MODEL_PATH", true, m_slash}}, ""},
        {"the last NIM_MODEL_PATH is the one read", model_free, {}, {}, {EnvVarView{"NIM_MODEL_PATH", true, m}, EnvVarView{"NIM_MODEL_PATH", true, "s3://b/x"}},
         "container \"e\": NIM_MODEL_PATH \"s3://b/x\" is where NVIDIA NIM loads the model from, not the model image; set NIM_MODEL_PATH=" + m},
        {"NIM_MODEL_PATH from a Secret", model_free, {}, {}, {EnvVarView{"NIM_MODEL_PATH", false, {}}},
         "container \"e\": NIM_MODEL_PATH (set from a Secret or ConfigMap) is where NVIDIA NIM loads the model from; set NIM_MODEL_PATH=" + m},
        {"the positional argument wins over NIM_MODEL_PATH", model_free, {}, {"hf://Qwen/Qwen3-8B", "--max-model-len", "8192"},
         {EnvVarView{"NIM_MODEL_PATH", true, m}},
         "container \"e\": the model argument \"hf://Qwen/Qwen3-8B\" is where NVIDIA NIM loads the model from, not the model image; pass " + m + " instead"},
        {"the positional argument the mount", model_free, {}, {m, "--max-model-len", "8192"}, {}, ""},
        {"options only: NIM_MODEL_PATH read", model_free, {}, {"--max-model-len", "8192"}, {EnvVarView{"NIM_MODEL_PATH", true, m}}, ""},
        {"a 1.x multi-LLM image's NIM_MODEL_NAME path", "nvcr.io/nim/nvidia/llm-nim:latest", {}, {}, {EnvVarView{"NIM_MODEL_NAME", true, "/opt/models/local_model"}},
         "container \"e\": NIM_MODEL_NAME \"/opt/models/local_model\" is where NVIDIA NIM loads the model from, not the model image; set NIM_MODEL_NAME=" + m},
        {"NIM_MODEL_NAME naming a model is no location", model_specific, {}, {}, {EnvVarView{"NIM_MODEL_NAME", true, "meta/llama3-8b-instruct"}}, from_ngc},
        {"NIM_MODEL_NAME the mount", model_free, {}, {}, {EnvVarView{"NIM_MODEL_NAME", true, m}}, ""},
        {"another registry's nim repository is not NIM", "registry.example.com/nim/x:1", {}, {}, {}, ""},
        {"a command of its own is not NIM's entrypoint", model_specific, {"sleep"}, {"infinity"}, {}, ""},
    };
    check_warned_only(cases);
    SECTION("the longest container name and value leave the advice whole") {
        const std::string name(300, 'n'), source = "hf://org/" + std::string(300, 'v');  // the views point into them
        CommandLineContainer container(name, {}, {});
        container.view.image = model_free;
        for (const auto& env : {std::vector<EnvVarView>{EnvVarView{"NIM_MODEL_PATH", true, source}}, std::vector<EnvVarView>{}}) {
            container.view.env = env;
            container.view.has_env_from = env.empty();
            const ArgvEdits edits = plan_argv_edits(container.view, true);
            REQUIRE(edits.warnings.size() == 1);
            CHECK(edits.warnings[0].size() <= 256);
            CHECK(edits.warnings[0].substr(edits.warnings[0].size() - m.size()) == m);
        }
    }
}

TEST_CASE("llama.cpp's server is told where its model comes from, and not edited", "[engine_args]") {
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
