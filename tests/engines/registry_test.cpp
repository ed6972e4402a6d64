// The table of engine families: whole, and docs/rules.md's engines table
// naming exactly the families registered, in order.
#include "../../src/core/engines/recognise.hpp"

#include <catch2/catch.hpp>

#include <fstream>
#include <iterator>
#include <set>
#include <string>
#include <vector>

using namespace miw;

namespace {

// The first cells of the rows of docs/rules.md's "### Engines" table.
std::vector<std::string> documented_engines() {
    std::ifstream in(std::string(MIW_SOURCE_DIR) + "/docs/rules.md");
    const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    std::vector<std::string> out;
    const std::size_t section = text.find("\n### Engines\n");
    REQUIRE(section != std::string::npos);
    const std::size_t end = text.find("\n## ", section);
    std::size_t at = section;
    while ((at = text.find("\n| ", at)) != std::string::npos && at < end) {
        const std::size_t close = text.find(" |", at + 3);
        const std::string cell = text.substr(at + 3, close - at - 3);
        if (cell != "engine" && cell.find("---") == std::string::npos) out.push_back(cell);
        at = close;
    }
    return out;
}


}  // namespace

TEST_CASE("docs/rules.md lists exactly the registered engines, in the table's order", "[engine_registry]") {
    std::vector<std::string> registered;
    for (const EngineFamily* family : engine_families()) registered.emplace_back(family->name);
    CHECK(documented_engines() == registered);
}

TEST_CASE("every family can be recognised, plans its model, and has a unique name", "[engine_registry]") {
    std::set<std::string_view> names;
    for (const EngineFamily* family : engine_families()) {
        INFO(family->name);
        CHECK(names.insert(family->name).second);
        CHECK(family->plan != nullptr);
        CHECK((family->program != nullptr || family->python_module != nullptr || family->image != nullptr));
    }
}
