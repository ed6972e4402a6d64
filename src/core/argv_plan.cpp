#include "argv_plan.hpp"

#include <algorithm>

namespace miw {

void sort_removals(ArgvEdits& edits) {
    for (auto* list : {&edits.args_removed, &edits.command_removed}) {
        if (list->size() < 2) continue;
        std::sort(list->begin(), list->end());
        list->erase(std::unique(list->begin(), list->end()), list->end());
    }
}

void add_warning(std::vector<std::string>& warnings, Warning& warning) {
    std::string text = std::move(warning).text();
    if (std::find(warnings.begin(), warnings.end(), text) == warnings.end()) warnings.push_back(std::move(text));
}

Warning who(const ContainerView& c) { return Warning("container ").quote(c.name, 63).say(": "); }

const EnvVarView* last_definition(const ContainerView& c, std::string_view name) {
    const EnvVarView* found = nullptr;
    for (const auto& e : c.env) {
        if (e.name == name) found = &e;
    }
    return found;
}

bool names_mount(std::string_view value) {
    while (value.size() > 1 && value.back() == '/') value.remove_suffix(1);
    return value == kModelMountPath;
}

}  // namespace miw
