#include "model_image_webhook/registry/platform.hpp"

#include <algorithm>
#include <cctype>

namespace miw {

namespace {

std::string lower(std::string_view text) {
    std::string out(text);
    std::transform(out.begin(), out.end(), out.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return out;
}

}  // namespace

std::optional<Platform> parse_platform(std::string_view text) {
    const std::size_t first = text.find('/');
    if (first == std::string_view::npos || first == 0) return std::nullopt;
    Platform out;
    out.os = std::string(text.substr(0, first));
    const std::string_view rest = text.substr(first + 1);
    const std::size_t second = rest.find('/');
    out.architecture = std::string(rest.substr(0, second));
    if (out.architecture.empty()) return std::nullopt;
    if (second != std::string_view::npos) {
        out.variant = std::string(rest.substr(second + 1));
        if (out.variant.empty() || out.variant.find('/') != std::string::npos) return std::nullopt;
    }
    return out;
}

Platform normalize_platform(Platform p) {
    p.os = lower(p.os);
    if (p.os == "macos") p.os = "darwin";
    p.architecture = lower(p.architecture);
    p.variant = lower(p.variant);
    const std::string& a = p.architecture;
    std::string& v = p.variant;
    if (a == "i386") {
        p.architecture = "386";
        v.clear();
    } else if (a == "x86_64" || a == "x86-64" || a == "amd64") {
        p.architecture = "amd64";
        if (v == "v1") v.clear();
    } else if (a == "aarch64" || a == "arm64") {
        p.architecture = "arm64";
        if (v == "8" || v == "v8" || v == "v8.0") v.clear();
        if (v == "9" || v == "9.0" || v == "v9.0") v = "v9";
    } else if (a == "armhf") {
        p.architecture = "arm";
        v = "v7";
    } else if (a == "armel") {
        p.architecture = "arm";
        v = "v6";
    } else if (a == "arm") {
        if (v.empty() || v == "7") v = "v7";
        if (v == "5" || v == "6" || v == "8") v = "v" + v;
    }
    return p;
}

bool platform_matches(const Platform& wanted, std::string_view os, std::string_view architecture, std::string_view variant) {
    const Platform w = normalize_platform(wanted);
    const Platform e = normalize_platform(Platform{std::string(os), std::string(architecture), std::string(variant)});
    return w.os == e.os && w.architecture == e.architecture && w.variant == e.variant;
}

}  // namespace miw
