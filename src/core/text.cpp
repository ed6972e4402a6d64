#include "model_image_webhook/text.hpp"

#include "byte_scan.hpp"

#include <array>
#include <cstdint>
#include <cstdio>
#include <cstring>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace miw {

namespace {

// Length of the UTF-8 sequence that starts at text[i], or 0 when it is not one.
std::size_t utf8_sequence_length(std::string_view text, std::size_t i) {
    const auto lead = static_cast<unsigned char>(text[i]);
    std::size_t len = 0;
    if (lead < 0x80) return 1;
    if (lead >= 0xc2 && lead <= 0xdf) len = 2;
    else if (lead >= 0xe0 && lead <= 0xef) len = 3;
    else if (lead >= 0xf0 && lead <= 0xf4) len = 4;
    else return 0;
    if (i + len > text.size()) return 0;
    for (std::size_t k = 1; k < len; ++k) {
        if ((static_cast<unsigned char>(text[i + k]) & 0xc0) != 0x80) return 0;
    }
    return len;
}

unsigned decode_code_point(std::string_view text, std::size_t i, std::size_t len) {
    const auto b = [&](std::size_t k) { return static_cast<unsigned>(static_cast<unsigned char>(text[i + k])); };
    switch (len) {
        case 1: return b(0);
        case 2: return ((b(0) & 0x1f) << 6) | (b(1) & 0x3f);
        case 3: return ((b(0) & 0x0f) << 12) | ((b(1) & 0x3f) << 6) | (b(2) & 0x3f);
        default: return ((b(0) & 0x07) << 18) | ((b(1) & 0x3f) << 12) | ((b(2) & 0x3f) << 6) | (b(3) & 0x3f);
    }
}

}  // namespace

CodePoint code_point_at(std::string_view text, std::size_t i) {
    const std::size_t len = utf8_sequence_length(text, i);
    return len == 0 ? CodePoint{} : CodePoint{decode_code_point(text, i, len), len};
}

bool is_printable_ascii(std::string_view text) {
    // 32 bytes (four words) at a time: the body is read once more for this,
    // so it must cost far less than the per-byte checks it spares. A byte is
    // flagged by its high bit (0x80 and up), or by the borrow of subtracting
    // 0x20 from a byte below it (exact once no high bit is set).
    using namespace byte_scan;
    const auto flagged = [](std::uint64_t w) { return high(w) | below(w, 0x20); };
    std::size_t i = 0;
    for (; i + 32 <= text.size(); i += 32) {
        const char* p = text.data() + i;
        if ((flagged(load(p)) | flagged(load(p + 8)) | flagged(load(p + 16)) | flagged(load(p + 24))) != 0) return false;
    }
    for (; i < text.size(); ++i) {
        const auto c = static_cast<unsigned char>(text[i]);
        if (c < 0x20 || c >= 0x80) return false;
    }
    return true;
}

std::string describe_byte_at(std::string_view text, std::size_t offset) {
    char buf[32];
    const CodePoint at = code_point_at(text, offset);
    if (at.length == 0) {
        std::snprintf(buf, sizeof buf, "byte 0x%02X", static_cast<unsigned>(static_cast<unsigned char>(text[offset])));
        return buf;
    }
    const unsigned cp = at.value;
    std::snprintf(buf, sizeof buf, "U+%04X", cp);
    std::string out = buf;
    switch (cp) {
        case ' ': out += " (space)"; break;
        case '\t': out += " (tab)"; break;
        case '\n': out += " (line feed)"; break;
        case '\r': out += " (carriage return)"; break;
        case 0: out += " (NUL)"; break;
        default: break;
    }
    return out;
}

std::string_view utf8_prefix(std::string_view text, std::size_t max_bytes) {
    if (text.size() <= max_bytes) return text;
    std::size_t cut = max_bytes;
    // Step back over continuation bytes to the start of the cut sequence.
    while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xc0) == 0x80) --cut;
    return text.substr(0, cut);
}

std::string cut_with_length(std::string_view text, std::size_t max_bytes) {
    if (text.size() <= max_bytes) return std::string(text);
    return std::string(utf8_prefix(text, max_bytes)) + "...(cut, " + std::to_string(text.size()) + " bytes)";
}

std::string container_named(std::string_view name) { return "container \"" + std::string(utf8_prefix(name, 63)) + "\""; }

