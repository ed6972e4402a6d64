// A skipped value's text taken 64 bytes at a time: bit masks of a block's
// quotes, backslashes, unusual bytes and structural characters, and from them
// the bytes inside strings and the tokens between them. Used by the compact
// reader where a value is checked but not kept (kubectl's last-applied
// annotation, metadata.managedFields): each function takes what it can prove
// well-formed and leaves everything else to the reader's byte-by-byte loop,
// which words nothing itself and declines whatever is broken.
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace miw::compact_json {

#if defined(__SSE2__)
// Bit i of each mask: byte i of the 64 at p is a quote, a backslash, or a
// control character or a byte beyond ASCII (a signed compare takes 0x80 and
// up as below 0x20).
struct Block64 {
    std::uint64_t quote = 0, backslash = 0, unusual = 0;
};

inline std::uint64_t lane_bits(__m128i m) { return static_cast<std::uint64_t>(static_cast<unsigned>(_mm_movemask_epi8(m))); }

inline Block64 classify_block(const char* p) {
    Block64 b;
    for (int i = 0; i < 4; ++i) {
        const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + 16 * i));
        b.quote |= lane_bits(_mm_cmpeq_epi8(v, _mm_set1_epi8('"'))) << (16 * i);
        b.backslash |= lane_bits(_mm_cmpeq_epi8(v, _mm_set1_epi8('\\'))) << (16 * i);
        b.unusual |= lane_bits(_mm_cmplt_epi8(v, _mm_set1_epi8(0x20))) << (16 * i);
    }
    return b;
}

// The bytes that follow a run of backslashes of odd length: the escaped
// ones. A run's start bit added to the mask carries through the run into the
// bit after it; the run's length is odd when that bit and the start differ in
// parity. A run that reaches the last bit carries out of the word: the caller
// looks at it.
inline std::uint64_t escaped_bytes(std::uint64_t backslash) {
    constexpr std::uint64_t kEven = 0x5555555555555555ull;  // bits 0, 2, 4, ...
    const std::uint64_t starts = backslash & ~(backslash << 1);
    const std::uint64_t after_even_starts = (backslash + (starts & kEven)) & ~backslash;
    const std::uint64_t after_odd_starts = (backslash + (starts & ~kEven)) & ~backslash;
    return (after_even_starts & ~kEven) | (after_odd_starts & kEven);
}

// Whether the block's last byte ends a run of backslashes of odd length,
// which escapes the next block's first byte (escaped_bytes loses it).
inline bool escapes_next_block(std::uint64_t backslash) { return (backslash >> 63) != 0 && (std::countl_one(backslash) & 1) != 0; }

// Bit i set where an odd number of bits at or below i are: with the
// unescaped quotes, a string's opening quote and the bytes inside it.
inline std::uint64_t prefix_xor(std::uint64_t m) {
    m ^= m << 1;
    m ^= m << 2;
    m ^= m << 4;
    m ^= m << 8;
    m ^= m << 16;
    m ^= m << 32;
    return m;
}

// A skipped string's text from p (never the byte after an escape's
// backslash) taken 64 bytes at a time while its bytes are printable ASCII and
// its only escapes are \" and \\ (kubectl's last-applied annotation: an
// escape every few bytes, which the loop a stop at a time pays for each):
// true with p past the closing quote; false with p at the first block that
// holds anything else, or ends inside an escape, or is short of 64 bytes,
// for the byte-by-byte loop to read on.
inline bool skip_plain_blocks(const char*& p, const char* end) {
    for (; end - p >= 64; p += 64) {
        const Block64 b = classify_block(p);
        const std::uint64_t escaped = escaped_bytes(b.backslash);
        const std::uint64_t closing = b.quote & ~escaped;
        const std::uint64_t before = closing != 0 ? (closing & (0 - closing)) - 1 : ~0ull;
        if ((b.unusual & before) != 0 || (escaped & before & ~(b.quote | b.backslash)) != 0) return false;
        if (closing != 0) {
            p += std::countr_zero(closing) + 1;
            return true;
        }
        if (escapes_next_block(b.backslash)) return false;
    }
    return false;
}

