// The rule registry: every refusal's identifier defined once, and every one
// documented in docs/rules.md.
#include "model_image_webhook/rule.hpp"

#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <regex>
#include <set>
#include <string>

using namespace miw;

namespace {

std::string read_text(const std::filesystem::path& path) {
    std::ifstream in(path, std::ios::binary);
    return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

// The rule identifiers in the first cell of docs/rules.md's table rows.
std::set<std::string> documented_ids() {
    const std::string text = read_text(std::string(MIW_SOURCE_DIR) + "/docs/rules.md");
    std::set<std::string> out;
    const std::regex row("^\\| ([^|]*)\\|");
    const std::regex id("`([a-z]+(-[a-z0-9]+)+)`");
    std::size_t start = 0;
    while (start < text.size()) {
        std::size_t end = text.find('\n', start);
        if (end == std::string::npos) end = text.size();
        const std::string line = text.substr(start, end - start);
        std::smatch cell;
        if (std::regex_search(line, cell, row)) {
            const std::string first = cell[1];
            for (auto it = std::sregex_iterator(first.begin(), first.end(), id); it != std::sregex_iterator(); ++it) out.insert((*it)[1]);
        }
        start = end + 1;
    }
    return out;
}

}  // namespace

TEST_CASE("every rule has a unique identifier and says what it refuses", "[rule]") {
    std::set<std::string_view> ids;
    for (const Rule* rule : rule_registry()) {
        INFO(rule->id);
        CHECK(std::regex_match(std::string(rule->id), std::regex("[a-z]+(-[a-z0-9]+)+")));
        CHECK(ids.insert(rule->id).second);
        CHECK_FALSE(rule->verdict.empty());
        CHECK_FALSE(rule->description.empty());
        CHECK(find_rule(rule->id) == rule);
    }
    CHECK(ids.size() >= 16);
    CHECK(find_rule("no-such-rule") == nullptr);
}

TEST_CASE("docs/rules.md documents exactly the registered rules", "[rule]") {
    const std::set<std::string> documented = documented_ids();
    for (const Rule* rule : rule_registry()) {
        INFO("registered, but not in docs/rules.md: " << rule->id);
        CHECK(documented.count(std::string(rule->id)) == 1);
    }
    for (const std::string& id : documented) {
        INFO("in docs/rules.md, but no rule has it: " << id);
        CHECK(find_rule(id) != nullptr);
    }
}

TEST_CASE("each identifier is written once in the core, where its rule is defined", "[rule]") {
    std::vector<std::filesystem::path> files;
    for (const char* dir : {"/include/model_image_webhook", "/src/core"}) {
        for (const auto& entry : std::filesystem::recursive_directory_iterator(std::string(MIW_SOURCE_DIR) + dir)) {
            if (entry.is_regular_file()) files.push_back(entry.path());
        }
    }
    for (const Rule* rule : rule_registry()) {
        const std::string quoted = "\"" + std::string(rule->id) + "\"";
        std::vector<std::string> holders;
        for (const auto& file : files) {
            if (read_text(file).find(quoted) != std::string::npos) holders.push_back(file.filename().string());
        }
        INFO(rule->id << " is written in " << holders.size() << " files of the core");
        CHECK(holders.size() == 1);
    }
}
