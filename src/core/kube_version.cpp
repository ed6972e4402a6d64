#include "model_image_webhook/kube_version.hpp"

namespace miw {

namespace {

// Reads 1 to 6 digits at text[pos]; more would be a made-up version and
// could overflow an int.
std::optional<int> read_number(std::string_view text, std::size_t& pos) {
    const std::size_t start = pos;
    int value = 0;
    while (pos < text.size() && text[pos] >= '0' && text[pos] <= '9') {
        if (pos - start == 6) return std::nullopt;
        value = value * 10 + (text[pos] - '0');
        ++pos;
    }
    if (pos == start) return std::nullopt;
    return value;
}

}  // namespace

std::optional<KubeVersion> parse_kube_version(std::string_view text) {
    std::size_t pos = 0;
    if (!text.empty() && text[0] == 'v') pos = 1;
    const auto major = read_number(text, pos);
    if (!major || pos >= text.size() || text[pos] != '.') return std::nullopt;
    ++pos;
    const auto minor = read_number(text, pos);
    if (!minor) return std::nullopt;
    if (pos < text.size() && text[pos] == '.') {
        ++pos;
        if (!read_number(text, pos)) return std::nullopt;
    }
    if (pos < text.size()) {
        // A pre-release or build suffix, as semver and vendors write them.
        if (text[pos] != '-' && text[pos] != '+') return std::nullopt;
        if (pos + 1 == text.size()) return std::nullopt;
        for (std::size_t i = pos + 1; i < text.size(); ++i) {
            const char c = text[i];
            const bool ok = (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '.' || c == '-' || c == '+' || c == '_';
            if (!ok) return std::nullopt;
        }
    }
    return KubeVersion{*major, *minor};
}

}  // namespace miw
