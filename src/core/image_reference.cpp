#include "model_image_webhook/image_reference.hpp"

#include "model_image_webhook/text.hpp"

#include "byte_scan.hpp"

#include <algorithm>

namespace miw {

std::string_view to_string(ReferencePart part) {
    switch (part) {
        case ReferencePart::reference: return "reference";
        case ReferencePart::domain: return "domain";
        case ReferencePart::path: return "path";
        case ReferencePart::tag: return "tag";
        case ReferencePart::digest: return "digest";
    }
    return "reference";
}

namespace {

bool is_lower_alnum(char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'); }
bool is_upper(char c) { return c >= 'A' && c <= 'Z'; }
bool is_digit(char c) { return c >= '0' && c <= '9'; }
bool is_alpha(char c) { return (c >= 'a' && c <= 'z') || is_upper(c); }
bool is_alnum(char c) { return is_alpha(c) || is_digit(c); }
bool is_hex(char c) { return is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'); }
bool is_tag_char(char c) { return is_alnum(c) || c == '_' || c == '.' || c == '-'; }

ReferenceParse fail(ReferencePart part, std::size_t offset, std::string message) {
    ReferenceParse out;
    out.error = ReferenceError{part, offset, std::move(message)};
    return out;
}

std::string at_char(std::size_t offset) { return " at character " + std::to_string(offset + 1); }

// A character that no part of a reference may hold, anywhere.
std::optional<ReferenceParse> reject_foreign_characters(std::string_view text) {
    // Visible ASCII throughout, nearly always: found in one pass.
    const char* const end = text.data() + text.size();
    const char* const at = byte_scan::find_outside<0x21, 0x7e>(text.data(), end);
    if (at == end) return std::nullopt;
    const auto i = static_cast<std::size_t>(at - text.data());
    const auto c = static_cast<unsigned char>(*at);
    std::string what;
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f') {
        what = "whitespace (" + describe_byte_at(text, i) + ")";
    } else if (c < 0x80) {
        what = "control character " + describe_byte_at(text, i);
    } else {
        what = "non-ASCII character " + describe_byte_at(text, i) + " (image references are ASCII only; a look-alike letter is a common cause)";
    }
    return fail(ReferencePart::reference, i, what + at_char(i) + " is not allowed");
}

// domain-component := [a-zA-Z0-9] | [a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9]
std::optional<std::string> check_domain_name(std::string_view host, std::size_t base) {
    std::size_t start = 0;
    while (true) {
        const std::size_t dot = host.find('.', start);
        const std::string_view comp = host.substr(start, dot == std::string_view::npos ? host.npos : dot - start);
        if (comp.empty()) return "empty domain component" + at_char(base + start);
        for (std::size_t i = 0; i < comp.size(); ++i) {
            const char c = comp[i];
            if (is_alnum(c)) continue;
            if (c == '-' && i != 0 && i + 1 != comp.size()) continue;
            if (c == '-') return "domain component \"" + std::string(comp) + "\" starts or ends with '-'" + at_char(base + start + i);
            return "character '" + std::string(1, c) + "'" + at_char(base + start + i) + " is not allowed in a domain";
        }
        if (dot == std::string_view::npos) return std::nullopt;
        start = dot + 1;
    }
}

// domain := ( domain-name | "[" [a-fA-F0-9:]+ "]" ) [ ":" [0-9]+ ]
std::optional<std::string> check_domain(std::string_view domain) {
    std::size_t host_end = 0;
    if (!domain.empty() && domain.front() == '[') {
        const std::size_t close = domain.find(']');
        if (close == std::string_view::npos) return std::string("'[' opens an IPv6 address that ']' never closes");
        if (close == 1) return std::string("empty IPv6 address") + at_char(1);
        for (std::size_t i = 1; i < close; ++i) {
            if (!is_hex(domain[i]) && domain[i] != ':') {
                return "character '" + std::string(1, domain[i]) + "'" + at_char(i) +
                       " is not allowed in an IPv6 address (zones such as %eth0 are not accepted)";
            }
        }
        host_end = close + 1;
    } else {
        host_end = std::min(domain.find(':'), domain.size());
        if (auto err = check_domain_name(domain.substr(0, host_end), 0)) return err;
    }
    if (host_end == domain.size()) return std::nullopt;
    if (domain[host_end] != ':') return "character '" + std::string(1, domain[host_end]) + "'" + at_char(host_end) + " follows the host; expected ':' and a port";
    const std::string_view port = domain.substr(host_end + 1);
    if (port.empty()) return "empty port" + at_char(host_end);
    for (std::size_t i = 0; i < port.size(); ++i) {
        if (!is_digit(port[i])) return "port \"" + std::string(port) + "\" is not a number" + at_char(host_end + 1 + i);
    }
    return std::nullopt;
}

// component := [a-z0-9]+ ( ( "." | "_" | "__" | "-"+ ) [a-z0-9]+ )*
// Returns the offset inside comp of the first character that breaks it.
std::optional<std::size_t> bad_path_component_char(std::string_view comp) {
    if (comp.empty()) return 0;
    std::size_t i = 0;
    while (true) {
        if (i >= comp.size() || !is_lower_alnum(comp[i])) return i;
        while (i < comp.size() && is_lower_alnum(comp[i])) ++i;
        if (i == comp.size()) return std::nullopt;
        if (comp[i] == '.') {
            ++i;
        } else if (comp[i] == '_') {
            ++i;
            if (i < comp.size() && comp[i] == '_') ++i;
        } else if (comp[i] == '-') {
            while (i < comp.size() && comp[i] == '-') ++i;
        } else {
            return i;
        }
    }
}

std::optional<ReferenceParse> check_path(std::string_view path, std::size_t base) {
    std::size_t start = 0;
    while (true) {
        const std::size_t slash = path.find('/', start);
        const std::string_view comp = path.substr(start, slash == std::string_view::npos ? path.npos : slash - start);
        if (auto bad = bad_path_component_char(comp)) {
            const std::size_t at = base + start + *bad;
            if (comp.empty()) return fail(ReferencePart::path, at, "empty path component" + at_char(at) + " (a leading, trailing or doubled '/')");
            const char c = *bad < comp.size() ? comp[*bad] : '\0';
            std::string lowered(comp);
            std::transform(lowered.begin(), lowered.end(), lowered.begin(), [](char ch) { return is_upper(ch) ? char(ch - 'A' + 'a') : ch; });
            if (!bad_path_component_char(lowered)) {
                return fail(ReferencePart::path, at, "repository path component \"" + std::string(comp) + "\" must be lowercase (uppercase" + at_char(at) + ")");
            }
            if (*bad >= comp.size()) {
                return fail(ReferencePart::path, at - 1, "repository path component \"" + std::string(comp) + "\" ends with a separator" + at_char(at - 1));
            }
            if (*bad == 0 || !is_lower_alnum(c)) {
                const bool separator = c == '.' || c == '_' || c == '-';
                return fail(ReferencePart::path, at,
                            std::string(separator ? "separator '" : "character '") + c + "'" + at_char(at) + " is not allowed here in path component \"" +
                                std::string(comp) + "\" (components are lowercase letters and digits joined by '.', '_', '__' or dashes)");
            }
            return fail(ReferencePart::path, at, "character '" + std::string(1, c) + "'" + at_char(at) + " is not allowed in a repository path");
        }
        if (slash == std::string_view::npos) return std::nullopt;
        start = slash + 1;
    }
}

std::optional<ReferenceParse> check_tag(std::string_view tag, std::size_t base) {
    if (tag.empty()) return fail(ReferencePart::tag, base, "empty tag after ':'" + at_char(base - 1));
    if (tag.size() > kMaxTagLength) {
        return fail(ReferencePart::tag, base, "tag is " + std::to_string(tag.size()) + " characters long; at most " + std::to_string(kMaxTagLength) + " are allowed");
    }
    for (std::size_t i = 0; i < tag.size(); ++i) {
        const char c = tag[i];
        const bool ok = i == 0 ? (is_alnum(c) || c == '_') : is_tag_char(c);
        if (!ok) {
            return fail(ReferencePart::tag, base + i,
                        "character '" + std::string(1, c) + "'" + at_char(base + i) +
                            (i == 0 ? " cannot start a tag" : " is not allowed in a tag") + " (tags are [A-Za-z0-9_][A-Za-z0-9_.-]*)");
        }
    }
    return std::nullopt;
}

// digest := algorithm ":" hex{32,}; algorithm := [A-Za-z][A-Za-z0-9]* ( [-_+.] [A-Za-z][A-Za-z0-9]* )*
std::optional<ReferenceParse> check_digest(std::string_view digest, std::size_t base, ImageReference& out) {
    const std::size_t colon = digest.find(':');
    if (colon == std::string_view::npos) {
        return fail(ReferencePart::digest, base, "digest \"" + std::string(digest) + "\" has no ':'; expected algorithm:hex such as sha256:<64 hex>");
    }
    const std::string_view alg = digest.substr(0, colon);
    const std::string_view hex = digest.substr(colon + 1);
    if (alg.empty()) return fail(ReferencePart::digest, base, "digest algorithm is empty" + at_char(base));
    bool component_start = true;
    for (std::size_t i = 0; i < alg.size(); ++i) {
        const char c = alg[i];
        const bool ok = component_start ? is_alpha(c) : (is_alnum(c) || c == '-' || c == '_' || c == '+' || c == '.');
        if (!ok) return fail(ReferencePart::digest, base + i, "character '" + std::string(1, c) + "'" + at_char(base + i) + " is not allowed in the digest algorithm");
        component_start = c == '-' || c == '_' || c == '+' || c == '.';
    }
    if (component_start) return fail(ReferencePart::digest, base + alg.size() - 1, "digest algorithm ends with a separator" + at_char(base + alg.size() - 1));
    if (const char* bad = byte_scan::find_non_hex<false>(hex.data(), hex.data() + hex.size()); bad != hex.data() + hex.size()) {
        const std::size_t at = base + colon + 1 + static_cast<std::size_t>(bad - hex.data());
        return fail(ReferencePart::digest, at, "character '" + std::string(1, *bad) + "'" + at_char(at) + " is not a hex digit in the digest");
    }
    if (hex.size() < 32) {
        return fail(ReferencePart::digest, base + colon + 1, "digest has " + std::to_string(hex.size()) + " hex digits; at least 32 are required");
    }
    out.digest = digest;
    out.digest_algorithm = alg;
    out.digest_hex = hex;
    return std::nullopt;
}

}  // namespace

ReferenceParse parse_image_reference(std::string_view text) {
    if (text.empty()) return fail(ReferencePart::reference, 0, "the reference is empty");
    if (auto bad = reject_foreign_characters(text)) return *bad;

    ImageReference ref;
    const std::size_t at = text.find('@');
    std::string_view name_and_tag = text.substr(0, at);

    // A tag follows the last ':' that comes after the last '/': a path holds
    // no ':', and the ':' of a port always precedes a '/'.
    const std::size_t last_slash = name_and_tag.rfind('/');
    const std::size_t colon = name_and_tag.find(':', last_slash == std::string_view::npos ? 0 : last_slash + 1);
    const std::string_view name = name_and_tag.substr(0, colon);
    if (name.empty()) return fail(ReferencePart::path, 0, "the repository name is missing before '" + std::string(1, text[0]) + "'");

    // The first component is the domain when it parses as one and a path
    // follows; otherwise every component belongs to the path (as upstream's
    // regular expression decides it).
    const std::size_t first_slash = name.find('/');
    std::size_t path_start = 0;
    if (first_slash != std::string_view::npos) {
        const std::string_view first = name.substr(0, first_slash);
        const auto domain_error = check_domain(first);
        if (!domain_error) {
            ref.domain = first;
            path_start = first_slash + 1;
        } else if (first.find_first_of(":[]") != std::string_view::npos || bad_path_component_char(first)) {
            // Neither a domain nor a path component: a port or brackets say
            // it was meant as a domain, so say what is wrong with that.
            if (first.find_first_of(":[]") != std::string_view::npos) {
                return fail(ReferencePart::domain, 0, "registry domain \"" + std::string(first) + "\": " + *domain_error);
            }
        }
    } else if (name.front() == '[') {
        return fail(ReferencePart::domain, 0, "an IPv6 registry host must be followed by '/' and a repository path");
    }
    ref.path = name.substr(path_start);
    if (auto bad = check_path(ref.path, path_start)) return *bad;
    if (name.size() > kMaxNameLength) {
        return fail(ReferencePart::path, kMaxNameLength,
                    "the repository name is " + std::to_string(name.size()) + " characters long; at most " + std::to_string(kMaxNameLength) + " are allowed");
    }
    ref.name = name;

    // Judged left to right, so the first thing wrong is the one reported.
    if (colon != std::string_view::npos) {
        const std::string_view tag = name_and_tag.substr(colon + 1);
        if (auto bad = check_tag(tag, colon + 1)) return *bad;
        ref.tag = tag;
    }
    if (at != std::string_view::npos) {
        const std::string_view digest = text.substr(at + 1);
        if (const std::size_t second = digest.find('@'); second != std::string_view::npos) {
            return fail(ReferencePart::digest, at + 1 + second, "a second '@'" + at_char(at + 1 + second) + "; a reference holds at most one digest");
        }
        if (auto bad = check_digest(digest, at + 1, ref)) return *bad;
    }
    ReferenceParse out;
    out.reference = ref;
    return out;
}

}  // namespace miw
