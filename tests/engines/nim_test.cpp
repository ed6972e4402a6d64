// NVIDIA NIM: told where its model comes from, never edited.
#include "engine_test_support.hpp"

using namespace miw;
using namespace miw::test;

TEST_CASE("NVIDIA NIM is told where its model comes from, and not edited", "[engine_nim]") {
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
