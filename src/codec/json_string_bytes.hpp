// The bytes of a JSON string as the compact reader (compact_json_reader.hpp)
// and the DOM's escaping (json_dom.cpp) read them: where a plain run ends,
// well-formed UTF-8 sequences (RFC 3629), escapes, and a code point written
// back as UTF-8.
#pragma once

#include "../core/byte_scan.hpp"

#include <cstddef>
#include <string>

namespace miw {

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

// The value of the four hex digits at p (a \uXXXX escape's), or -1 where one
// is not a hex digit.
inline long hex4(const char* p) {
    long value = 0;
    for (int i = 0; i < 4; ++i) {
        const int d = hex_digit(p[i]);
        if (d < 0) return -1;
        value = value << 4 | d;
    }
    return value;
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
    const long unit = hex4(p + 2);
    if (unit < 0 || (unit >= 0xd800 && unit <= 0xdfff)) return 0;
    cp = static_cast<unsigned>(unit);
    return 6;
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

}  // namespace miw
