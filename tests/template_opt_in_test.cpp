// A workload's opt-in copied into its pod templates' metadata.
#include "model_image_webhook/template_opt_in.hpp"

#include <catch2/catch.hpp>

#include <string>
#include <vector>

using namespace miw;

namespace {

const std::string kRef = "registry.example.com/team/qwen@sha256:9372c470eeadd5ecd9c3c74c2b3cb633f8e2f2fad799250a0f70d652b6b825e4";

WorkloadView workload(std::string_view containers = {}) {
    WorkloadView w;
    w.opt_in_label = "image";
    w.has_model_image = true;
    w.model_image = kRef;
    w.has_model_containers = !containers.empty();
    w.model_containers = containers;
    return w;
}

TemplateMetadataView metadata(MemberShape meta, MemberShape labels = MemberShape::absent, MemberShape annotations = MemberShape::absent) {
    TemplateMetadataView t;
    t.pointer = "/spec/template/metadata";
    t.metadata = meta;
    t.labels = labels;
    t.annotations = annotations;
    return t;
}

std::string copy(const WorkloadView& w, const TemplateMetadataView& t) {
    JsonPatch p;
    copy_opt_in_to_template(w, t, p);
    return p.empty() ? std::string() : p.to_json();
}

}  // namespace

TEST_CASE("the opt-in reaches the template's metadata in whatever shape it has", "[template_opt_in]") {
    using S = MemberShape;
    TemplateMetadataView rendered = metadata(S::container, S::container, S::container);
    rendered.has_opt_in_label = true;
    rendered.opt_in_label = "image";
    rendered.has_model_image = true;
    rendered.model_image = kRef;
    TemplateMetadataView stale = rendered;
    const std::string older = "registry.example.com/team/qwen@sha256:" + std::string(64, 'a');
    stale.model_image = older;
    TemplateMetadataView off = rendered;
    off.opt_in_label = "none";
    struct Case {
        const char* name;
        WorkloadView workload;
        TemplateMetadataView metadata;
        std::string patch;
    };
    const std::string ann = R"({"gpustack.ai/model-image":")" + kRef + R"("})";
    const std::vector<Case> cases = {
        {"no metadata", workload(), metadata(S::absent),
         R"([{"op":"add","path":"/spec/template/metadata","value":{"labels":{"gpustack.ai/model-delivery":"image"},"annotations":)" + ann + "}}]"},
        {"labels, no annotations", workload(), metadata(S::container, S::container, S::absent),
         R"([{"op":"add","path":"/spec/template/metadata/labels/gpustack.ai~1model-delivery","value":"image"},{"op":"add","path":"/spec/template/metadata/annotations","value":)" +
             ann + "}]"},
        {"both maps present", workload(), metadata(S::container, S::container, S::container),
         R"([{"op":"add","path":"/spec/template/metadata/labels/gpustack.ai~1model-delivery","value":"image"},{"op":"add","path":"/spec/template/metadata/annotations/gpustack.ai~1model-image","value":")" +
             kRef + "\"}]"},
        {"the selected containers too", workload("vllm"), metadata(S::container, S::absent, S::absent),
         R"([{"op":"add","path":"/spec/template/metadata/labels","value":{"gpustack.ai/model-delivery":"image"}},{"op":"add","path":"/spec/template/metadata/annotations","value":{"gpustack.ai/model-image":")" +
             kRef + R"(","gpustack.ai/model-containers":"vllm"}}])"},
        {"already carried", workload(), rendered, ""},
        {"an older image in the template", workload(), stale,
         R"([{"op":"add","path":"/spec/template/metadata/annotations/gpustack.ai~1model-image","value":")" + kRef + "\"}]"},
        {"the label with another value", workload(), off, R"([{"op":"add","path":"/spec/template/metadata/labels/gpustack.ai~1model-delivery","value":"image"}])"},
        {"metadata that is not an object", workload(), metadata(S::other), ""},
        {"labels that are not an object", workload(), metadata(S::container, S::other, S::container),
         R"([{"op":"add","path":"/spec/template/metadata/annotations/gpustack.ai~1model-image","value":")" + kRef + "\"}]"},
    };
    for (const auto& c : cases) {
        DYNAMIC_SECTION(c.name) { CHECK(copy(c.workload, c.metadata) == c.patch); }
    }
}
