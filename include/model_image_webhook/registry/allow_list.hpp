// --registry-allow: the registries the check may ask, as host globs. The
// registry name a reference gives is the tenant's to choose; without a list,
// a tenant could make the webhook connect to any host and port it names. A
// registry outside the list is not asked at all, and its digest is admitted
// unchecked with a warning saying so. The hosts the operator configures for
// an allowed registry (its mirrors in hosts.toml, its token realm) are the
// operator's and the registry's, not the tenant's, and are not filtered.
#pragma once

#include "model_image_webhook/result.hpp"

#include <string>
#include <string_view>
#include <vector>

namespace miw {

class RegistryAllowList {
public:
    // Comma-separated globs ("registry.example.com", "*.dkr.ecr.*.amazonaws.com",
    // "registry.internal:*", "docker.io"), matched against the whole registry
    // name as a reference gives it, normalised (lower case, Docker Hub's as
    // "docker.io"): a glob without a port matches no name with one. Empty:
    // every registry.
    static Result<RegistryAllowList> parse(std::string_view text);

    bool allows(std::string_view registry) const;
    bool any() const { return globs_.empty(); }
    const std::vector<std::string>& globs() const { return globs_; }

private:
    std::vector<std::string> globs_;
};

}  // namespace miw
