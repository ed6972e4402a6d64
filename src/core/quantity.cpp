#include "model_image_webhook/quantity.hpp"

#include <cmath>
#include <limits>

namespace miw {

namespace {

// The multiplier of a suffix: binary SI, decimal SI, or a decimal exponent.
std::optional<long double> suffix_scale(std::string_view suffix) {
    struct Named {
        std::string_view suffix;
        long double scale;
    };
    static constexpr Named kNamed[] = {
        {"", 1.0L},       {"Ki", 0x1p10L}, {"Mi", 0x1p20L}, {"Gi", 0x1p30L}, {"Ti", 0x1p40L}, {"Pi", 0x1p50L}, {"Ei", 0x1p60L},
        {"n", 1e-9L},     {"u", 1e-6L},    {"m", 1e-3L},    {"k", 1e3L},     {"M", 1e6L},     {"G", 1e9L},     {"T", 1e12L},
        {"P", 1e15L},     {"E", 1e18L},
    };
    for (const Named& n : kNamed) {
        if (n.suffix == suffix) return n.scale;
    }
    // e<int> or E<int>: a decimal exponent.
    if (suffix.size() < 2 || (suffix[0] != 'e' && suffix[0] != 'E')) return std::nullopt;
    std::size_t i = 1;
    const bool negative = suffix[i] == '-';
    if (suffix[i] == '+' || suffix[i] == '-') ++i;
    if (i == suffix.size() || suffix.size() - i > 3) return std::nullopt;
    int exponent = 0;
    for (; i < suffix.size(); ++i) {
        if (suffix[i] < '0' || suffix[i] > '9') return std::nullopt;
        exponent = exponent * 10 + (suffix[i] - '0');
    }
    return std::pow(10.0L, static_cast<long double>(negative ? -exponent : exponent));
}

}  // namespace

std::optional<std::uint64_t> parse_quantity(std::string_view text) {
    std::size_t i = 0;
    if (i < text.size() && text[i] == '+') ++i;
    long double number = 0;
    std::size_t digits = 0;
    for (; i < text.size() && text[i] >= '0' && text[i] <= '9'; ++i, ++digits) number = number * 10 + (text[i] - '0');
    if (i < text.size() && text[i] == '.') {
        long double place = 0.1L;
        for (++i; i < text.size() && text[i] >= '0' && text[i] <= '9'; ++i, ++digits, place /= 10) number += (text[i] - '0') * place;
    }
    if (digits == 0 || digits > 40) return std::nullopt;
    const std::optional<long double> scale = suffix_scale(text.substr(i));
    if (!scale) return std::nullopt;
    const long double value = std::ceil(number * *scale);
    if (!(value < 0x1p64L)) return std::nullopt;
    return static_cast<std::uint64_t>(value);
}

}  // namespace miw
