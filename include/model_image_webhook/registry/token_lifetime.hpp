// How long a registry's Bearer token is used: nine tenths of its
// expires_in, that clamped to [60 s, 24 h]. Registries assume a client keeps
// a token 60 s where it says less or nothing (the distribution token spec),
// and a lifetime no clock arithmetic can overflow, whatever a token server
// writes.
#pragma once

#include <chrono>
#include <cstdint>

namespace miw {

inline constexpr std::int64_t kMinTokenSeconds = 60;
inline constexpr std::int64_t kMaxTokenSeconds = 24 * 60 * 60;

constexpr std::chrono::seconds token_reuse_for(std::int64_t expires_in_seconds) {
    const std::int64_t clamped = expires_in_seconds < kMinTokenSeconds ? kMinTokenSeconds : expires_in_seconds > kMaxTokenSeconds ? kMaxTokenSeconds : expires_in_seconds;
    return std::chrono::seconds(clamped * 9 / 10);
}

}  // namespace miw