namespace {

// The next character of text at i as a message shows it: its bytes, or its
// escape (escaped: Go's %q escapes, else a space for a control character and
// '?' for a byte that is not UTF-8); `taken` its length in text.
std::string_view shown_character(std::string_view text, std::size_t i, bool escaped, char (&buf)[8], std::size_t& taken) {
    const auto c = static_cast<unsigned char>(text[i]);
    taken = 1;
    if (c >= 0x80) {
        const std::size_t len = utf8_sequence_length(text, i);
        const bool c1 = len == 2 && c == 0xc2 && static_cast<unsigned char>(text[i + 1]) <= 0x9f;  // U+0080 to U+009F
        if (len == 0 || c1) {
            taken = len == 0 ? 1 : 2;
            if (!escaped) return len == 0 ? "?" : " ";
            const unsigned value = len == 0 ? c : static_cast<unsigned char>(text[i + 1]);
            std::snprintf(buf, sizeof buf, len == 0 ? "\\x%02x" : "\\u%04x", value);
            return buf;
        }
        taken = len;
        return text.substr(i, len);
    }
    if (escaped) {
        switch (c) {
            case '"': return "\\\"";
            case '\\': return "\\\\";
            case '\n': return "\\n";
            case '\t': return "\\t";
            case '\r': return "\\r";
            default: break;
        }
    }
    if (c < 0x20 || c == 0x7f) {
        if (!escaped) return " ";
        std::snprintf(buf, sizeof buf, "\\x%02x", static_cast<unsigned>(c));
        return buf;
    }
    return text.substr(i, 1);
}

std::size_t append_shown(std::string& out, std::string_view text, std::size_t max_out, bool escaped) {
    char buf[8];
    std::size_t i = 0, written = 0;
    while (i < text.size()) {
        // A run of printable ASCII that needs no escape goes in one append.
        std::size_t run = i;
        while (run < text.size() && run - i < max_out - written) {
            const auto c = static_cast<unsigned char>(text[run]);
            if (c < 0x20 || c >= 0x7f || (escaped && (c == '"' || c == '\\'))) break;
            ++run;
        }
        if (run > i) {
            out.append(text, i, run - i);
            written += run - i;
            i = run;
            continue;
        }
        std::size_t taken = 0;
        const std::string_view shown = shown_character(text, i, escaped, buf, taken);
        if (written + shown.size() > max_out) break;
        out.append(shown);
        written += shown.size();
        i += taken;
    }
    return i;
}

}  // namespace

std::size_t append_go_escaped(std::string& out, std::string_view text, std::size_t max_out) { return append_shown(out, text, max_out, true); }

std::size_t append_printable(std::string& out, std::string_view text, std::size_t max_out) { return append_shown(out, text, max_out, false); }

std::string quote_value(std::string_view value, std::size_t max_bytes) {
    const std::string_view shown = utf8_prefix(value, max_bytes);
    std::string out = "\"";
    append_go_escaped(out, shown);
    out += '"';
    if (shown.size() < value.size()) out += "... (" + std::to_string(value.size()) + " bytes)";
    return out;
}

std::string printable_line(std::string_view text, std::size_t max_bytes) {
    std::string out(utf8_prefix(text, max_bytes));
    for (char& c : out) {
        const auto u = static_cast<unsigned char>(c);
        if (u < 0x20 || u == 0x7f) c = ' ';
    }
    return out;
}

std::string hex_encode(std::string_view bytes) {
    static constexpr char kHex[] = "0123456789abcdef";
    std::string out;
    out.reserve(bytes.size() * 2);
    for (unsigned char c : bytes) {
        out += kHex[c >> 4];
        out += kHex[c & 15];
    }
    return out;
}

std::optional<std::string> hex_decode(std::string_view text) {
    if (text.size() % 2 != 0) return std::nullopt;
    const auto nibble = [](char c) -> int {
        if (c >= '0' && c <= '9') return c - '0';
        if (c >= 'a' && c <= 'f') return c - 'a' + 10;
        if (c >= 'A' && c <= 'F') return c - 'A' + 10;
        return -1;
    };
    std::string out;
    out.reserve(text.size() / 2);
    for (std::size_t i = 0; i < text.size(); i += 2) {
        const int high = nibble(text[i]), low = nibble(text[i + 1]);
        if (high < 0 || low < 0) return std::nullopt;
        out += static_cast<char>(high << 4 | low);
    }
    return out;
}

