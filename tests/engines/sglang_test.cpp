// SGLang's forms (sglang serve, launch_server, Dynamo's SGLang worker): the model argument becomes the mount.
#include "engine_test_support.hpp"

using namespace miw;
using namespace miw::test;

TEST_CASE("every form of SGLang reads the mount, and a second pass changes nothing", "[engine_sglang]") {
    const std::string m = "/var/lib/gpustack/model";
    check_rewrites({
        {"sglang --model-path", "i", {"python3", "-m", "sglang.launch_server", "--model-path", "Qwen/Q"}, {},
         {"python3", "-m", "sglang.launch_server", "--model-path", m, "--served-model-name", "Qwen/Q"}},
        {"sglang --model alias", "i", {"python", "-m", "sglang.launch_server"}, {"--model=Qwen/Q"},
         {"python", "-m", "sglang.launch_server", "--model=" + m, "--served-model-name", "Qwen/Q"}},
        {"sglang serve, positional", "lmsysorg/sglang:v0.5.4", {"sglang", "serve", "Qwen/Q"}, {"--tp", "2"},
         {"sglang", "serve", m, "--tp", "2", "--served-model-name", "Qwen/Q"}},
        {"sglang serve --model-path X", "i", {"/usr/local/bin/sglang", "serve"}, {"--model-path", "Qwen/Q", "--port", "30000"},
         {"/usr/local/bin/sglang", "serve", "--model-path", m, "--port", "30000", "--served-model-name", "Qwen/Q"}},
        {"sglang serve after its --model-type", "i", {"sglang", "serve", "--model-type", "llm", "Qwen/Q"}, {},
         {"sglang", "serve", "--model-type", "llm", m, "--served-model-name", "Qwen/Q"}},
        {"sglang serve after its --model-type=", "i", {"sglang", "serve"}, {"--model-type=llm", "Qwen/Q"},
         {"sglang", "serve", "--model-type=llm", m, "--served-model-name", "Qwen/Q"}},
        {"NVIDIA Dynamo's SGLang worker", "i", {"python", "-m", "dynamo.sglang", "--model-path=Qwen/Q", "--tp", "2"}, {},
         {"python", "-m", "dynamo.sglang", "--model-path=" + m, "--tp", "2", "--served-model-name", "Qwen/Q"}},
    });
}
