#include "model_image_webhook/artifact_reference.hpp"

#include "model_image_webhook/text.hpp"

namespace miw {

namespace {

// An object created without a namespace lands in "default", as kubectl puts it.
std::string_view namespace_or_default(std::string_view ns) { return ns.empty() ? std::string_view("default") : ns; }

std::string annotation(std::string_view key) { return "metadata.annotations[" + std::string(key) + "]"; }

}  // namespace

NamedImage named_image(const AdmissionRequest& req, const WorkloadView& w, const ArtifactSource* artifacts) {
    NamedImage out;
    if (!w.has_model_artifact) {
        if (w.has_model_image) out.reference = w.model_image;
        return out;
    }
    const std::string_view ns = namespace_or_default(req.namespace_name);
    const std::string named = "ModelArtifact " + quote_value(w.model_artifact, 253) + " in namespace " + quote_value(ns, 63);
    const std::string field = annotation(kModelArtifactAnnotation) + ": ";
    if (artifacts == nullptr) {
        out.refusal = forbidden(field + named + " cannot be resolved: no ModelArtifacts are known to this webhook (review and test read them from "
                                        "their inputs and --artifacts); name the image with " + std::string(kModelImageAnnotation) + " instead",
                                kArtifactUnavailable);
        return out;
    }
    const ArtifactLookup found = artifacts->lookup(ns, w.model_artifact);
    switch (found.status) {
        case ArtifactLookupStatus::not_found:
            out.refusal = forbidden(field + named + " does not exist (looked up in " + artifacts->origin() +
                                            "); create it, or name an existing ModelArtifact of the workload's namespace",
                                    kArtifactNotFound);
            return out;
        case ArtifactLookupStatus::unavailable:
            out.refusal = forbidden(field + named + " could not be read (" + found.detail + "); retry, or name the image with " +
                                            std::string(kModelImageAnnotation),
                                    kArtifactUnavailable);
            return out;
        case ArtifactLookupStatus::found:
            break;
    }
    if (found.info.source != "image") {
        const std::string source = found.info.source.empty() ? std::string("no single known source") : "a " + found.info.source + " source";
        out.refusal = forbidden(field + named + " has " + source + ", not an image: there is nothing to mount; name a ModelArtifact with an image "
                                        "source, or remove the label " + std::string(kOptInLabel) + " to let the engine download the model",
                                kArtifactNotImage);
        return out;
    }
    if (w.has_model_image && w.model_image != found.info.image_reference) {
        out.refusal = forbidden(annotation(kModelImageAnnotation) + ": " + quote_value(w.model_image) + " is not the image of " + named + " (" +
                                        quote_value(found.info.image_reference) + "): keep one of the two annotations, or make them name the same image",
                                kArtifactImageConflict);
        return out;
    }
    out.reference = found.info.image_reference;
    return out;
}

}  // namespace miw
