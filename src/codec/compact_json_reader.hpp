// A reader for the JSON the apiserver sends: compact or not, its numbers
// integers, its strings UTF-8 with or without escapes (Go's encoder writes
// &, < and > as \u0026, \u003c and \u003e, and kubectl's last-applied
// annotation is an object again as one string full of \"). It feeds a SAX
// handler the same events, with the same values, as RapidJSON's reader would
// for that text with kParseValidateEncodingFlag: a string without escapes in
// place, one with escapes decoded (copy=true, so the handler keeps it);
// integers as Int, Uint, Int64 or Uint64 by the same ranges; any other number
// as a Double, the nearest to its text (std::from_chars), where RapidJSON's
// fast conversion can be one unit in the last place off (a number with more
// than 15 digits or a decimal exponent past 22), so that a number written
// back from the DOM reads back the same. It declines
// what it does not take (a number RapidJSON would refuse as too big, or read
// as infinity, zero or a subnormal, an escaped UTF-16 surrogate, any error, a
// handler that stops), and its caller then parses
// the text with RapidJSON, which words every error: the text is never
// modified here, so it can be parsed again as it came.
//
// A handler may also say, after a member's key, that it will never read the
// value (handler.SkipValue(), when it has one): the value is then checked as
// it would be read, so an invalid body is still declined, and reported as
// null, with no events and nothing decoded or kept (64 bytes at a time where
// its text allows: json_skip_blocks.hpp).
//
// Iterative, with its own stack of at most MaxDepth open containers.
#pragma once

#include "../core/byte_scan.hpp"
#include "json_skip_blocks.hpp"

#include <algorithm>
#include <bit>
#include <array>
#include <charconv>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <string_view>

