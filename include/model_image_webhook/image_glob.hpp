// An image glob as sigstore policy-controller reads a ClusterImagePolicy's
// `spec.images[].glob` (its pkg/apis/glob): "*" any run of characters but
// "/", "**" any run at all, everything else itself, and the whole name
// matched; "*" alone means index.docker.io/library/*, "*/*" means
// index.docker.io/*/*. A reference is matched by its full name as
// go-containerregistry writes it (Docker Hub's as index.docker.io/..., a
// tag beside a digest dropped), and failing that as written.
#pragma once

#include "model_image_webhook/result.hpp"

#include <string>
#include <string_view>

namespace miw {

class ImageGlob {
public:
    // Refused: a character outside [a-zA-Z0-9-_:/*.], as policy-controller refuses it.
    static Result<ImageGlob> compile(std::string_view glob);
    bool matches(std::string_view reference) const;
    const std::string& text() const { return glob_; }

private:
    std::string glob_;
    std::string tokens_;  // the glob read: a literal character, or a star's code
};

// Whether `name` matches the glob: "*" no "/", "**" anything.
bool glob_matches(std::string_view glob, std::string_view name);

}  // namespace miw
