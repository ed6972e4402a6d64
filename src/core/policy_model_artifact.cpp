#include "model_image_webhook/policy_model_artifact.hpp"

#include "model_image_webhook/pinned_reference.hpp"
#include "model_image_webhook/registry/check.hpp"
#include "model_image_webhook/text.hpp"

#include <algorithm>

namespace miw {

namespace {

constexpr const char* kReferenceField = "spec.source.image.reference";

constexpr const char* kAlternatives =
    "use a huggingFace or modelScope hub source or a persistentVolumeClaim source instead, or upgrade the cluster to 1.35 or newer";

void check_source_members(const ModelArtifactView& view, std::vector<FieldError>& errors) {
    // Worded only for a refusal: a valid artifact is the common case.
    const auto members = [] { return join(kSourceMembers, std::size(kSourceMembers), ", "); };
    if (view.spec != JsonType::object && view.spec != JsonType::absent && view.spec != JsonType::null) {
        errors.push_back(field_required("spec", "spec must be an object holding source, not " + std::string(to_string(view.spec)), kSourceExactlyOne));
        return;
    }
    if (view.source != JsonType::object) {
        std::string why = "spec.source must hold exactly one of " + members();
        if (view.source != JsonType::absent && view.source != JsonType::null) why += "; it is " + std::string(to_string(view.source));
        errors.push_back(field_required("spec.source", why, kSourceExactlyOne));
        return;
    }
    if (view.sources_present.size() == 1) return;
    if (view.sources_present.empty()) {
        errors.push_back(field_required("spec.source", "exactly one of " + members() + " is required; found none", kSourceExactlyOne));
        return;
    }
    errors.push_back(field_forbidden("spec.source",
                                     "exactly one of " + members() + " is allowed; found " +
                                         join(view.sources_present.data(), view.sources_present.size(), ", ") + ": keep one source and remove the others",
                                     kSourceExactlyOne));
}

void check_patterns(const ModelArtifactView& view, std::vector<FieldError>& errors) {
    const char* why = "patterns are not allowed with an image source: an image is mounted whole, so there is no listing to select from; "
                      "remove the field and build the image with only the files you want";
    if (view.allow_patterns_set) errors.push_back(field_forbidden("spec.allowPatterns", why, kPatternsForbidden));
    if (view.ignore_patterns_set) errors.push_back(field_forbidden("spec.ignorePatterns", why, kPatternsForbidden));
}

void check_reference(const ModelArtifactView& view, const PolicyConfig& config, std::vector<FieldError>& errors, std::vector<std::string>& warnings) {
    const char* example = "a digest-pinned image reference is required, e.g. registry.example.com/team/model@sha256:<64 hex>";
    if (view.image != JsonType::object) {
        errors.push_back(field_required(kReferenceField, std::string(example) + " (spec.source.image is " + std::string(to_string(view.image)) + ")",
                                        kReferenceRequired));
        return;
    }
    if (view.reference != JsonType::string) {
        std::string why = example;
        if (view.reference != JsonType::absent && view.reference != JsonType::null) why += "; it must be a string, not " + std::string(to_string(view.reference));
        errors.push_back(field_required(kReferenceField, why, kReferenceRequired));
        return;
    }
    if (view.reference_value.empty()) {
        errors.push_back(field_required(kReferenceField, std::string(example) + "; it is empty", kReferenceRequired));
        return;
    }
    PinnedReferenceCheck check = check_pinned_reference(view.reference_value, config.digest_algorithms);
    if (!check.ok()) {
        errors.push_back(field_invalid(kReferenceField, view.reference_value, check.detail, *check.rule));
        return;
    }
    for (auto& w : check.warnings) warnings.push_back(w.prefix(std::string(kReferenceField) + ": ").text());
}

// A status writer named in --status-writers: a user name (service accounts
// are system:serviceaccount:NS:NAME), or group:NAME for any member of a group.
bool is_status_writer(const UserInfoView& user, const std::vector<std::string>& writers) {
    constexpr std::string_view kGroup = "group:";
    for (const std::string& w : writers) {
        if (w.rfind(kGroup, 0) == 0) {
            const std::string_view group = std::string_view(w).substr(kGroup.size());
            if (std::find(user.groups.begin(), user.groups.end(), group) != user.groups.end()) return true;
        } else if (w == user.username) {
            return true;
        }
    }
    return false;
}

}  // namespace

Decision judge_model_artifact_status(const AdmissionRequest& req, const PolicyConfig& config) {
    if (!config.status_writers.empty() && !is_status_writer(req.user, config.status_writers)) {
        std::string writers;
        for (const auto& w : config.status_writers) writers += (writers.empty() ? "" : ", ") + w;
        return forbidden("the status of a ModelArtifact is written by its operator; " +
                             (req.user.username.empty() ? std::string("this writer") : quote_value(req.user.username, 253)) +
                             " is not among --status-writers (" + writers +
                             "): let the operator write it, or add the writer to the webhook's --status-writers",
                         kStatusWriter);
    }
    const ModelArtifactStatusView& status = *req.model_artifact_status;
    if (!status.image_source) return allow();
    std::vector<FieldError> errors;
    for (std::string_view extra : status.resolved_extra) {
        errors.push_back(field_forbidden("status.resolved." + std::string(extra),
                                         "an image source resolves to nothing but its time (status.resolved.resolvedTime): the spec's reference is its "
                                         "only record, with no revision or digest listing to keep; remove the field",
                                         kImageStatusShape));
    }
    if (status.resolved != JsonType::object && status.resolved != JsonType::absent && status.resolved != JsonType::null) {
        errors.push_back(field_invalid("status.resolved", std::string(to_string(status.resolved)),
                                       "must be an object holding resolvedTime only, for an image source", kImageStatusShape));
    }
    if (status.nodes_present) {
        errors.push_back(field_forbidden("status.nodes",
                                         "an image source has no per-node aggregation: each node's kubelet pulls the image itself; remove the field",
                                         kImageStatusShape));
    }
    if (!errors.empty()) return invalid(req.kind.group, req.kind.kind, req.name, std::move(errors));
    return allow();
}

std::string apiserver_floor_problem(const ApiserverVersion& apiserver) {
    const std::string floor = kImageVolumeKubeFloor.to_string();
    if (apiserver.parsed && apiserver.parsed->at_least(kImageVolumeKubeFloor)) return {};
    std::string seen;
    if (apiserver.text.empty()) {
        seen = "the apiserver version is not known yet, so the " + floor + " floor cannot be confirmed";
    } else if (!apiserver.parsed) {
        seen = "the apiserver version " + quote_value(apiserver.text, 64) + " cannot be read, so the " + floor + " floor cannot be confirmed";
    } else {
        seen = "the apiserver is " + apiserver.text + ", older than the " + floor + " floor";
    }
    return "image volumes need Kubernetes " + floor + " or newer and " + seen +
           ": below it the apiserver drops a Pod's image volume silently (1.33 and 1.34 keep it only where an administrator "
           "has enabled the ImageVolume feature gate); " +
           kAlternatives;
}

Decision judge_model_artifact(const AdmissionRequest& req, const PolicyConfig& config, const RegistrySource* registry, const SignatureSource* signatures) {
    const ModelArtifactView& view = *req.model_artifact;
    // A CREATE or an UPDATE, routed here by applies().
    switch (req.operation) {
        case Operation::remove:
        case Operation::connect:
            return allow();  // not routed here
        case Operation::update:
            // A stored object is never re-judged: a rule added later must not
            // strand it. Only a change of spec is refused.
            if (view.spec_unchanged) return allow();
            // apimachinery's ValidateImmutableField words it "field is immutable",
            // which GitOps tools look for to recreate the object.
            return invalid(req.kind.group, req.kind.kind, req.name,
                           {field_invalid("spec", "object",
                                          "field is immutable: a ModelArtifact is an identity, so its spec cannot change; "
                                          "create a new ModelArtifact with the new spec and point the workloads at it",
                                          kSpecImmutable)});
        case Operation::create:
            break;
    }

    std::vector<FieldError> errors;
    std::vector<std::string> warnings;
    check_source_members(view, errors);
    if (!errors.empty()) return invalid(req.kind.group, req.kind.kind, req.name, std::move(errors));
    if (view.sources_present.front() != "image") return allow();

    check_patterns(view, errors);
    if (view.expected_digest_set) {
        errors.push_back(field_forbidden("spec.expectedDigest",
                                         "expectedDigest anchors hub sources only; an image's identity is the digest in spec.source.image.reference: "
                                         "remove the field",
                                         kExpectedDigestForbidden));
    }
    check_reference(view, config, errors, warnings);
    if (std::string floor = apiserver_floor_problem(config.apiserver); !floor.empty()) {
        errors.push_back(field_forbidden("spec.source.image", floor, kApiserverFloor));
    }
    if (!errors.empty()) return invalid(req.kind.group, req.kind.kind, req.name, std::move(errors));
    // Looked up last: a reference the rules above refuse is never asked for.
    // Its pull is the image volume's of the Pods it serves; upstream's controller
    // runs them with the namespace's default service account.
    const PullSecretsRef who{req.namespace_name, {}, "default"};
    RegistryVerdict registry_verdict = check_in_registry(kReferenceField, view.reference_value, config.registry_check, registry, &who);
    if (registry_verdict.refusal) {
        return invalid(req.kind.group, req.kind.kind, req.name, {field_invalid(kReferenceField, view.reference_value, *registry_verdict.refusal, *registry_verdict.rule)});
    }
    for (std::string& w : registry_verdict.warnings) warnings.push_back(std::move(w));
    SignatureVerdict signed_by = check_signatures(kReferenceField, view.reference_value, config.signature_policy.get(), signatures, &who);
    if (signed_by.refusal) {
        return invalid(req.kind.group, req.kind.kind, req.name, {field_invalid(kReferenceField, view.reference_value, *signed_by.refusal, kSignatureUnverified)});
    }
    for (std::string& w : signed_by.warnings) warnings.push_back(std::move(w));
    return allow(std::move(warnings));
}

}  // namespace miw