namespace miw {

enum class CompactRead { parsed, declined };

namespace compact_json {

// The first byte at or after p that ends the plain run of a string: its
// closing quote, or one read on the slow path (a backslash, a control
// character, a byte beyond ASCII); end when there is none.
__attribute__((always_inline)) inline const char* plain_run_end(const char* p, const char* end) { return byte_scan::string_stop(p, end); }

inline bool is_space(char c) { return c == ' ' || c == '\n' || c == '\r' || c == '\t'; }

// The length of the well-formed UTF-8 sequence (RFC 3629: no overlong
// forms, no surrogates, nothing past U+10FFFF) that starts at p with a byte
// of 0x80 or more; 0 when there is none. The same bytes RapidJSON's
// UTF8::Validate accepts.
inline std::size_t utf8_sequence(const char* p, const char* end) {
    const auto b = [&](std::size_t i) { return static_cast<unsigned char>(p[i]); };
    const auto in = [](unsigned char c, unsigned char lo, unsigned char hi) { return c >= lo && c <= hi; };
    const std::size_t room = static_cast<std::size_t>(end - p);
    const unsigned char c = b(0);
    std::size_t n = 0;
    unsigned char lo = 0x80, hi = 0xbf;  // the range of the second byte
    if (in(c, 0xc2, 0xdf)) n = 2;
    else if (c == 0xe0) n = 3, lo = 0xa0;
    else if (in(c, 0xe1, 0xec) || in(c, 0xee, 0xef)) n = 3;
    else if (c == 0xed) n = 3, hi = 0x9f;
    else if (c == 0xf0) n = 4, lo = 0x90;
    else if (in(c, 0xf1, 0xf3)) n = 4;
    else if (c == 0xf4) n = 4, hi = 0x8f;
    if (n == 0 || room < n || !in(b(1), lo, hi)) return 0;
    for (std::size_t i = 2; i < n; ++i) {
        if (!in(b(i), 0x80, 0xbf)) return 0;
    }
    return n;
}

inline int hex_digit(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

// The escape at p (its backslash): the bytes it takes (2, or 6 for \uXXXX)
// and the code point it stands for; 0 for what RapidJSON would refuse, and
// for an escaped surrogate (RapidJSON's pairing rules are its own to apply).
inline std::size_t read_escape(const char* p, const char* end, unsigned& cp) {
    if (end - p < 2) return 0;
    switch (p[1]) {
        case '"': cp = '"'; return 2;
        case '\\': cp = '\\'; return 2;
        case '/': cp = '/'; return 2;
        case 'b': cp = '\b'; return 2;
        case 'f': cp = '\f'; return 2;
        case 'n': cp = '\n'; return 2;
        case 'r': cp = '\r'; return 2;
        case 't': cp = '\t'; return 2;
        case 'u': break;
        default: return 0;
    }
    if (end - p < 6) return 0;
    cp = 0;
    for (int i = 2; i < 6; ++i) {
        const int d = hex_digit(p[i]);
        if (d < 0) return 0;
        cp = cp << 4 | static_cast<unsigned>(d);
    }
    return cp >= 0xd800 && cp <= 0xdfff ? 0 : 6;
}

// A code point of the Basic Multilingual Plane (what one \uXXXX escape
// gives, surrogates excepted) as UTF-8.
inline void append_utf8(std::string& out, unsigned cp) {
    if (cp < 0x80) {
        out += static_cast<char>(cp);
    } else if (cp < 0x800) {
        out += static_cast<char>(0xc0 | cp >> 6);
        out += static_cast<char>(0x80 | (cp & 0x3f));
    } else {
        out += static_cast<char>(0xe0 | cp >> 12);
        out += static_cast<char>(0x80 | (cp >> 6 & 0x3f));
        out += static_cast<char>(0x80 | (cp & 0x3f));
    }
}

}  // namespace compact_json

// The text is a std::string so that the byte after it, its terminating NUL,
// may be read: a NUL matches no character the reader looks for, so the
// checks for a token's next character need no check for the end as well.
template <std::size_t MaxDepth, class Handler>
CompactRead read_compact_json(const std::string& text, Handler& handler) {
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
        if (static_cast<unsigned char>(*p) <= ' ') skip_spaces();
    };
    // The character c next, spaces allowed before it; p past it.
    auto expect = [&](char c) __attribute__((always_inline)) {
        if (*p != c) {
            skip_space();
            if (*p != c) return false;
        }
        ++p;
        return true;
    };
    // A string, p at its opening quote: its text in place when it has no
    // escape (copy false), else decoded into `decoded` (copy true). Runs of plain
    // ASCII are skipped a word at a time; UTF-8 is checked as it comes. The
    // common string, plain ASCII to its quote, takes the inline path.
    std::string decoded;
    auto read_rest = [&](const char* first, const char* stop, const char*& start, unsigned& length, bool& copy) __attribute__((noinline)) {
        const char* run = first;  // the bytes from here to the next stop are still to be copied, once there is an escape
        for (;;) {
            const auto c = static_cast<unsigned char>(*stop);
            if (c == '"') {
                if (copy) {
                    decoded.append(run, stop);
                    start = decoded.data();
                    length = static_cast<unsigned>(decoded.size());
                } else {
                    start = first;
                    length = static_cast<unsigned>(stop - first);
                }
                p = stop + 1;
                return true;
            }
            if (c >= 0x80) {
                const std::size_t n = utf8_sequence(stop, end);
                if (n == 0) return false;
                p = stop + n;
            } else {
                if (c != '\\') return false;  // a control character
                unsigned cp = 0;
                const std::size_t n = read_escape(stop, end, cp);
                if (n == 0) return false;
                if (!copy) {
                    decoded.clear();
                    copy = true;
                }
                decoded.append(run, stop);
                append_utf8(decoded, cp);
                p = stop + n;
                run = p;
            }
            stop = plain_run_end(p, end);
            if (stop == end) return false;
        }
    };
    auto read_string = [&](const char*& start, unsigned& length, bool& copy) __attribute__((always_inline)) {
        const char* const first = ++p;
        const char* stop = plain_run_end(p, end);
        copy = false;
        if (stop == end) return false;
        if (*stop == '"') {
            start = first;
            length = static_cast<unsigned>(stop - first);
            p = stop + 1;
            return true;
        }
        return read_rest(first, stop, start, length, copy);
    };
    // A string checked as read_string reads it, nothing decoded or kept: a
    // loop of its own, as it runs over whole skipped values (kubectl's
    // annotation is one escape every few bytes).
    auto scan_string = [&]() __attribute__((noinline)) {
        ++p;
        const char* blocks_from = p;  // where the 64-byte blocks may be tried (again)
        for (;;) {
            const char* stop = plain_run_end(p, end);
            if (stop == end) return false;
            const auto c = static_cast<unsigned char>(*stop);
            if (c == '"') {
                p = stop + 1;
                return true;
            }
            // kubectl's annotation holds a \" every few bytes: taken first
            // (stop[1] is at most the terminating NUL).
            if (c == '\\' && stop[1] == '"') {
                p = stop + 2;
#if defined(__SSE2__)
                // An escaped quote: a string of escapes, likely the annotation.
                if (p >= blocks_from) {
                    if (skip_plain_blocks(p, end)) return true;
                    blocks_from = p + 64;  // not again before the block that stopped it
                }
#endif
                continue;
            }
            std::size_t n = 0;
            unsigned cp = 0;
            if (c >= 0x80) n = utf8_sequence(stop, end);
            else if (c == '\\') n = read_escape(stop, end, cp);
            if (n == 0) return false;
            p = stop + n;
        }
    };
    auto read_literal = [&](std::string_view word) {
        if (static_cast<std::size_t>(end - p) < word.size() || std::memcmp(p, word.data(), word.size()) != 0) return false;
        p += word.size();
        return true;
    };
    // A number, p past it, by JSON's grammar; false where it is broken or
    // where the reader leaves it to RapidJSON. integer: neither fraction nor
    // exponent, and value holds it in the 64-bit ranges. Any other number is
    // read into d as the double nearest its text, when RapidJSON takes it as
    // well (RapidJSON 1.1 refuses as too big an integer part of too many
    // digits and a positive exponent past 308, exactly where depending on its
    // own arithmetic: at most 300 digits and 308 are taken) and it is zero or
    // a normal double (RapidJSON reads some others as infinity, zero or a
    // subnormal its own way).
    auto scan_number = [&](bool& minus, std::uint64_t& value, bool& integer, double& d) {
        const auto digit_at = [&] { return p != end && *p >= '0' && *p <= '9'; };
        const char* const start = p;
        minus = *p == '-';
        if (minus) ++p;
        if (!digit_at()) return false;
        const char* const digits = p;
        value = static_cast<std::uint64_t>(*p - '0');
        bool fits = true;
        if (*p++ != '0') {
            for (; digit_at(); ++p) {
                const auto digit = static_cast<std::uint64_t>(*p - '0');
                if (value > (std::numeric_limits<std::uint64_t>::max() - digit) / 10) fits = false;
                value = value * 10 + digit;
            }
        }
        const auto integer_digits = static_cast<std::size_t>(p - digits);
        integer = fits && (!minus || value <= 9223372036854775808ull);
        if (p != end && *p == '.') {
            integer = false;
            ++p;
            if (!digit_at()) return false;
            while (digit_at()) ++p;
        }
        unsigned positive_exponent = 0;  // saturated at 1000
        if (p != end && (*p == 'e' || *p == 'E')) {
            integer = false;
            ++p;
            const bool negative = p != end && *p == '-';
            if (p != end && (*p == '+' || *p == '-')) ++p;
            if (!digit_at()) return false;
            for (; digit_at(); ++p) {
                if (!negative) positive_exponent = std::min(1000u, positive_exponent * 10 + static_cast<unsigned>(*p - '0'));
            }
        }
        if (integer) return true;
        if (integer_digits > 300 || positive_exponent > 308) return false;
        const auto [stop, error] = std::from_chars(start, p, d);
        return error == std::errc() && stop == p && (d == 0 || std::abs(d) >= std::numeric_limits<double>::min());
    };
    // An integer by RapidJSON's ranges: Uint up to 2^32-1, Uint64 beyond;
    // Int down to -2^31, Int64 beyond; any other number a Double.
    auto read_number = [&] {
        bool minus = false;
        bool integer = false;
        std::uint64_t value = 0;
        double d = 0;
        if (!scan_number(minus, value, integer, d)) return false;
        if (!integer) return handler.Double(d);
        if (!minus) {
            if (value <= std::numeric_limits<unsigned>::max()) return handler.Uint(static_cast<unsigned>(value));
            return handler.Uint64(value);
        }
        if (value <= 2147483648ull) return handler.Int(static_cast<int>(~value + 1));
        return handler.Int64(static_cast<std::int64_t>(~value + 1));
    };

