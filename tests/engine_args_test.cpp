// The engine's command line as a whole: download flags out, the model argument
// pointed at the mount through launchers and shell scripts that pass their
// words on, and what cannot be edited warned about. Each engine's own forms
// are in tests/engines/.
#include "engines/engine_test_support.hpp"

using namespace miw;
using namespace miw::test;

TEST_CASE("engines behind launchers, shells and Python's options read the mount, and a second pass changes nothing", "[engine_args]") {
    const std::string m = "/var/lib/gpustack/model";
    check_rewrites({
        {"download flags go beside the rewrite", "i", {"vllm", "serve", "Qwen/Q", "--revision", "main"}, {"--download-dir=/d", "--tokenizer-revision", "t"},
         {"vllm", "serve", m, "--served-model-name", "Qwen/Q"}},
        {"another program: only the download flags", "i", {"server"}, {"--model", "Qwen/Q", "--code-revision=x"}, {"server", "--model", "Qwen/Q"}},
        {"another image without a command", "busybox", {}, {"Qwen/Q"}, {"Qwen/Q"}},
        {"vllm serve behind a script's \"$@\"", "vllm/vllm-openai:v0.11.0", {"/bin/bash", "-c", "pip install vllm-gguf-plugin && exec vllm serve \"$@\"", "--"},
         {"Qwen/Q", "--port", "8000", "--download-dir", "/cache"},
         {"/bin/bash", "-c", "pip install vllm-gguf-plugin && exec vllm serve \"$@\"", "--", m, "--port", "8000", "--served-model-name", "Qwen/Q"}},
        {"SGLang's module behind sh -ec, its $0 a name", "i", {"sh", "-ec", "nvidia-smi; exec python3 -m sglang.launch_server \"$@\";\n", "sglang"},
         {"--model-path", "Qwen/Q", "--tp", "2"},
         {"sh", "-ec", "nvidia-smi; exec python3 -m sglang.launch_server \"$@\";\n", "sglang", "--model-path", m, "--tp", "2", "--served-model-name", "Qwen/Q"}},
        {"an unquoted $@, the words it passes on in command", "i", {"bash", "-lc", "/usr/sbin/sshd && vllm serve $@", "vllm", "Qwen/Q"}, {},
         {"bash", "-lc", "/usr/sbin/sshd && vllm serve $@", "vllm", m, "--served-model-name", "Qwen/Q"}},
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
    });
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
