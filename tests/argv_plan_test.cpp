// What planning a command line's edits shares: removals noted then sorted,
// warnings kept once, the kubelet's last definition of a variable.
#include "../src/core/argv_plan.hpp"

#include <catch2/catch.hpp>

using namespace miw;

TEST_CASE("removals are sorted and made unique once planning ends", "[argv_plan]") {
    ArgvEdits edits;
    const ArgView a{true, "x"};
    for (std::size_t i : {5u, 2u, 5u, 0u}) remove_word(edits, Word{false, i, &a});
    remove_word(edits, Word{true, 1, &a});
    sort_removals(edits);
    CHECK(edits.args_removed == std::vector<std::size_t>{0, 2, 5});
    CHECK(edits.command_removed == std::vector<std::size_t>{1});
}

TEST_CASE("a warning is kept once, naming its container", "[argv_plan]") {
    ContainerView c;
    c.name = "vllm";
    std::vector<std::string> warnings;
    add_warning(warnings, who(c).say("the same"));
    add_warning(warnings, who(c).say("the same"));
    REQUIRE(warnings.size() == 1);
    CHECK(warnings[0] == "container \"vllm\": the same");
}

TEST_CASE("the mount is named however its path ends, and a variable by its last definition", "[argv_plan]") {
    CHECK(names_mount("/var/lib/gpustack/model"));
    CHECK(names_mount("/var/lib/gpustack/model//"));
    CHECK_FALSE(names_mount("/var/lib/gpustack/models"));
    CHECK(is_path("./weights"));
    CHECK_FALSE(is_path("Qwen/Q"));
    ContainerView c;
    c.env = {EnvVarView{"MODEL_ID", true, "a"}, EnvVarView{"MODEL_ID", true, "b"}};
    REQUIRE(last_definition(c, "MODEL_ID") != nullptr);
    CHECK(last_definition(c, "MODEL_ID")->value == "b");
    CHECK(last_definition(c, "HF_TOKEN") == nullptr);
}