    // One value checked as the loop below reads it, nothing kept: its own
    // containers counted against MaxDepth as if they were read.
    std::array<bool, MaxDepth> skipped{};  // object (true) or array, of each container open inside it
    auto skip_value = [&]() __attribute__((noinline)) {
#if defined(__SSE2__)
        skip_space();
        if ((*p == '{' || *p == '[') && skip_container_blocks(p, end, MaxDepth - depth, skipped.data())) return true;
#endif
        std::size_t n = 0;
        for (;;) {
            skip_space();  // at the end, the NUL is no value's first character
            bool opened = false;
            switch (*p) {
                case '{':
                case '[': {
                    const bool object = *p++ == '{';
                    if (depth + n + 1 > MaxDepth) return false;
                    skip_space();
                    if (*p == (object ? '}' : ']')) {
                        ++p;
                        break;
                    }
                    skipped[n++] = object;
                    opened = true;
                    break;
                }
                case '"':
                    if (!scan_string()) return false;
                    break;
                case 't':
                    if (!read_literal("true")) return false;
                    break;
                case 'f':
                    if (!read_literal("false")) return false;
                    break;
                case 'n':
                    if (!read_literal("null")) return false;
                    break;
                default: {
                    bool minus = false;
                    bool integer = false;
                    std::uint64_t value = 0;
                    double d = 0;
                    if (!scan_number(minus, value, integer, d)) return false;
                }
            }
            if (!opened) {
                for (;;) {
                    if (n == 0) return true;
                    skip_space();
                    if (*p == ',') {
                        ++p;
                        break;
                    }
                    if (*p != (skipped[n - 1] ? '}' : ']')) return false;
                    ++p;
                    --n;
                }
            }
            if (skipped[n - 1]) {
                skip_space();
                if (*p != '"' || !scan_string() || !expect(':')) return false;
            }
        }
    };
    bool done_value = true;
    for (;;) {
        // A value (at the end, the NUL is no value's first character).
        skip_space();
        done_value = true;
        switch (*p) {
            case '{':
            case '[': {
                const bool object = *p++ == '{';
                if (!(object ? handler.StartObject() : handler.StartArray())) return CompactRead::declined;
                skip_space();
                if (*p == (object ? '}' : ']')) {
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
                bool copy = false;
                if (!read_string(start, length, copy) || !handler.String(start, length, copy)) return CompactRead::declined;
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
                if (!read_number()) return CompactRead::declined;
                break;
        }

    after_value: __attribute__((unused));  // the target of a skipped value (handlers with SkipValue)
        // After a value: the next member or element, or the ends of the
        // containers it completes.
        for (bool need_value = !done_value; !need_value;) {
            if (depth == 0) {
                skip_space();
                return p == end ? CompactRead::parsed : CompactRead::declined;
            }
            skip_space();
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
            if (*p != '"') return CompactRead::declined;
            const char* start = nullptr;
            unsigned length = 0;
            bool copy = false;
            if (!read_string(start, length, copy) || !handler.Key(start, length, copy) || !expect(':')) return CompactRead::declined;
            if constexpr (requires { handler.SkipValue(); }) {
                if (handler.SkipValue()) {
                    if (!skip_value() || !handler.Null()) return CompactRead::declined;
                    done_value = true;
                    goto after_value;
                }
            }
        }
    }
}

}  // namespace miw
