// A reader for the JSON the apiserver sends: compact, printable ASCII, its
// strings without escapes, its numbers integers. It feeds a SAX handler the
// same events, with the same arguments, as RapidJSON's reader would for that
// text (strings in place, as kParseInsituFlag gives them; integers as Int,
// Uint, Int64 or Uint64 by the same ranges), at a fraction of the cost per
// string. It declines anything else (an escape, a fraction or exponent, a
// byte outside printable ASCII, any error, a handler that stops), and its
// caller then parses the text with RapidJSON, which words every error: the
// text is never modified here, so it can be parsed again as it came.
//
// Iterative, with its own stack of at most MaxDepth open containers.
#pragma once

#include "../core/byte_scan.hpp"

#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string_view>

namespace miw {

enum class CompactRead { parsed, declined };

namespace compact_json {

// The first byte at or after p that ends the plain run of a string: its
// closing quote, or one this reader leaves to RapidJSON (a backslash, a
// control character, a byte beyond ASCII); end when there is none.
inline const char* plain_run_end(const char* p, const char* end) {
    using namespace byte_scan;
    return find_first(
        p, end, [](std::uint64_t w) { return equal(w, '"') | equal(w, '\\') | below(w, 0x20) | high(w); },
        [](unsigned char c) { return c == '"' || c == '\\' || c < 0x20 || c >= 0x80; });
}

inline bool is_space(char c) { return c == ' ' || c == '\n' || c == '\r' || c == '\t'; }

}  // namespace compact_json

template <std::size_t MaxDepth, class Handler>
CompactRead read_compact_json(std::string_view text, Handler& handler) {
    using namespace compact_json;
    if (text.size() >= std::numeric_limits<unsigned>::max()) return CompactRead::declined;
    const char* p = text.data();
    const char* const end = p + text.size();

    struct Open {
        unsigned count;
        bool object;
    };
    std::array<Open, MaxDepth> open;
    std::size_t depth = 0;

    // Compact JSON has no space between tokens: one comparison, inline, says
    // so; only text with spaces takes the loop.
    auto skip_spaces = [&]() __attribute__((noinline)) {
        while (p != end && is_space(*p)) ++p;
    };
    auto skip_space = [&]() __attribute__((always_inline)) {
        if (p != end && static_cast<unsigned char>(*p) <= ' ') skip_spaces();
    };
    // A string without escapes, p at its opening quote; its text in place.
    auto read_string = [&](const char*& start, unsigned& length) {
        ++p;
        const char* close = plain_run_end(p, end);
        if (close == end || *close != '"') return false;
        start = p;
        length = static_cast<unsigned>(close - p);
        p = close + 1;
        return true;
    };
    auto read_literal = [&](std::string_view word) {
        if (static_cast<std::size_t>(end - p) < word.size() || std::memcmp(p, word.data(), word.size()) != 0) return false;
        p += word.size();
        return true;
    };
    // An integer, by RapidJSON's ranges: Uint up to 2^32-1, Uint64 beyond;
    // Int down to -2^31, Int64 beyond; past 64 bits it would be a double.
    auto read_integer = [&] {
        const bool minus = *p == '-';
        if (minus) ++p;
        if (p == end || *p < '0' || *p > '9') return false;
        std::uint64_t value = static_cast<std::uint64_t>(*p - '0');
        if (*p++ != '0') {
            for (; p != end && *p >= '0' && *p <= '9'; ++p) {
                const auto digit = static_cast<std::uint64_t>(*p - '0');
                if (value > (std::numeric_limits<std::uint64_t>::max() - digit) / 10) return false;
                value = value * 10 + digit;
            }
        }
        if (p != end && (*p == '.' || *p == 'e' || *p == 'E')) return false;
        if (!minus) {
            if (value <= std::numeric_limits<unsigned>::max()) return handler.Uint(static_cast<unsigned>(value));
            return handler.Uint64(value);
        }
        if (value <= 2147483648ull) return handler.Int(static_cast<int>(~value + 1));
        if (value <= 9223372036854775808ull) return handler.Int64(static_cast<std::int64_t>(~value + 1));
        return false;
    };

    for (;;) {
        // A value.
        skip_space();
        if (p == end) return CompactRead::declined;
        bool done_value = true;
        switch (*p) {
            case '{':
            case '[': {
                const bool object = *p++ == '{';
                if (!(object ? handler.StartObject() : handler.StartArray())) return CompactRead::declined;
                skip_space();
                if (p != end && *p == (object ? '}' : ']')) {
                    ++p;
                    if (!(object ? handler.EndObject(0) : handler.EndArray(0))) return CompactRead::declined;
                } else {
                    if (depth == MaxDepth) return CompactRead::declined;
                    open[depth++] = {0, object};
                    done_value = false;
                }
                break;
            }
            case '"': {
                const char* start = nullptr;
                unsigned length = 0;
                if (!read_string(start, length) || !handler.String(start, length, false)) return CompactRead::declined;
                break;
            }
            case 't':
                if (!read_literal("true") || !handler.Bool(true)) return CompactRead::declined;
                break;
            case 'f':
                if (!read_literal("false") || !handler.Bool(false)) return CompactRead::declined;
                break;
            case 'n':
                if (!read_literal("null") || !handler.Null()) return CompactRead::declined;
                break;
            default:
                if (!read_integer()) return CompactRead::declined;
                break;
        }

        // After a value: the next member or element, or the ends of the
        // containers it completes.
        for (bool need_value = !done_value; !need_value;) {
            if (depth == 0) {
                skip_space();
                return p == end ? CompactRead::parsed : CompactRead::declined;
            }
            skip_space();
            if (p == end) return CompactRead::declined;
            Open& top = open[depth - 1];
            ++top.count;
            if (*p == ',') {
                ++p;
                need_value = true;
            } else if (*p == (top.object ? '}' : ']')) {
                ++p;
                --depth;
                if (!(top.object ? handler.EndObject(top.count) : handler.EndArray(top.count))) return CompactRead::declined;
                continue;
            } else {
                return CompactRead::declined;
            }
        }
        // The start of a member: its key and colon, then its value above.
        if (open[depth - 1].object) {
            skip_space();
            if (p == end || *p != '"') return CompactRead::declined;
            const char* start = nullptr;
            unsigned length = 0;
            if (!read_string(start, length) || !handler.Key(start, length, false)) return CompactRead::declined;
            skip_space();
            if (p == end || *p != ':') return CompactRead::declined;
            ++p;
        }
    }
}

}  // namespace miw
