#include "model_image_webhook/go_duration.hpp"

#include <cstdint>

namespace miw {

namespace {

constexpr std::uint64_t kMaxNanoseconds = std::uint64_t{1} << 63;  // Go's bound, checked before the sign

bool is_digit(char c) { return c >= '0' && c <= '9'; }

// The nanoseconds in one of a unit's names; 0 for none.
std::uint64_t unit_nanoseconds(std::string_view unit) {
    if (unit == "ns") return 1;
    if (unit == "us" || unit == "\xC2\xB5s" || unit == "\xCE\xBCs") return 1'000;  // U+00B5 micro sign, U+03BC Greek mu
    if (unit == "ms") return 1'000'000;
    if (unit == "s") return 1'000'000'000;
    if (unit == "m") return 60'000'000'000;
    if (unit == "h") return 3'600'000'000'000;
    return 0;
}

}  // namespace

std::optional<std::chrono::nanoseconds> parse_go_duration(std::string_view s) {
    bool negative = false;
    if (!s.empty() && (s[0] == '-' || s[0] == '+')) {
        negative = s[0] == '-';
        s.remove_prefix(1);
    }
    if (s == "0") return std::chrono::nanoseconds(0);
    if (s.empty()) return std::nullopt;
    std::uint64_t total = 0;
    while (!s.empty()) {
        if (s[0] != '.' && !is_digit(s[0])) return std::nullopt;
        // The whole part: an overflow is an error, as Go's leadingInt says.
        std::uint64_t whole = 0;
        std::size_t i = 0;
        for (; i < s.size() && is_digit(s[i]); ++i) {
            if (whole > (kMaxNanoseconds - 1) / 10) return std::nullopt;
            whole = whole * 10 + static_cast<std::uint64_t>(s[i] - '0');
            if (whole > kMaxNanoseconds) return std::nullopt;
        }
        const bool had_whole = i > 0;
        s.remove_prefix(i);
        // The fraction: digits past what a uint64 holds are read and dropped, as Go's leadingFraction does.
        std::uint64_t fraction = 0;
        double scale = 1;
        bool had_fraction = false;
        if (!s.empty() && s[0] == '.') {
            s.remove_prefix(1);
            bool overflowed = false;
            for (i = 0; i < s.size() && is_digit(s[i]); ++i) {
                if (overflowed) continue;
                const std::uint64_t next = fraction * 10 + static_cast<std::uint64_t>(s[i] - '0');
                if (fraction > kMaxNanoseconds / 10 || next > kMaxNanoseconds) {
                    overflowed = true;
                    continue;
                }
                fraction = next;
                scale *= 10;
            }
            had_fraction = i > 0;
            s.remove_prefix(i);
        }
        if (!had_whole && !had_fraction) return std::nullopt;
        for (i = 0; i < s.size() && s[i] != '.' && !is_digit(s[i]); ++i) {
        }
        const std::uint64_t unit = unit_nanoseconds(s.substr(0, i));
        if (unit == 0) return std::nullopt;  // missing, or not one Go knows
        s.remove_prefix(i);
        if (whole > kMaxNanoseconds / unit) return std::nullopt;
        std::uint64_t value = whole * unit;
        if (fraction > 0) {
            value += static_cast<std::uint64_t>(static_cast<double>(fraction) * (static_cast<double>(unit) / scale));
            if (value > kMaxNanoseconds) return std::nullopt;
        }
        total += value;
        if (total > kMaxNanoseconds) return std::nullopt;
    }
    if (negative) return std::chrono::nanoseconds(total == kMaxNanoseconds ? INT64_MIN : -static_cast<std::int64_t>(total));
    if (total > kMaxNanoseconds - 1) return std::nullopt;
    return std::chrono::nanoseconds(static_cast<std::int64_t>(total));
}

}  // namespace miw
