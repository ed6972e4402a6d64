// A ModelArtifact's views, read from its DOM (request_views.cpp reads the
// rest of the request): what its spec rules read, whether an UPDATE changed
// its spec as upstream's typed comparison sees it, and the shape of its status.
#pragma once

#include "json_dom.hpp"

#include "model_image_webhook/admission.hpp"

namespace miw::json {

// old_object: an UPDATE's, for spec_unchanged; null otherwise.
ModelArtifactView read_model_artifact(const Value* object, const Value* old_object);

ModelArtifactStatusView read_model_artifact_status(const Value& object);

}  // namespace miw::json
