// The challenges of a WWW-Authenticate header (RFC 7235), as a registry
// sends them with a 401: `Bearer realm="https://auth.example/token",
// service="registry.example",scope="repository:team/qwen:pull"` or
// `Basic realm="Registry Realm"`. Read by the registry client to choose its
// credentials; a header it cannot read is an error, never a guess.
#pragma once

#include "model_image_webhook/result.hpp"

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace miw {

struct AuthChallenge {
    std::string scheme;  // lowercased: "bearer", "basic"
    std::vector<std::pair<std::string, std::string>> params;  // names lowercased, values unquoted

    // The value of a parameter (by its lowercase name); empty when absent.
    std::string_view param(std::string_view name) const;
};

// A header longer than this is refused unread.
inline constexpr std::size_t kMaxChallengeHeaderBytes = 8192;

Result<std::vector<AuthChallenge>> parse_www_authenticate(std::string_view header);

}  // namespace miw
