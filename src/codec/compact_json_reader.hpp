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

#include "json_skip_blocks.hpp"
#include "json_string_bytes.hpp"

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

    // The position p is never handed to a function that is not inlined, by
    // reference or in a closure: its address would then escape, and every
    // store the handler makes (the DOM's stack, its strings) could change it
    // as far as the compiler knows, so p would be reloaded from memory after
    // each one. Out-of-line helpers take a position and return the next.
    //
    // Compact JSON has no space between tokens: one comparison, inline, says
    // so; only text with spaces takes the loop.
    auto skip_spaces = [end](const char* q) __attribute__((noinline)) {
        while (q != end && is_space(*q)) ++q;
        return q;
    };
    // Inline, so that a position handed to them by reference stays local.
    auto skip_space = [skip_spaces](const char*& q) __attribute__((always_inline)) {
        if (static_cast<unsigned char>(*q) <= ' ') q = skip_spaces(q);
    };
    // The character c next, spaces allowed before it; q past it.
    auto expect = [skip_space](const char*& q, char c) __attribute__((always_inline)) {
        if (*q != c) {
            skip_space(q);
            if (*q != c) return false;
        }
        ++q;
        return true;
    };
    // A string, p at its opening quote: its text in place when it has no
    // escape (copy false), else decoded into `decoded` (copy true). Runs of plain
    // ASCII are skipped a word at a time; UTF-8 is checked as it comes. The
    // common string, plain ASCII to its quote, takes the inline path.
    std::string decoded;
    // The rest of a string from its first stop: the position past its closing
    // quote, or null where it is broken.
    auto read_rest = [&decoded, end](const char* first, const char* stop, const char*& start, unsigned& length, bool& copy) __attribute__((noinline)) -> const char* {
        const char* run = first;  // the bytes from here to the next stop are still to be copied, once there is an escape
        for (;;) {
            const auto c = static_cast<unsigned char>(*stop);
            const char* next = nullptr;
            if (c == '"') {
                if (copy) {
                    decoded.append(run, stop);
                    start = decoded.data();
                    length = static_cast<unsigned>(decoded.size());
                } else {
                    start = first;
                    length = static_cast<unsigned>(stop - first);
                }
                return stop + 1;
            }
            if (c >= 0x80) {
                const std::size_t n = utf8_sequence(stop, end);
                if (n == 0) return nullptr;
                next = stop + n;
            } else {
                if (c != '\\') return nullptr;  // a control character
                unsigned cp = 0;
                const std::size_t n = read_escape(stop, end, cp);
                if (n == 0) return nullptr;
                if (!copy) {
                    decoded.clear();
                    copy = true;
                }
                decoded.append(run, stop);
                append_utf8(decoded, cp);
                next = stop + n;
                run = next;
            }
            stop = plain_run_end(next, end);
            if (stop == end) return nullptr;
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
        const char* const next = read_rest(first, stop, start, length, copy);
        if (next == nullptr) return false;
        p = next;
        return true;
    };
    // A string at q (its opening quote) checked as read_string reads it,
    // nothing decoded or kept: the position past it, or null. A loop of its
    // own, as it runs over whole skipped values (kubectl's annotation is one
    // escape every few bytes).
    auto scan_string = [end](const char* q) __attribute__((noinline)) -> const char* {
        ++q;
        const char* blocks_from = q;  // where the 64-byte blocks may be tried (again)
        for (;;) {
            const char* stop = plain_run_end(q, end);
            if (stop == end) return nullptr;
            const auto c = static_cast<unsigned char>(*stop);
            if (c == '"') return stop + 1;
            // kubectl's annotation holds a \" every few bytes: taken first
            // (stop[1] is at most the terminating NUL).
            if (c == '\\' && stop[1] == '"') {
                q = stop + 2;
#if defined(__SSE2__)
                // An escaped quote: a string of escapes, likely the annotation.
                if (q >= blocks_from) {
                    if (skip_plain_blocks(q, end)) return q;
                    blocks_from = q + 64;  // not again before the block that stopped it
                }
#endif
                continue;
            }
            std::size_t n = 0;
            unsigned cp = 0;
            if (c >= 0x80) n = utf8_sequence(stop, end);
            else if (c == '\\') n = read_escape(stop, end, cp);
            if (n == 0) return nullptr;
            q = stop + n;
        }
    };
    auto read_literal = [end](const char*& q, std::string_view word) __attribute__((always_inline)) {
        if (static_cast<std::size_t>(end - q) < word.size() || std::memcmp(q, word.data(), word.size()) != 0) return false;
        q += word.size();
        return true;
    };
    // A number at q, q past it, by JSON's grammar; false where it is broken or
    // where the reader leaves it to RapidJSON. integer: neither fraction nor
    // exponent, and value holds it in the 64-bit ranges. Any other number is
    // read into d as the double nearest its text, when RapidJSON takes it as
    // well (RapidJSON 1.1 refuses as too big an integer part of too many
    // digits and a positive exponent past 308, exactly where depending on its
    // own arithmetic: at most 300 digits and 308 are taken) and it is zero or
    // a normal double (RapidJSON reads some others as infinity, zero or a
    // subnormal its own way).
    auto scan_number = [end](const char*& q, bool& minus, std::uint64_t& value, bool& integer, double& d) __attribute__((always_inline)) {
        const auto digit_at = [&] { return q != end && *q >= '0' && *q <= '9'; };
        const char* const start = q;
        minus = *q == '-';
        if (minus) ++q;
        if (!digit_at()) return false;
        const char* const digits = q;
        value = static_cast<std::uint64_t>(*q - '0');
        bool fits = true;
        if (*q++ != '0') {
            for (; digit_at(); ++q) {
                const auto digit = static_cast<std::uint64_t>(*q - '0');
                if (value > (std::numeric_limits<std::uint64_t>::max() - digit) / 10) fits = false;
                value = value * 10 + digit;
            }
        }
        const auto integer_digits = static_cast<std::size_t>(q - digits);
        integer = fits && (!minus || value <= 9223372036854775808ull);
        if (q != end && *q == '.') {
            integer = false;
            ++q;
            if (!digit_at()) return false;
            while (digit_at()) ++q;
        }
        unsigned positive_exponent = 0;  // saturated at 1000
        if (q != end && (*q == 'e' || *q == 'E')) {
            integer = false;
            ++q;
            const bool negative = q != end && *q == '-';
            if (q != end && (*q == '+' || *q == '-')) ++q;
            if (!digit_at()) return false;
            for (; digit_at(); ++q) {
                if (!negative) positive_exponent = std::min(1000u, positive_exponent * 10 + static_cast<unsigned>(*q - '0'));
            }
        }
        if (integer) return true;
        if (integer_digits > 300 || positive_exponent > 308) return false;
        const auto [stop, error] = std::from_chars(start, q, d);
        return error == std::errc() && stop == q && (d == 0 || std::abs(d) >= std::numeric_limits<double>::min());
    };
    // An integer by RapidJSON's ranges: Uint up to 2^32-1, Uint64 beyond;
    // Int down to -2^31, Int64 beyond; any other number a Double.
    auto read_number = [&]() __attribute__((always_inline)) {
        bool minus = false;
        bool integer = false;
        std::uint64_t value = 0;
        double d = 0;
        if (!scan_number(p, minus, value, integer, d)) return false;
        if (!integer) return handler.Double(d);
        if (!minus) {
            if (value <= std::numeric_limits<unsigned>::max()) return handler.Uint(static_cast<unsigned>(value));
            return handler.Uint64(value);
        }
        if (value <= 2147483648ull) return handler.Int(static_cast<int>(~value + 1));
        return handler.Int64(static_cast<std::int64_t>(~value + 1));
    };

    // Object (true) or array, of each container open inside a skipped value;
    // each entry written before it is read, so left uninitialised (a
    // kilobyte a parse).
    std::array<bool, MaxDepth> skipped;
    // One value at q checked as the loop below reads it, nothing kept, with
    // open_depth containers open around it: its own containers counted
    // against MaxDepth as if they were read. The position past it, or null.
    auto skip_value = [&](const char* q, std::size_t open_depth) __attribute__((noinline)) -> const char* {
#if defined(__SSE2__)
        skip_space(q);
        if ((*q == '{' || *q == '[') && skip_container_blocks(q, end, MaxDepth - open_depth, skipped.data())) return q;
#endif
        std::size_t n = 0;
        for (;;) {
            skip_space(q);  // at the end, the NUL is no value's first character
            bool opened = false;
            switch (*q) {
                case '{':
                case '[': {
                    const bool object = *q++ == '{';
                    if (open_depth + n + 1 > MaxDepth) return nullptr;
                    skip_space(q);
                    if (*q == (object ? '}' : ']')) {
                        ++q;
                        break;
                    }
                    skipped[n++] = object;
                    opened = true;
                    break;
                }
                case '"':
                    if ((q = scan_string(q)) == nullptr) return nullptr;
                    break;
                case 't':
                    if (!read_literal(q, "true")) return nullptr;
                    break;
                case 'f':
                    if (!read_literal(q, "false")) return nullptr;
                    break;
                case 'n':
                    if (!read_literal(q, "null")) return nullptr;
                    break;
                default: {
                    bool minus = false;
                    bool integer = false;
                    std::uint64_t value = 0;
                    double d = 0;
                    if (!scan_number(q, minus, value, integer, d)) return nullptr;
                }
            }
            if (!opened) {
                for (;;) {
                    if (n == 0) return q;
                    skip_space(q);
                    if (*q == ',') {
                        ++q;
                        break;
                    }
                    if (*q != (skipped[n - 1] ? '}' : ']')) return nullptr;
                    ++q;
                    --n;
                }
            }
            if (skipped[n - 1]) {
                skip_space(q);
                if (*q != '"' || (q = scan_string(q)) == nullptr || !expect(q, ':')) return nullptr;
            }
        }
    };
    bool done_value = true;
    for (;;) {
        // A value (at the end, the NUL is no value's first character).
        skip_space(p);
        done_value = true;
        switch (*p) {
            case '{':
            case '[': {
                const bool object = *p++ == '{';
                if (!(object ? handler.StartObject() : handler.StartArray())) return CompactRead::declined;
                skip_space(p);
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
                if (!read_literal(p, "true") || !handler.Bool(true)) return CompactRead::declined;
                break;
            case 'f':
                if (!read_literal(p, "false") || !handler.Bool(false)) return CompactRead::declined;
                break;
            case 'n':
                if (!read_literal(p, "null") || !handler.Null()) return CompactRead::declined;
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
                skip_space(p);
                return p == end ? CompactRead::parsed : CompactRead::declined;
            }
            skip_space(p);
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
            skip_space(p);
            if (*p != '"') return CompactRead::declined;
            const char* start = nullptr;
            unsigned length = 0;
            bool copy = false;
            if (!read_string(start, length, copy) || !handler.Key(start, length, copy) || !expect(p, ':')) return CompactRead::declined;
            if constexpr (requires { handler.SkipValue(); }) {
                if (handler.SkipValue()) {
                    const char* const next = skip_value(p, depth);
                    if (next == nullptr || !handler.Null()) return CompactRead::declined;
                    p = next;
                    done_value = true;
                    goto after_value;
                }
            }
        }
    }
}

}  // namespace miw
