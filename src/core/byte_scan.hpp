// Finding the bytes that matter in a run of text eight at a time, with
// word-wide arithmetic ("SWAR"): the JSON reader, the JSON writer and the
// ASCII check all skip long runs of ordinary bytes this way.
//
// Each test flags a byte by setting its high bit. Borrows can flag bytes
// above a true match as well, never below it, so the lowest flagged byte of a
// word is always exact (found with a count of trailing zeros).
#pragma once

#include <bit>
#include <cstdint>
#include <cstring>

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

// The first byte at or after p for which Flags (word -> flags) or, in the
// last few bytes, Is (byte -> bool) holds; end when there is none.
template <class Flags, class Is>
__attribute__((always_inline)) inline const char* find_first(const char* p, const char* end, Flags flags, Is is) {
    for (; end - p >= 8; p += 8) {
        if (const std::uint64_t f = flags(load(p)); f != 0) return p + (__builtin_ctzll(f) >> 3);
    }
    while (p != end && !is(static_cast<unsigned char>(*p))) ++p;
    return p;
}

}  // namespace miw::byte_scan
