// The model argument shared by vLLM, SGLang and Dynamo's TensorRT-LLM worker: the served name, and an engine given none.
#include "engine_test_support.hpp"

using namespace miw;
using namespace miw::test;

TEST_CASE("the served name keeps what the kubelet would have expanded", "[engine_model_path]") {
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

TEST_CASE("an engine given no model is told where its weights will come from", "[engine_model_path]") {
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
