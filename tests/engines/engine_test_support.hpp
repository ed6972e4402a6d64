// What the tests of the command line's edits share: a container whose views
// point into strings the test keeps, the edits applied as the patch applies
// them, and the checks each engine's table runs.
#pragma once

#include "model_image_webhook/engine_args.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <string>
#include <string_view>
#include <vector>

namespace miw::test {

inline std::vector<ArgView> words(const std::vector<std::string>& texts, std::vector<std::string>& storage) {
    storage = texts;
    std::vector<ArgView> out;
    for (const auto& t : storage) out.push_back(ArgView{true, t});
    return out;
}

// A container named `name` running command then args, keeping the strings
// its views point into; not copied or moved, so the views stay valid.
struct CommandLineContainer {
    std::vector<std::string> command_store, args_store;
    ContainerView view;

    CommandLineContainer(std::string_view name, const std::vector<std::string>& command, const std::vector<std::string>& args) {
        view.name = name;
        view.command = words(command, command_store);
        view.args = words(args, args_store);
    }
    CommandLineContainer(const CommandLineContainer&) = delete;
    CommandLineContainer& operator=(const CommandLineContainer&) = delete;
};

// The command line after the edits, as the patch leaves it: replacements,
// then removals, then what is appended to args.
inline std::vector<std::string> applied(const std::vector<std::string>& command, const std::vector<std::string>& args, const ArgvEdits& e) {
    std::vector<std::string> c = command, a = args;
    for (const auto& r : e.replacements) (r.in_command ? c : a)[r.index] = r.value;
    for (auto it = e.command_removed.rbegin(); it != e.command_removed.rend(); ++it) c.erase(c.begin() + static_cast<long>(*it));
    for (auto it = e.args_removed.rbegin(); it != e.args_removed.rend(); ++it) a.erase(a.begin() + static_cast<long>(*it));
    a.insert(a.end(), e.appended_args.begin(), e.appended_args.end());
    c.insert(c.end(), a.begin(), a.end());
    return c;
}

// No warning when `says` is empty, else exactly one, starting with `says`.
inline void check_single_warning(const ArgvEdits& edits, const std::string& says) {
    if (says.empty()) {
        CHECK(edits.warnings.empty());
    } else {
        REQUIRE(edits.warnings.size() == 1);
        CHECK(edits.warnings[0].rfind(says, 0) == 0);
    }
}

// A command line that the selected container's edits turn into `after`
// (command then args), and that a second pass leaves alone.
struct RewriteCase {
    const char* name;
    std::string image;
    std::vector<std::string> command;
    std::vector<std::string> args;
    std::vector<std::string> after;  // command then args, once edited
};

inline void check_rewrites(const std::vector<RewriteCase>& cases) {
    for (const auto& c : cases) {
        DYNAMIC_SECTION(c.name) {
            CommandLineContainer engine("engine", c.command, c.args);
            ContainerView& container = engine.view;
            container.image = c.image;
            const ArgvEdits edits = plan_argv_edits(container, true);
            const std::vector<std::string> after = applied(c.command, c.args, edits);
            CHECK(after == c.after);
            // A second pass over the edited command line: nothing more to do.
            std::vector<std::string> command2(after.begin(), after.begin() + static_cast<long>(std::min(after.size(), c.command.size() - edits.command_removed.size()))),
                args2(after.begin() + static_cast<long>(command2.size()), after.end());
            std::vector<std::string> s1, s2;
            container.command = words(command2, s1);
            container.args = words(args2, s2);
            CHECK(plan_argv_edits(container, true).empty());
        }
    }
}

// An engine that is warned about and never edited: each case's container,
// planned as selected, is left as it is and says `says` (nothing when empty).
struct WarnedOnlyCase {
    const char* name;
    std::string image;
    std::vector<std::string> command;
    std::vector<std::string> args;
    std::vector<EnvVarView> env;
    std::string says;
    bool env_from = false;
};

inline void check_warned_only(const std::vector<WarnedOnlyCase>& cases) {
    for (const auto& c : cases) {
        DYNAMIC_SECTION(c.name) {
            CommandLineContainer container("e", c.command, c.args);
            container.view.image = c.image;
            container.view.env = c.env;
            container.view.has_env_from = c.env_from;
            const ArgvEdits edits = plan_argv_edits(container.view, true);
            CHECK(edits.empty());
            if (c.says.empty()) {
                CHECK(edits.warnings.empty());
            } else {
                CHECK(edits.warnings == std::vector<std::string>{c.says});
            }
        }
    }
}

}  // namespace miw::test
