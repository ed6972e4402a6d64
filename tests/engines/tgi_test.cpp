// Hugging Face's TGI and TEI: --model-id the mount, added over MODEL_ID.
#include "engine_test_support.hpp"

using namespace miw;
using namespace miw::test;

TEST_CASE("TGI and TEI read the mount, and a second pass changes nothing", "[engine_tgi]") {
    const std::string m = "/var/lib/gpustack/model";
    check_rewrites({
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
        {"TEI's router, --model-id spaced", "i", {"text-embeddings-router"}, {"--model-id", "BAAI/bge-large-en-v1.5", "--revision", "refs/pr/5"},
         {"text-embeddings-router", "--model-id", m}},
        {"TEI's CPU image, --model-id=", "ghcr.io/huggingface/text-embeddings-inference:cpu-1.8", {}, {"--model-id=BAAI/bge-m3", "--port", "80"},
         {"--model-id=" + m, "--port", "80"}},
        {"Google Cloud's TEI image with no args", "us-docker.pkg.dev/deeplearning-platform-release/gcr.io/huggingface-text-embeddings-inference-cu122.1-6.ubuntu2204",
         {}, {}, {"--model-id=" + m}},
        {"TGI's launcher behind a script's \"${@}\"", "i", {"sh", "-c", "exec text-generation-launcher \"${@}\"", "tgi"}, {"--model-id", "org/x"},
         {"sh", "-c", "exec text-generation-launcher \"${@}\"", "tgi", "--model-id", m}},
    });
}

TEST_CASE("TGI and TEI with no --model-id are given the mount over their MODEL_ID", "[engine_tgi]") {
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
