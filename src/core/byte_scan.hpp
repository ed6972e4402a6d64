// Finding the bytes that matter in a run of text eight at a time, with
// word-wide arithmetic ("SWAR"): the JSON reader, the JSON writer and the
// ASCII check all skip long runs of ordinary bytes this way. The scans that
// follow find_in_blocks take sixteen at a time with SSE2 first, which every
// x86-64 has: JSON strings are short, and one load and three compares reach
// the end of most of them.
//
// Each test flags a byte by setting its high bit. Borrows can flag bytes
// above a true match as well, never below it, so the lowest flagged byte of a
// word is always exact (found with a count of trailing zeros).
#pragma once

#include <bit>
#include <cstdint>
#include <cstring>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

// The lowest flagged byte is the first in memory only on a little-endian
// machine (the word is loaded with memcpy, in memory order).
static_assert(std::endian::native == std::endian::little, "byte_scan reads the first matching byte from the low end of a word");

namespace miw::byte_scan {

inline constexpr std::uint64_t kOnes = 0x0101010101010101ull;
inline constexpr std::uint64_t kHighBits = 0x8080808080808080ull;

// Bytes below n (n at most 0x80).
constexpr std::uint64_t below(std::uint64_t word, unsigned char n) { return (word - kOnes * n) & ~word & kHighBits; }
// Bytes equal to c.
constexpr std::uint64_t equal(std::uint64_t word, unsigned char c) { return below(word ^ (kOnes * c), 1); }
// Bytes 0x80 and up.
constexpr std::uint64_t high(std::uint64_t word) { return word & kHighBits; }

inline std::uint64_t load(const char* p) {
    std::uint64_t word;
    std::memcpy(&word, p, sizeof word);
    return word;
}

// The first byte at or after p for which Is (byte -> bool) holds, one at a
// time; end when there is none. The tail of the scans below.
template <class Is>
__attribute__((always_inline)) inline const char* first_byte(const char* p, const char* end, Is is) {
    while (p != end && !is(static_cast<unsigned char>(*p))) ++p;
    return p;
}

// The first byte at or after p for which Flags (word -> flags) or, in the
// last few bytes, Is (byte -> bool) holds; end when there is none.
template <class Flags, class Is>
__attribute__((always_inline)) inline const char* find_first(const char* p, const char* end, Flags flags, Is is) {
    for (; end - p >= 8; p += 8) {
        if (const std::uint64_t f = flags(load(p)); f != 0) return p + (__builtin_ctzll(f) >> 3);
    }
    return first_byte(p, end, is);
}

#if defined(__SSE2__)
// The first byte of the 16-byte blocks from p on whose lane Lanes (block ->
// lanes set to all ones) flags; nullptr when there is none, with p moved to
// the last, shorter block for the caller to finish.
template <class Lanes>
__attribute__((always_inline)) inline const char* find_in_blocks(const char*& p, const char* end, Lanes lanes) {
    for (; end - p >= 16; p += 16) {
        const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
        if (const int m = _mm_movemask_epi8(lanes(v)); m != 0) return p + __builtin_ctz(static_cast<unsigned>(m));
    }
    return nullptr;
}
#endif

// The first '"', '\\' or control character (below 0x20) at or after p, and
// with High a byte of 0x80 and up as well; end when there is none.
template <bool High>
__attribute__((always_inline)) inline const char* string_scan(const char* p, const char* end) {
#if defined(__SSE2__)
    const char* const hit = find_in_blocks(p, end, [](__m128i v) {
        const __m128i quote_or_backslash = _mm_or_si128(_mm_cmpeq_epi8(v, _mm_set1_epi8('"')), _mm_cmpeq_epi8(v, _mm_set1_epi8('\\')));
        // A signed compare counts 0x80 and up as below 0x20 too; the unsigned
        // test is min(v, 0x1f) == v.
        const __m128i control = High ? _mm_cmplt_epi8(v, _mm_set1_epi8(0x20)) : _mm_cmpeq_epi8(_mm_min_epu8(v, _mm_set1_epi8(0x1f)), v);
        return _mm_or_si128(quote_or_backslash, control);
    });
    if (hit != nullptr) return hit;
#endif
    return find_first(
        p, end, [](std::uint64_t w) { return equal(w, '"') | equal(w, '\\') | below(w, 0x20) | (High ? high(w) : 0); },
        [](unsigned char c) { return c == '"' || c == '\\' || c < 0x20 || (High && c >= 0x80); });
}

// Where the plain ASCII run of a JSON string being read ends: its closing
// quote, an escape, a control character or a byte beyond ASCII.
__attribute__((always_inline)) inline const char* string_stop(const char* p, const char* end) { return string_scan<true>(p, end); }

// What a JSON string being written must escape: a quote, a backslash or a
// control character (UTF-8 passes as it is).
__attribute__((always_inline)) inline const char* escape_stop(const char* p, const char* end) { return string_scan<false>(p, end); }

// The first byte at or after p that is one of Chars; end when there is none.
// For short texts of a few dozen bytes (an image reference) searched for a
// handful of characters: one pass, not a memchr per character.
template <char... Chars>
inline const char* find_any_of(const char* p, const char* end) {
#if defined(__SSE2__)
    const char* const hit = find_in_blocks(p, end, [](__m128i v) { return (_mm_cmpeq_epi8(v, _mm_set1_epi8(Chars)) | ...); });
    if (hit != nullptr) return hit;
#endif
    return first_byte(p, end, [](unsigned char c) { return ((c == static_cast<unsigned char>(Chars)) || ...); });
}

// The first byte at or after p outside Lo..Hi (both at most 0x7f: a byte of
// 0x80 and up is always outside); end when there is none.
template <unsigned char Lo, unsigned char Hi>
inline const char* find_outside(const char* p, const char* end) {
    static_assert(Lo <= Hi && Hi < 0x80, "an ASCII range");
#if defined(__SSE2__)
    const char* const hit = find_in_blocks(p, end, [](__m128i v) {
        // Signed compares: 0x80 and up are negative, so below Lo.
        return _mm_or_si128(_mm_cmplt_epi8(v, _mm_set1_epi8(static_cast<char>(Lo))), _mm_cmpgt_epi8(v, _mm_set1_epi8(static_cast<char>(Hi))));
    });
    if (hit != nullptr) return hit;
#endif
    return first_byte(p, end, [](unsigned char c) { return c < Lo || c > Hi; });
}

// The first byte at or after p that is no hex digit (with LowercaseOnly, no
// digit or a-f); end when there is none. A digest's 64 or 128 digits in four
// or eight blocks.
template <bool LowercaseOnly>
inline const char* find_non_hex(const char* p, const char* end) {
#if defined(__SSE2__)
    const char* const hit = find_in_blocks(p, end, [](__m128i v) {
        // Signed compares: 0x80 and up are negative, so outside every range.
        const auto outside = [v](char lo, char hi) { return _mm_or_si128(_mm_cmplt_epi8(v, _mm_set1_epi8(lo)), _mm_cmpgt_epi8(v, _mm_set1_epi8(hi))); };
        __m128i non_hex = _mm_and_si128(outside('0', '9'), outside('a', 'f'));
        if constexpr (!LowercaseOnly) non_hex = _mm_and_si128(non_hex, outside('A', 'F'));
        return non_hex;
    });
    if (hit != nullptr) return hit;
#endif
    return first_byte(p, end, [](unsigned char c) {
        return !((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (!LowercaseOnly && c >= 'A' && c <= 'F'));
    });
}

}  // namespace miw::byte_scan
