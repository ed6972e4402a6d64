// Image references under the distribution/reference grammar:
//
//   reference  := name [ ":" tag ] [ "@" digest ]
//   name       := [ domain "/" ] path
//   domain     := host [ ":" port ]        host := domain-name | "[" ipv6 "]"
//   path       := component ( "/" component )*
//   component  := [a-z0-9]+ ( ( "." | "_" | "__" | "-"+ ) [a-z0-9]+ )*
//   tag        := [A-Za-z0-9_][A-Za-z0-9_.-]{0,127}
//   digest     := algorithm ":" [0-9a-fA-F]{32,}
//
// Hand-written rather than std::regex: libstdc++'s regex recurses per
// character and falls over on long input, and a hand parser can say which
// part is wrong and where.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace miw {

// The longest repository name (domain and path) the grammar accepts.
inline constexpr std::size_t kMaxNameLength = 255;
inline constexpr std::size_t kMaxTagLength = 128;

enum class ReferencePart { reference, domain, path, tag, digest };

std::string_view to_string(ReferencePart part);

// Views into the parsed string: they live as long as it does.
struct ImageReference {
    std::string_view name;  // domain "/" path, or path alone
    std::string_view domain;  // empty when the name has none
    std::string_view path;
    std::string_view tag;  // empty when there is none
    std::string_view digest;  // "algorithm:hex", empty when there is none
    std::string_view digest_algorithm;
    std::string_view digest_hex;

    bool has_tag() const { return !tag.empty(); }
    bool has_digest() const { return !digest.empty(); }
};

struct ReferenceError {
    ReferencePart part = ReferencePart::reference;
    std::size_t offset = 0;  // 0-based offset into the reference
    std::string message;  // says what is wrong, names the character as 1-based
};

struct ReferenceParse {
    std::optional<ImageReference> reference;
    ReferenceError error;  // meaningful only when reference is empty

    bool ok() const { return reference.has_value(); }
};

ReferenceParse parse_image_reference(std::string_view text);

}  // namespace miw