std::vector<std::string_view> comma_separated(std::string_view text) {
    std::vector<std::string_view> out;
    while (!text.empty()) {
        const std::size_t comma = text.find(',');
        std::string_view item = text.substr(0, comma);
        text = comma == std::string_view::npos ? std::string_view() : text.substr(comma + 1);
        while (!item.empty() && item.front() == ' ') item.remove_prefix(1);
        while (!item.empty() && item.back() == ' ') item.remove_suffix(1);
        if (!item.empty()) out.push_back(item);
    }
    return out;
}

std::string percent_encode(std::string_view text, std::string_view keep) {
    static const char* kHex = "0123456789ABCDEF";
    std::string out;
    for (unsigned char c : text) {
        const bool unreserved = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' || c == '.' || c == '_' || c == '~';
        if (unreserved || keep.find(static_cast<char>(c)) != std::string_view::npos) {
            out += static_cast<char>(c);
        } else {
            out += '%';
            out += kHex[c >> 4];
            out += kHex[c & 15];
        }
    }
    return out;
}

std::string warning_line(std::string_view text) {
    constexpr std::string_view kEllipsis = "...";
    std::string out = text.size() <= kMaxWarningBytes ? std::string(text) : std::string(utf8_prefix(text, kMaxWarningBytes - kEllipsis.size())) + std::string(kEllipsis);
    // A warning is printable ASCII as a rule: passed over sixteen bytes at a time.
    const char* const begin = out.data();
    for (auto i = static_cast<std::size_t>(byte_scan::find_outside<0x20, 0x7e>(begin, begin + out.size()) - begin); i < out.size(); ++i) {
        const auto u = static_cast<unsigned char>(out[i]);
        if (u < 0x20 || u == 0x7f) {
            out[i] = ' ';
        } else if (u == 0xc2 && i + 1 < out.size() && static_cast<unsigned char>(out[i + 1]) >= 0x80 && static_cast<unsigned char>(out[i + 1]) <= 0x9f) {
            // A C1 control (U+0080 to U+009F) takes two bytes: one space, and the length shrinks.
            out.replace(i, 2, " ");
        }
    }
    return out;
}

namespace {

// Each 12 bits of input as their two base64 characters: half the lookups of
// one character at a time. Patches are encoded once per admission.
using Base64Pairs = std::array<std::array<char, 2>, 4096>;
constexpr Base64Pairs make_base64_pairs() {
    constexpr char kAlphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    Base64Pairs pairs{};
    for (std::size_t i = 0; i < pairs.size(); ++i) pairs[i] = {kAlphabet[i >> 6], kAlphabet[i & 63]};
    return pairs;
}
constexpr Base64Pairs kBase64Pairs = make_base64_pairs();

#if defined(__x86_64__)
// Twelve bytes at a time with SSSE3's byte shuffle (Muła and Lemire's
// method): each 3 bytes spread over a 32-bit lane, the four 6-bit values
// moved into its four bytes by two masks and two multiplies, and each value
// turned into its character by adding the offset of its range of the
// alphabet. The 16-byte loads need 4 readable bytes past the 12 encoded.
// Returns the bytes encoded; the rest is for the scalar loop.
__attribute__((target("ssse3"))) std::size_t base64_encode_ssse3(const unsigned char* in, std::size_t size, char* out) {
    // Lane k of 3 bytes a, b, c (offsets 3k..3k+2) as the bytes b, a, c, b.
    const __m128i spread = _mm_set_epi8(10, 11, 9, 10, 7, 8, 6, 7, 4, 5, 3, 4, 1, 2, 0, 1);
    // Per range of 6-bit values, what turns the value into its character:
    // 0-25 'A'.., 26-51 'a'.., 52-61 '0'.., 62 '+', 63 '/' (indexed below).
    const __m128i offsets = _mm_setr_epi8('a' - 26, '0' - 52, '0' - 52, '0' - 52, '0' - 52, '0' - 52, '0' - 52, '0' - 52, '0' - 52, '0' - 52,
                                          '0' - 52, '+' - 62, '/' - 63, 'A', 0, 0);
    std::size_t done = 0;
    for (; done + 16 <= size; done += 12, out += 16) {
        const __m128i lanes = _mm_shuffle_epi8(_mm_loadu_si128(reinterpret_cast<const __m128i*>(in + done)), spread);
        // As 16-bit words, a lane is (a b) then (b c): the first and third
        // values are shifted down by the high half of a multiply, the second
        // and fourth up into the lane's second and fourth bytes.
        const __m128i first_third = _mm_mulhi_epu16(_mm_and_si128(lanes, _mm_set1_epi32(0x0fc0fc00)), _mm_set1_epi32(0x04000040));
        const __m128i second_fourth = _mm_mullo_epi16(_mm_and_si128(lanes, _mm_set1_epi32(0x003f03f0)), _mm_set1_epi32(0x01000010));
        const __m128i values = _mm_or_si128(first_third, second_fourth);
        // The offset's index: 0 for 26-51, 1-12 for 52-63, 13 for 0-25.
        __m128i range = _mm_subs_epu8(values, _mm_set1_epi8(51));
        range = _mm_or_si128(range, _mm_and_si128(_mm_cmpgt_epi8(_mm_set1_epi8(26), values), _mm_set1_epi8(13)));
        _mm_storeu_si128(reinterpret_cast<__m128i*>(out), _mm_add_epi8(values, _mm_shuffle_epi8(offsets, range)));
    }
    return done;
}

// A namespace-scope initializer may run before libgcc's own has read the CPU's
// features: read them here first, as GCC's manual asks of such callers.
const bool kHasSsse3 = [] {
    __builtin_cpu_init();
    return __builtin_cpu_supports("ssse3") != 0;
}();
#endif

}  // namespace

