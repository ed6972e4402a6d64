// Platforms as containerd's matcher reads them ("os/arch[/variant]"), so that
// --registry-platform picks the index entry the node's containerd would pull:
// names normalised first (x86_64 is amd64, aarch64 is arm64, arm64's v8 is
// its default and may be left out, arm's v7 likewise), then compared whole.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace miw {

struct Platform {
    std::string os;
    std::string architecture;
    std::string variant;  // empty: the architecture's default
};

// "linux/arm64/v8" -> {linux, arm64, ""}; nullopt without an os and an architecture.
std::optional<Platform> parse_platform(std::string_view text);

// containerd's normalisation: lower case, known aliases, default variants dropped.
Platform normalize_platform(Platform platform);

// Whether an index entry's platform is the one wanted (both normalised first).
bool platform_matches(const Platform& wanted, std::string_view os, std::string_view architecture, std::string_view variant);

}  // namespace miw
