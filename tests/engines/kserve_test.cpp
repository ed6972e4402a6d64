// KServe's Hugging Face server: --model_id dropped, --model_dir the mount; its storage initializer told.
#include "engine_test_support.hpp"

using namespace miw;
using namespace miw::test;

TEST_CASE("KServe's Hugging Face server reads the mount, and a second pass changes nothing", "[engine_kserve]") {
    const std::string m = "/var/lib/gpustack/model";
    check_rewrites({
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
    });
}

TEST_CASE("KServe's server and storage initializer are told where the weights now come from", "[engine_kserve]") {
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
