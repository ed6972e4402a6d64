#include "model_image_webhook/download_env.hpp"

#include <algorithm>
#include <array>
#include <cstdint>

namespace miw {

namespace {

constexpr std::array<std::string_view, 2> kDownloadEnvPrefixes = {"HF_", "MODELSCOPE_"};
constexpr std::array<std::string_view, 9> kDownloadEnv = {"HUGGING_FACE_HUB_TOKEN", "HUGGINGFACE_HUB_CACHE", "TRANSFORMERS_CACHE", "VLLM_USE_MODELSCOPE",
                                                          "SGLANG_USE_MODELSCOPE", "HTTP_PROXY", "HTTPS_PROXY", "NO_PROXY", "ALL_PROXY"};

// ASCII only, as environment variable names are matched; no locale lookup
// per character.
char ascii_upper(char c) { return c >= 'a' && c <= 'z' ? static_cast<char>(c - 'a' + 'A') : c; }

bool equals_ignoring_case(std::string_view a, std::string_view upper) {
    if (a.size() != upper.size()) return false;
    for (std::size_t i = 0; i < a.size(); ++i) {
        if (ascii_upper(a[i]) != upper[i]) return false;
    }
    return true;
}

// The lengths of kDownloadEnv's names, one bit each: a Pod may carry
// thousands of variables, and most are out on their length alone.
constexpr std::uint64_t kDownloadEnvLengths = [] {
    std::uint64_t lengths = 0;
    for (std::string_view download : kDownloadEnv) lengths |= std::uint64_t{1} << download.size();
    return lengths;
}();
static_assert(std::all_of(kDownloadEnv.begin(), kDownloadEnv.end(), [](std::string_view n) { return !n.empty() && n.size() < 64; }));

}  // namespace

bool is_download_env(std::string_view name) {
    if (name.empty()) return false;
    const char first = ascii_upper(name.front());
    for (std::string_view prefix : kDownloadEnvPrefixes) {
        if (prefix.front() == first && name.size() >= prefix.size() && equals_ignoring_case(name.substr(0, prefix.size()), prefix)) return true;
    }
    if (name.size() >= 64 || ((kDownloadEnvLengths >> name.size()) & 1) == 0) return false;
    for (std::string_view download : kDownloadEnv) {
        if (download.front() == first && equals_ignoring_case(name, download)) return true;
    }
    return false;
}

}  // namespace miw
