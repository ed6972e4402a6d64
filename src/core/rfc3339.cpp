#include "model_image_webhook/rfc3339.hpp"

namespace miw {

namespace {

bool digits(std::string_view text, std::size_t at, std::size_t count, int& out) {
    if (at + count > text.size()) return false;
    out = 0;
    for (std::size_t i = at; i < at + count; ++i) {
        if (text[i] < '0' || text[i] > '9') return false;
        out = out * 10 + (text[i] - '0');
    }
    return true;
}

// Days since 1970-01-01 of a civil date (Howard Hinnant's days_from_civil).
std::int64_t days_from_civil(std::int64_t y, int m, int d) {
    y -= m <= 2;
    const std::int64_t era = (y >= 0 ? y : y - 399) / 400;
    const std::int64_t yoe = y - era * 400;
    const std::int64_t doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    const std::int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + doe - 719468;
}

}  // namespace

std::optional<std::int64_t> parse_rfc3339(std::string_view t) {
    int year = 0, month = 0, day = 0, hour = 0, minute = 0, second = 0;
    if (!digits(t, 0, 4, year) || t.size() < 20 || t[4] != '-' || !digits(t, 5, 2, month) || t[7] != '-' || !digits(t, 8, 2, day) ||
        (t[10] != 'T' && t[10] != 't') || !digits(t, 11, 2, hour) || t[13] != ':' || !digits(t, 14, 2, minute) || t[16] != ':' ||
        !digits(t, 17, 2, second)) {
        return std::nullopt;
    }
    if (month < 1 || month > 12 || day < 1 || day > 31 || hour > 23 || minute > 59 || second > 60) return std::nullopt;
    std::size_t at = 19;
    if (at < t.size() && t[at] == '.') {
        ++at;
        const std::size_t first = at;
        while (at < t.size() && t[at] >= '0' && t[at] <= '9') ++at;
        if (at == first) return std::nullopt;
    }
    std::int64_t offset = 0;
    if (at < t.size() && (t[at] == 'Z' || t[at] == 'z')) {
        ++at;
    } else if (at < t.size() && (t[at] == '+' || t[at] == '-')) {
        int oh = 0, om = 0;
        if (!digits(t, at + 1, 2, oh) || at + 3 >= t.size() || t[at + 3] != ':' || !digits(t, at + 4, 2, om) || oh > 23 || om > 59) return std::nullopt;
        offset = (t[at] == '+' ? 1 : -1) * (oh * 3600 + om * 60);
        at += 6;
    } else {
        return std::nullopt;
    }
    if (at != t.size()) return std::nullopt;
    return days_from_civil(year, month, day) * 86400 + hour * 3600 + minute * 60 + second - offset;
}

}  // namespace miw
