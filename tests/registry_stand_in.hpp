// A registry for the policy tests, answering by repository: one named
// ".../gone" has no manifest for any digest, ".../forged" returns content of
// another digest, ".../modelpack" holds a CNCF ModelPack artifact, any other
// has the image (2 GiB compressed). Counts its
// looks, and writes down whose pull secrets each was made with.
#pragma once

#include "model_image_webhook/registry/source.hpp"

#include <string>
#include <string_view>
#include <vector>

namespace miw::test {

class RegistryByRepository : public RegistrySource {
public:
    RegistryLookup lookup(std::string_view reference) const override {
        ++calls;
        RegistryLookup out;
        out.status = reference.find("/gone@") != std::string_view::npos     ? RegistryLookupStatus::not_found
                     : reference.find("/forged@") != std::string_view::npos ? RegistryLookupStatus::digest_mismatch
                                                                             : RegistryLookupStatus::found;
        if (out.status == RegistryLookupStatus::found) out.compressed_bytes = 2ull << 30;
        if (reference.find("/modelpack@") != std::string_view::npos) {
            out.facts.artifact_type = "application/vnd.cncf.model.manifest.v1+json";
            out.facts.config_media_type = "application/vnd.cncf.model.config.v1+json";
            out.facts.layer_kinds = {{"application/vnd.cncf.model.weight.v1.raw", 2, 2ull << 30}};
        }
        out.detail = "what the registry answered";
        return out;
    }
    // "namespace|secret,secret|service account" of each look made with pull secrets.
    RegistryLookup lookup_for(std::string_view reference, const PullSecretsRef& who) const override {
        std::string line = std::string(who.namespace_name) + "|";
        for (std::size_t i = 0; i < who.secrets.size(); ++i) line += (i == 0 ? "" : ",") + std::string(who.secrets[i]);
        pullers.push_back(line + "|" + std::string(who.service_account));
        return lookup(reference);
    }
    mutable int calls = 0;
    mutable std::vector<std::string> pullers;
};

}  // namespace miw::test
