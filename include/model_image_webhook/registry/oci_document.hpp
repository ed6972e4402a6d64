// An OCI manifest or index read for its descriptors, as signatures are found
// (design.md 1.11): the referrers API's index and the referrers tag's, a
// referrer's manifest (its artifactType, its layers), a legacy `.sig`
// manifest's layers with their annotations. Read by src/codec/oci_document.cpp;
// no JSON library here.
#pragma once

#include "model_image_webhook/result.hpp"

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace miw {

struct OciDescriptor {
    std::string media_type;
    std::string digest;
    std::uint64_t size = 0;
    std::string artifact_type;
    std::vector<std::pair<std::string, std::string>> annotations;  // string values only, as written
};

struct OciDocument {
    bool is_index = false;  // it has "manifests"
    std::string media_type;
    std::string artifact_type;
    std::string config_media_type;
    std::vector<OciDescriptor> manifests;  // an index's
    std::vector<OciDescriptor> layers;  // a manifest's
};

// text: a manifest or an index. More than max_descriptors manifests or
// layers is refused: a registry cannot make the webhook read without end.
Result<OciDocument> read_oci_document(std::string text, std::size_t max_descriptors);

// The annotation `key` of a descriptor, or empty.
std::string annotation_of(const OciDescriptor& descriptor, std::string_view key);

}  // namespace miw
