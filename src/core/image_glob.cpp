#include "model_image_webhook/image_glob.hpp"

#include "model_image_webhook/registry/locator.hpp"

#include <vector>

namespace miw {

namespace {

constexpr char kGlobStar = 1;  // "*": any run of characters but "/"
constexpr char kGlobAnything = 2;  // "**": any run at all

bool is_glob_char(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' || c == '_' || c == ':' || c == '/' || c == '*' || c == '.';
}

// The name go-containerregistry gives a pinned reference: registry/repository@digest, Docker Hub's as index.docker.io.
std::string full_name(std::string_view reference) {
    Result<RegistryLocator> located = locate_in_registry(reference);
    if (!located) return {};
    std::string name = located->canonical();
    if (name.rfind("docker.io/", 0) == 0) name = "index." + name;
    return name;
}

std::string glob_tokens(std::string_view glob) {
    // Read left to right as policy-controller's replacements read them ("**" first, then "*").
    std::string tokens;
    for (std::size_t g = 0; g < glob.size(); ++g) {
        if (glob[g] != '*') {
            tokens += glob[g];
        } else if (g + 1 < glob.size() && glob[g + 1] == '*') {
            tokens += kGlobAnything;
            ++g;
        } else {
            tokens += kGlobStar;
        }
    }
    return tokens;
}

bool tokens_match(std::string_view tokens, std::string_view name) {
    const auto is_star = [](char t) { return t == kGlobStar || t == kGlobAnything; };
    // The literal ends first: most globs are a prefix and "**", and are told without the table.
    while (!tokens.empty() && !is_star(tokens.front())) {
        if (name.empty() || name.front() != tokens.front()) return false;
        tokens.remove_prefix(1);
        name.remove_prefix(1);
    }
    while (!tokens.empty() && !is_star(tokens.back())) {
        if (name.empty() || name.back() != tokens.back()) return false;
        tokens.remove_suffix(1);
        name.remove_suffix(1);
    }
    if (tokens.empty()) return name.empty();
    if (tokens.find_first_not_of(kGlobAnything) == std::string_view::npos) return true;
    if (tokens.size() == 1) return name.find('/') == std::string_view::npos;  // one "*"
    // Else a table of which token suffix matches which name suffix, filled
    // from the ends: what its regular expression matches (a star may end
    // where a later one must begin).
    const std::size_t T = tokens.size(), N = name.size();
    std::vector<char> match((T + 1) * (N + 1), 0);
    const auto at = [&](std::size_t t, std::size_t n) -> char& { return match[t * (N + 1) + n]; };
    at(T, N) = 1;
    for (std::size_t t = T; t-- > 0;) {
        for (std::size_t n = N + 1; n-- > 0;) {
            const char token = tokens[t];
            if (is_star(token)) {
                // Nothing more, or one more character ("/" only for "**").
                at(t, n) = at(t + 1, n) || (n < N && (token == kGlobAnything || name[n] != '/') && at(t, n + 1));
            } else {
                at(t, n) = n < N && token == name[n] && at(t + 1, n + 1);
            }
        }
    }
    return at(0, 0) != 0;
}

}  // namespace

bool glob_matches(std::string_view glob, std::string_view name) { return tokens_match(glob_tokens(glob), name); }

Result<ImageGlob> ImageGlob::compile(std::string_view glob) {
    ImageGlob out;
    out.glob_ = glob == "*/*" ? "index.docker.io/*/*" : glob == "*" ? "index.docker.io/library/*" : std::string(glob);
    if (out.glob_.empty()) return fail("an image glob is empty");
    for (char c : out.glob_) {
        if (!is_glob_char(c)) return fail("the image glob \"" + std::string(glob) + "\" holds a character no image name holds: give letters, digits, - _ : / . and * or **");
    }
    out.tokens_ = glob_tokens(out.glob_);
    return out;
}

bool ImageGlob::matches(std::string_view reference) const {
    // As written first: a match there is a match whatever the full name, and
    // most references are their full name already (a registry with a dot or
    // a port, no tag beside the digest), told without a parse.
    if (tokens_match(tokens_, reference)) return true;
    if (is_canonical_reference(reference) && reference.rfind("docker.io/", 0) != 0) return false;
    const std::string name = full_name(reference);
    return !name.empty() && name != reference && tokens_match(tokens_, name);
}

}  // namespace miw
