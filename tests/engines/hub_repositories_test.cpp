// What else an engine would fetch from a hub: warned about, its advice whole.
#include "engine_test_support.hpp"

using namespace miw;
using namespace miw::test;

TEST_CASE("a hub repository's warning keeps its advice whole however long the names", "[engine_hub_repositories]") {
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