// Bit i of each mask: byte i of the 64 at p is { or [ (open), } or ]
// (close), a colon or a comma; curly tells braces from brackets (a byte
// with 0x20 already set: { and }, not [ and ]).
struct Structure64 {
    std::uint64_t open = 0, close = 0, curly = 0, colon = 0, comma = 0;
};

inline Structure64 classify_structure(const char* p) {
    Structure64 s;
    for (int i = 0; i < 4; ++i) {
        const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + 16 * i));
        const __m128i folded = _mm_or_si128(v, _mm_set1_epi8(0x20));  // [ and ] read as { and }
        s.open |= lane_bits(_mm_cmpeq_epi8(folded, _mm_set1_epi8('{'))) << (16 * i);
        s.close |= lane_bits(_mm_cmpeq_epi8(folded, _mm_set1_epi8('}'))) << (16 * i);
        s.curly |= lane_bits(_mm_cmpeq_epi8(v, folded)) << (16 * i);
        s.colon |= lane_bits(_mm_cmpeq_epi8(v, _mm_set1_epi8(':'))) << (16 * i);
        s.comma |= lane_bits(_mm_cmpeq_epi8(v, _mm_set1_epi8(','))) << (16 * i);
    }
    return s;
}

// A skipped object or array from p (its { or [) taken 64 bytes at a time
// while it holds only objects, arrays and strings, with no space between
// tokens, its strings printable ASCII whose only escapes are \" and \\: what
// the apiserver writes for metadata.managedFields (keys such as
// "k:{\"name\":\"model\"}" and empty objects, a token every four bytes,
// which the byte-by-byte loop pays a dispatch each for). With no space,
// JSON's grammar over such a value is a rule on each pair of neighbouring
// tokens, checked on whole masks, plus two that need the container a token
// is in: a key is a string after { or after a comma in an object, and is
// followed by a colon (the only place one may be); a close matches its open.
// Only the opens and closes of non-empty containers are taken one by one
// (a stack of their kinds; the kind of container each byte is in, from
// where it changes). Nesting close to `room` open containers is not taken:
// the reader declines past it. `object_at` holds room entries.
// True with p past the value's last byte; false with p where it was, for
// the byte-by-byte loop to read the value from its start: a number, a
// literal, a space, an escape of another kind, a byte beyond ASCII,
// anything broken, or a value that ends within 64 bytes of the text's end.
inline bool skip_container_blocks(const char*& p, const char* end, std::size_t room, bool* object_at) {
    if (end - p < 64 || (*p != '{' && *p != '[')) return false;  // the first bracket read must be the value's own open
    const auto after = [](std::uint64_t bits, std::uint64_t carried) { return bits << 1 | carried; };  // the bytes that follow
    std::size_t open = 0;
    bool in_object = false;    // the container the block before ended in is an object
    bool in_string = false;    // ... it ended inside a string
    bool in_key = false;       // ... that string is a member's key
    bool escape_next = false;  // ... with a backslash that escapes this block's first byte
    // Bit 63 of the block before, of each mask that says what may follow.
    std::uint64_t last_object_open = 0, last_array_open = 0, last_separator = 0, last_member_comma = 0, last_value_end = 0,
                  last_key_end = 0, last_opener = 0;
    for (const char* block = p; end - block >= 64; block += 64) {
        const Block64 b = classify_block(block);
        const Structure64 t = classify_structure(block);
        std::uint64_t backslash = b.backslash;
        std::uint64_t escaped = 0;
        if (escape_next) {
            backslash &= ~1ull;
            escaped = 1;
        }
        escaped |= escaped_bytes(backslash);
        escape_next = escapes_next_block(backslash);
        const std::uint64_t quotes = b.quote & ~escaped;
        const std::uint64_t strings = prefix_xor(quotes) ^ (in_string ? ~0ull : 0);  // opening quotes and what follows them
        in_string = (strings >> 63) != 0;
        const std::uint64_t starts = quotes & strings;
        const std::uint64_t ends = quotes & ~strings;
        const std::uint64_t outside = ~(strings | quotes);
        const std::uint64_t opens = t.open & outside;
        const std::uint64_t closes = t.close & outside;
        const std::uint64_t object_opens = opens & t.curly;
        const std::uint64_t array_opens = opens & ~t.curly;
        const std::uint64_t colons = t.colon & outside;
        const std::uint64_t commas = t.comma & outside;

        // The kind of container each byte is in, from the opens and closes of
        // non-empty containers in order (an empty one's two bytes are a value,
        // their match checked by the pair rules); the skipped value itself is
        // always taken.
        std::uint64_t empty_opens = (object_opens & (closes & t.curly) >> 1) | (array_opens & (closes & ~t.curly) >> 1);
        if (block == p) empty_opens &= ~1ull;
        std::uint64_t brackets = (opens | closes) & ~(empty_opens | empty_opens << 1);
        const bool object_at_start = in_object;
        std::uint64_t changes = 0;  // where the kind of container changes
        std::uint64_t within = ~0ull;  // the bytes of this block up to the value's end
        bool closed = false;
        while (brackets != 0) {
            const int i = std::countr_zero(brackets);
            brackets &= brackets - 1;
            const bool object = ((t.curly >> i) & 1) != 0;
            if (((opens >> i) & 1) != 0) {
                if (open + 2 > room) return false;  // leaves a level for an empty container inside
                object_at[open++] = object;
                if (object != in_object) changes |= 1ull << i;
                in_object = object;
            } else {
                if (object_at[open - 1] != object) return false;
                if (--open == 0) {
                    within = i == 63 ? ~0ull : (2ull << i) - 1;
                    closed = true;
                    break;
                }
                // The close itself belongs to the container it closes.
                if (object_at[open - 1] != in_object && i < 63) changes |= 2ull << i;
                in_object = object_at[open - 1];
            }
        }
        const std::uint64_t in_objects = prefix_xor(changes) ^ (object_at_start ? ~0ull : 0);

        // Keys: the strings that start after { or after a comma in an object;
        // a key's closing quote is where the carry of its start, added to the
        // string's run of bits, comes out.
        const std::uint64_t openers = object_opens | commas;
        const std::uint64_t key_starts = starts & after(openers, last_opener) & in_objects;
        std::uint64_t sum = 0;
        const bool key_runs_on = __builtin_add_overflow(strings, key_starts, &sum) | __builtin_add_overflow(sum, std::uint64_t{in_key}, &sum);
        const std::uint64_t key_ends = sum & ends;
        in_key = key_runs_on;

        const std::uint64_t value_starts = starts | opens;
        const std::uint64_t value_ends = ends | closes;
        // Each byte outside strings follows a token or a string's end, so the
        // rules on what follows those also refuse a number, a literal, a space
        // or a stray byte.
        std::uint64_t broken = b.unusual & strings;     // a control character or a byte beyond ASCII
        broken |= escaped & ~(b.quote | b.backslash);  // an escape other than \" and \\ .
        broken |= after(object_opens, last_object_open) & ~(starts | closes);
        broken |= after(array_opens, last_array_open) & ~(value_starts | closes);
        broken |= after(colons | commas, last_separator) & ~value_starts;
        broken |= after(commas & in_objects, last_member_comma) & ~starts;
        broken |= after(value_ends, last_value_end) & ~(colons | commas | closes);
        broken |= after(key_ends, last_key_end) ^ colons;  // a colon after each key, and nowhere else
        if ((broken & within) != 0) return false;
        if (closed) {
            p = block + std::bit_width(within);
            return true;
        }
        last_object_open = object_opens >> 63;
        last_array_open = array_opens >> 63;
        last_separator = (colons | commas) >> 63;
        last_member_comma = (commas & in_objects) >> 63;
        last_value_end = value_ends >> 63;
        last_key_end = key_ends >> 63;
        last_opener = openers >> 63;
    }
    return false;
}
#endif

}  // namespace miw::compact_json
