// The digest-pinned references a request's body may make a review ask the
// registry about, found in its JSON text before it is parsed: the values of
// "gpustack.ai/model-image" and "reference" members, and the image of each
// ModelArtifact a "gpustack.ai/model-artifact" member names (in any
// namespace the body names). It over-approximates - a key seen anywhere
// counts - so that the server can tell, before reviewing, whether every
// answer the review may need is in the cache (reviewed once, where it was
// read) or a look may be needed (reviewed once, where it may wait). It
// never decides anything: the review does.
#pragma once

#include "model_image_webhook/artifact_source.hpp"

#include <string>
#include <string_view>
#include <vector>

namespace miw {

// Past this many candidates the scan is not complete.
inline constexpr std::size_t kMaxScannedReferences = 16;

struct BodyReferences {
    std::vector<std::string_view> references;  // views into the body, or into names' artifacts' strings
    // false: a value was escaped, or there were too many: the review may ask
    // for a reference not in the list.
    bool complete = true;
};

BodyReferences references_in_body(std::string_view body, const ArtifactSource* artifacts, std::vector<std::string>& artifact_images);

}  // namespace miw
