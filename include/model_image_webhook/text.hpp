// Small text helpers shared by the parsers and the policy messages.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace miw {

// The code point of the UTF-8 sequence that starts at text[i], and its length
// in bytes; length 0 (and value 0) where the bytes there are not one.
struct CodePoint {
    unsigned value = 0;
    std::size_t length = 0;
};
CodePoint code_point_at(std::string_view text, std::size_t i);

// Names the character at text[offset] for a message: "U+0430", "U+0009 (tab)",
// "byte 0xFF" where the bytes are not UTF-8.
std::string describe_byte_at(std::string_view text, std::size_t offset);

// The longest prefix of text that is at most max_bytes long and does not cut
// a UTF-8 sequence in two.
std::string_view utf8_prefix(std::string_view text, std::size_t max_bytes);

// text as it is when it is at most max_bytes long; else its utf8_prefix and
// "...(cut, N bytes)", so a client-chosen megabyte is not repeated whole.
std::string cut_with_length(std::string_view text, std::size_t max_bytes);

// `container "NAME"`, as warnings and messages name a container: the name
// cut to 63 bytes (the most a valid one has), so that a client-chosen
// megabyte is not repeated.
std::string container_named(std::string_view name);

// text escaped as Go's %q escapes it (without the quotes), appended to out
// character by character while out grows by at most max_out bytes; returns
// how many bytes of text were taken. C1 controls are escaped too (\u0080).
std::size_t append_go_escaped(std::string& out, std::string_view text, std::size_t max_out = static_cast<std::size_t>(-1));
// The same for text shown bare: a control character as a space, a byte that
// is not UTF-8 as '?'.
std::size_t append_printable(std::string& out, std::string_view text, std::size_t max_out = static_cast<std::size_t>(-1));

// A value as Go's %q prints it in a field error ("..." with escapes), cut to
// about max_bytes so that a megabyte of input is not echoed back.
std::string quote_value(std::string_view value, std::size_t max_bytes = 128);

// Control characters replaced by spaces and the text cut to max_bytes: the
// apiserver drops warnings that hold control characters or run too long.
std::string printable_line(std::string_view text, std::size_t max_bytes);

// A warning as the apiserver passes it on: control characters (C0, DEL and
// C1) replaced by spaces, and a text over kMaxWarningBytes cut at a character
// boundary with "..." at its end, so a long message arrives cut, not dropped.
inline constexpr std::size_t kMaxWarningBytes = 256;
std::string warning_line(std::string_view text);

// Bytes as lowercase hex digits.
std::string hex_encode(std::string_view bytes);
// Hex digits (either case) as bytes; nullopt for an odd count or a non-digit.
std::optional<std::string> hex_decode(std::string_view text);

// A comma-separated flag value's items, each without the spaces around it,
// empty ones dropped ("a, b,,c" is a, b, c).
std::vector<std::string_view> comma_separated(std::string_view text);

// RFC 3986 percent-encoding: every byte but the unreserved characters
// (letters, digits, - . _ ~) and those in `keep` as %XX.
std::string percent_encode(std::string_view text, std::string_view keep = {});

// Standard base64 with padding (RFC 4648), as AdmissionResponse.patch travels.
std::string base64_encode(std::string_view bytes);
// The same written to out, which has room for base64_length(bytes.size()) characters.
std::size_t base64_length(std::size_t bytes);
void base64_encode_into(std::string_view bytes, char* out);
// Standard base64, padding optional; nullopt for any other character.
std::optional<std::string> base64_decode(std::string_view text);

// True when every byte of text is printable ASCII, 0x20 to 0x7F: no UTF-8
// sequence that could be invalid, and no control character.
bool is_printable_ascii(std::string_view text);

// A name as Kubernetes names most objects (Nodes, Secrets, ServiceAccounts),
// and as lenient as the path segment it becomes may be: a DNS-1123 subdomain's
// characters, 253 at most. Anything else cannot name one and must not reach a
// request path.
bool is_object_name(std::string_view name);

// "a, b and c"
std::string join(const std::string_view* items, std::size_t count, std::string_view separator);

}  // namespace miw