std::size_t base64_length(std::size_t bytes) { return (bytes + 2) / 3 * 4; }

void base64_encode_into(std::string_view bytes, char* out) {
    const auto* in = reinterpret_cast<const unsigned char*>(bytes.data());
    std::size_t i = 0;
#if defined(__x86_64__)
    if (kHasSsse3) {
        i = base64_encode_ssse3(in, bytes.size(), out);
        out += i / 3 * 4;
    }
#endif
    for (; i + 3 <= bytes.size(); i += 3, out += 4) {
        const unsigned n = (unsigned{in[i]} << 16) | (unsigned{in[i + 1]} << 8) | in[i + 2];
        std::memcpy(out, kBase64Pairs[n >> 12].data(), 2);
        std::memcpy(out + 2, kBase64Pairs[n & 0xfff].data(), 2);
    }
    if (const std::size_t rest = bytes.size() - i; rest > 0) {
        const unsigned n = (unsigned{in[i]} << 16) | (rest == 2 ? unsigned{in[i + 1]} << 8 : 0u);
        std::memcpy(out, kBase64Pairs[n >> 12].data(), 2);
        out[2] = rest == 2 ? kBase64Pairs[n & 0xfff][0] : '=';
        out[3] = '=';
    }
}

std::string base64_encode(std::string_view bytes) {
    std::string out(base64_length(bytes.size()), '=');
    base64_encode_into(bytes, out.data());
    return out;
}

std::string join(const std::string_view* items, std::size_t count, std::string_view separator) {
    std::string out;
    for (std::size_t i = 0; i < count; ++i) {
        if (i) out += separator;
        out += items[i];
    }
    return out;
}

std::optional<std::string> base64_decode(std::string_view text) {
    while (!text.empty() && text.back() == '=') text.remove_suffix(1);
    if (text.size() % 4 == 1) return std::nullopt;
    std::string out;
    out.reserve(text.size() * 3 / 4);
    std::uint32_t bits = 0;
    int held = 0;
    for (const char c : text) {
        int v;
        if (c >= 'A' && c <= 'Z') v = c - 'A';
        else if (c >= 'a' && c <= 'z') v = c - 'a' + 26;
        else if (c >= '0' && c <= '9') v = c - '0' + 52;
        else if (c == '+') v = 62;
        else if (c == '/') v = 63;
        else return std::nullopt;
        bits = (bits << 6) | static_cast<std::uint32_t>(v);
        held += 6;
        if (held >= 8) {
            held -= 8;
            out.push_back(static_cast<char>((bits >> held) & 0xFF));
        }
    }
    return out;
}

}  // namespace miw

namespace miw {

bool is_object_name(std::string_view name) {
    if (name.empty() || name.size() > 253 || name == "." || name == "..") return false;
    for (char c : name) {
        if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '.')) return false;
    }
    return true;
}

}  // namespace miw
