#include "model_image_webhook/registry/allow_list.hpp"

#include "model_image_webhook/registry/keyring.hpp"
#include "model_image_webhook/text.hpp"

#include <fnmatch.h>

#include <algorithm>

namespace miw {

Result<RegistryAllowList> RegistryAllowList::parse(std::string_view text) {
    RegistryAllowList out;
    for (std::string_view item : comma_separated(text)) {
        if (item.find_first_of("/@") != std::string_view::npos) {
            return fail("\"" + std::string(item) + "\" is not a registry host glob: give host[:port], e.g. registry.example.com or *.example.com:5000");
        }
        std::string glob(item);
        std::transform(glob.begin(), glob.end(), glob.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
        if (glob == "index.docker.io" || glob == "registry-1.docker.io" || glob == "registry.hub.docker.com") glob = "docker.io";
        out.globs_.push_back(std::move(glob));
    }
    return out;
}

bool RegistryAllowList::allows(std::string_view registry) const {
    if (globs_.empty()) return true;
    const std::string name = normalize_registry_key(registry);
    return std::any_of(globs_.begin(), globs_.end(), [&](const std::string& glob) { return fnmatch(glob.c_str(), name.c_str(), 0) == 0; });
}

}  // namespace miw
