// A registry for the policy tests, answering by repository: one named
// ".../gone" has no manifest for any digest, ".../forged" returns content of
// another digest, any other has the image (2 GiB compressed). Counts its looks.
#pragma once

#include "model_image_webhook/registry/source.hpp"

#include <string_view>

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
        out.detail = "what the registry answered";
        return out;
    }
    mutable int calls = 0;
};

}  // namespace miw::test
