// Decisions take the shapes Kubernetes' own errors take.
#include "model_image_webhook/decision.hpp"

#include <catch2/catch.hpp>

using namespace miw;

namespace {

// Rules of the test's own: decisions carry whatever rule they are given.
constexpr Rule kR{"r", "spec.x", "422 Invalid", "a test rule"};
constexpr Rule kOne{"source-exactly-one", "spec.source", "422 Invalid", ""};
constexpr Rule kPatterns{"patterns-forbidden", "spec.allowPatterns", "422 Invalid", ""};
constexpr Rule kFloor{"apiserver-floor", "spec.source.image", "422 Invalid", ""};
constexpr Rule kNode{"node-floor", "spec.nodeName", "403 Forbidden", ""};

}  // namespace

TEST_CASE("field errors read as Go's field.Error does", "[decision]") {
    CHECK(field_invalid("spec.x", "v:1", "why", kR).text() == "spec.x: Invalid value: \"v:1\": why");
    CHECK(field_required("spec.x", "why", kR).text() == "spec.x: Required value: why");
    CHECK(field_forbidden("spec.x", "why", kR).text() == "spec.x: Forbidden: why");
    CHECK(to_string(CauseType::field_value_invalid) == "FieldValueInvalid");
    CHECK(to_string(CauseType::field_value_required) == "FieldValueRequired");
    CHECK(to_string(CauseType::field_value_forbidden) == "FieldValueForbidden");
}

TEST_CASE("an invalid object reads as apierrors.NewInvalid", "[decision]") {
    SECTION("one error stands alone") {
        const Decision d = invalid("worker.gpustack.ai", "ModelArtifact", "qwen", {field_required("spec.source", "pick one", kOne)});
        CHECK_FALSE(d.allowed);
        CHECK(d.code == 422);
        CHECK(d.reason == "Invalid");
        CHECK(d.message == "ModelArtifact.worker.gpustack.ai \"qwen\" is invalid: spec.source: Required value: pick one");
        CHECK(d.rule_annotation() == "source-exactly-one");
        CHECK(d.details_group == "worker.gpustack.ai");
        CHECK(d.details_kind == "ModelArtifact");
        CHECK(d.details_name == "qwen");
    }
    SECTION("several errors are bracketed and every rule is annotated once") {
        const Decision d = invalid("worker.gpustack.ai", "ModelArtifact", "qwen",
                                   {field_forbidden("spec.allowPatterns", "no", kPatterns), field_forbidden("spec.ignorePatterns", "no", kPatterns),
                                    field_forbidden("spec.source.image", "old", kFloor)});
        CHECK(d.message ==
              "ModelArtifact.worker.gpustack.ai \"qwen\" is invalid: [spec.allowPatterns: Forbidden: no, spec.ignorePatterns: Forbidden: no, "
              "spec.source.image: Forbidden: old]");
        CHECK(d.causes.size() == 3);
        CHECK(d.rule_annotation() == "patterns-forbidden,apiserver-floor");
    }
    SECTION("a core kind has no group suffix") {
        CHECK(invalid("", "Pod", "p", {}).message == "Pod \"p\" is invalid");
    }
}

TEST_CASE("forbidden and bad requests carry their codes", "[decision]") {
    const Decision f = forbidden("node too old", kNode);
    CHECK((!f.allowed && f.code == 403 && f.reason == "Forbidden" && f.rule_annotation() == "node-floor"));
    const Decision b = bad_request("unreadable", kMalformedRequest);
    CHECK((!b.allowed && b.code == 400 && b.reason == "BadRequest" && b.message == "unreadable"));
    const Decision a = allow({"w"});
    CHECK((a.allowed && a.code == 0 && a.warnings.size() == 1 && a.rule_annotation().empty()));
}
