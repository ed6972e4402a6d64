// --nodes FILE: the Nodes the offline commands check pinned Pods against;
// --artifacts FILE: the ModelArtifacts workloads name.
#pragma once

#include "model_image_webhook/artifact_source.hpp"
#include "model_image_webhook/node_source.hpp"
#include "model_image_webhook/result.hpp"

#include <string>

namespace miw::cli {

// Adds every Node in the file (JSON or YAML, one or more documents, Lists
// included) to out.
Status load_node_file(const std::string& path, StaticNodeSource& out);

// Adds every ModelArtifact in the file to out, in the same way.
Status load_artifact_file(const std::string& path, StaticArtifactSource& out);

}  // namespace miw::cli
