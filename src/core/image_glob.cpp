#include "model_image_webhook/image_glob.hpp"

#include "model_image_webhook/registry/locator.hpp"

#include <vector>

namespace miw {

namespace {

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

}  // namespace

bool glob_matches(std::string_view glob, std::string_view name) {
    // The glob's tokens read left to right as policy-controller's replacements
    // read them ("**" first, then "*"), then a table of which token suffix
    // matches which name suffix, filled from the ends: what its regular
    // expression matches (a star may end where a later one must begin).
    enum Token : char { kStar = 1, kAnything = 2 };
    std::string tokens;  // a literal character, or kStar, or kAnything
    for (std::size_t g = 0; g < glob.size(); ++g) {
        if (glob[g] != '*') {
            tokens += glob[g];
        } else if (g + 1 < glob.size() && glob[g + 1] == '*') {
            tokens += static_cast<char>(kAnything);
            ++g;
        } else {
            tokens += static_cast<char>(kStar);
        }
    }
    const std::size_t T = tokens.size(), N = name.size();
    std::vector<char> match((T + 1) * (N + 1), 0);
    const auto at = [&](std::size_t t, std::size_t n) -> char& { return match[t * (N + 1) + n]; };
    at(T, N) = 1;
    for (std::size_t t = T; t-- > 0;) {
        for (std::size_t n = N + 1; n-- > 0;) {
            const char token = tokens[t];
            if (token == kStar || token == kAnything) {
                // Nothing more, or one more character ("/" only for "**").
                at(t, n) = at(t + 1, n) || (n < N && (token == kAnything || name[n] != '/') && at(t, n + 1));
            } else {
                at(t, n) = n < N && token == name[n] && at(t + 1, n + 1);
            }
        }
    }
    return at(0, 0) != 0;
}

Result<ImageGlob> ImageGlob::compile(std::string_view glob) {
    ImageGlob out;
    out.glob_ = glob == "*/*" ? "index.docker.io/*/*" : glob == "*" ? "index.docker.io/library/*" : std::string(glob);
    if (out.glob_.empty()) return fail("an image glob is empty");
    for (char c : out.glob_) {
        if (!is_glob_char(c)) return fail("the image glob \"" + std::string(glob) + "\" holds a character no image name holds: give letters, digits, - _ : / . and * or **");
    }
    return out;
}

bool ImageGlob::matches(std::string_view reference) const {
    const std::string name = full_name(reference);
    if (!name.empty() && glob_matches(glob_, name)) return true;
    return name != reference && glob_matches(glob_, reference);
}

}  // namespace miw
