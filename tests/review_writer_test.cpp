// The answer as Go writes an admission/v1 AdmissionResponse.
#include "../src/codec/review_writer.hpp"

#include "../src/codec/json_dom.hpp"

#include "model_image_webhook/enforcement.hpp"
#include "model_image_webhook/text.hpp"

#include <catch2/catch.hpp>

#include <string>

using namespace miw;

namespace {

constexpr Rule kTestRule{"test-rule", "spec.x", "422 Invalid", "a rule of the test's own"};

}  // namespace

TEST_CASE("an allowed answer holds the uid and allowed, nothing empty", "[review_writer]") {
    CHECK(json::write_review("admission.k8s.io/v1", "u-1", allow()) ==
          R"({"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","response":{"uid":"u-1","allowed":true}})");
}

TEST_CASE("a field denial carries the status of apierrors.NewInvalid", "[review_writer]") {
    const Decision d = invalid("worker.gpustack.ai", "ModelArtifact", "qwen", {field_required("spec.source", "pick one", kTestRule)});
    CHECK(json::write_review("admission.k8s.io/v1", "u", d) ==
          R"({"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","response":{"uid":"u","allowed":false,"status":{"metadata":{},)"
          R"("status":"Failure","message":"ModelArtifact.worker.gpustack.ai \"qwen\" is invalid: spec.source: Required value: pick one",)"
          R"("reason":"Invalid","details":{"name":"qwen","group":"worker.gpustack.ai","kind":"ModelArtifact","causes":[{"reason":"FieldValueRequired",)"
          R"("message":"Required value: pick one","field":"spec.source"}]},"code":422},"auditAnnotations":{"rule":"test-rule"}}})");
}

TEST_CASE("a denial's details leave out the empty name, group and kind, as Go's StatusDetails does", "[review_writer]") {
    struct Case {
        const char* name;
        std::string_view group, kind, object, details;
    };
    const Case cases[] = {
        {"no name", "worker.gpustack.ai", "ModelArtifact", "", R"("details":{"group":"worker.gpustack.ai","kind":"ModelArtifact","causes":[)"},
        {"no group (the core group)", "", "Pod", "p", R"("details":{"name":"p","kind":"Pod","causes":[)"},
        {"nothing but causes", "", "", "", R"("details":{"causes":[)"},
    };
    for (const auto& c : cases) {
        SECTION(c.name) {
            const Decision d = invalid(c.group, c.kind, c.object, {field_required("spec.a", "x", kTestRule), field_required("spec.b", "y", kTestRule)});
            const std::string out = json::write_review("admission.k8s.io/v1", "u", d);
            CHECK_THAT(out, Catch::Contains(std::string(c.details)));
            CHECK_THAT(out, Catch::Contains(R"("field":"spec.a"},{"reason":"FieldValueRequired")"));
        }
    }
}

TEST_CASE("every ASCII byte echoed in an answer reads back as it was", "[review_writer]") {
    std::string text;
    for (int c = 0; c < 0x80; ++c) text += static_cast<char>(c);
    text += "caf\xc3\xa9";
    Decision d = forbidden(text, kTestRule);
    d.warnings = {"a \"quoted\" warning"};
    d.patch = text;
    std::string out = json::write_review("admission.k8s.io/v1", text, d);
    CHECK_THAT(out, Catch::Contains(R"(\b\t\n\u000b\f\r\u000e)"));
    json::Document doc;
    REQUIRE(json::parse_document(out, doc).empty());
    const json::Value* response = json::member(&doc, "response");
    REQUIRE(response != nullptr);
    CHECK(json::string_member(response, "uid") == text);
    CHECK(json::string_member(json::member(response, "status"), "message") == text);
    CHECK(json::string_member(response, "patch") == base64_encode(text));
    const json::Value* warnings = json::member(response, "warnings");
    REQUIRE((warnings != nullptr && warnings->IsArray() && warnings->Size() == 1));
    CHECK(json::view((*warnings)[0]) == "a \"quoted\" warning");
    CHECK(json::type_of(json::member(response, "allowed")) == JsonType::boolean);
    CHECK(json::member(json::member(response, "status"), "code")->GetInt() == 403);
}

TEST_CASE("a forbidden answer has no details", "[review_writer]") {
    const std::string out = json::write_review("admission.k8s.io/v1", "u", forbidden("no", kTestRule));
    CHECK_THAT(out, Catch::Contains(R"("status":{"metadata":{},"status":"Failure","message":"no","reason":"Forbidden","code":403})"));
    CHECK_THAT(out, !Catch::Contains("details"));
}

TEST_CASE("a patch travels base64-encoded with its type", "[review_writer]") {
    Decision d = allow();
    d.patch = R"([{"op":"add","path":"/a","value":1}])";
    CHECK_THAT(json::write_review("admission.k8s.io/v1", "u", d),
               Catch::Contains(R"("patch":"W3sib3AiOiJhZGQiLCJwYXRoIjoiL2EiLCJ2YWx1ZSI6MX1d","patchType":"JSONPatch")"));
}

TEST_CASE("warnings are cut to what the apiserver keeps", "[review_writer]") {
    Decision d = allow({"short", std::string(300, 'w'), "line\nbreak\tand\x01control"});
    const std::string out = json::write_review("admission.k8s.io/v1", "u", d);
    CHECK_THAT(out, Catch::Contains(R"("warnings":["short",")"));
    CHECK_THAT(out, !Catch::Contains(std::string(257, 'w')));
    CHECK_THAT(out, !Catch::Contains("\\n"));
    CHECK_THAT(out, !Catch::Contains("\\u0001"));
}

TEST_CASE("a softened denial is allowed, and its audit annotations say by which mode", "[review_writer]") {
    Decision d = forbidden("a second source", kTestRule);
    d.allowed = true;
    d.softened = Enforcement::warn;
    d.warnings = {"would be denied: a second source"};
    const std::string out = json::write_review("admission.k8s.io/v1", "u", d);
    CHECK(out == R"({"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","response":{"uid":"u","allowed":true,"auditAnnotations":{"rule":")" +
                     std::string(kTestRule.id) + R"(","enforcement":"warn"},"warnings":["would be denied: a second source"]}})");
}

TEST_CASE("what is echoed is escaped", "[review_writer]") {
    const std::string out = json::write_review("admission.k8s.io/v1", "a\"b\\c\x01", forbidden("say \"no\"", kTestRule));
    CHECK_THAT(out, Catch::Contains(R"("uid":"a\"b\\c\u0001")"));
    CHECK_THAT(out, Catch::Contains(R"("message":"say \"no\"")"));
}
