// OCI manifests and indexes read for their descriptors (signatures' discovery).
#include "model_image_webhook/registry/oci_document.hpp"

#include "json_dom.hpp"

namespace miw {

using namespace json;

namespace {

Result<std::vector<OciDescriptor>> descriptors(const Value* list, std::string_view name, std::size_t max) {
    std::vector<OciDescriptor> out;
    if (list == nullptr || list->IsNull()) return out;
    if (!list->IsArray()) return fail("its " + std::string(name) + " is not a list");
    if (list->Size() > max) return fail("it lists " + std::to_string(list->Size()) + " " + std::string(name) + ", more than the " + std::to_string(max) + " read");
    for (const Value& d : list->GetArray()) {
        if (!d.IsObject()) return fail("an entry of its " + std::string(name) + " is not an object");
        OciDescriptor one;
        one.media_type = string_member(&d, "mediaType");
        one.digest = string_member(&d, "digest");
        one.artifact_type = string_member(&d, "artifactType");
        if (const Value* size = member(&d, "size"); size != nullptr && size->IsUint64()) one.size = size->GetUint64();
        if (const Value* notes = member(&d, "annotations"); notes != nullptr && notes->IsObject()) {
            for (auto it = notes->MemberBegin(); it != notes->MemberEnd(); ++it) {
                if (it->value.IsString()) one.annotations.emplace_back(std::string(view(it->name)), std::string(view(it->value)));
            }
        }
        out.push_back(std::move(one));
    }
    return out;
}

}  // namespace

Result<OciDocument> read_oci_document(std::string text, std::size_t max_descriptors) {
    Document doc;
    if (std::string error = parse_document(text, doc); !error.empty()) return fail("it is not JSON: " + error);
    if (!doc.IsObject()) return fail("it is not a JSON object");
    OciDocument out;
    out.media_type = string_member(&doc, "mediaType");
    out.artifact_type = string_member(&doc, "artifactType");
    out.config_media_type = string_member(member(&doc, "config"), "mediaType");
    const Value* manifests = member(&doc, "manifests");
    out.is_index = manifests != nullptr;
    Result<std::vector<OciDescriptor>> listed = descriptors(manifests, "manifests", max_descriptors);
    if (!listed) return fail(listed.error());
    out.manifests = std::move(*listed);
    Result<std::vector<OciDescriptor>> layers = descriptors(member(&doc, "layers"), "layers", max_descriptors);
    if (!layers) return fail(layers.error());
    out.layers = std::move(*layers);
    return out;
}

std::string annotation_of(const OciDescriptor& descriptor, std::string_view key) {
    for (const auto& [k, v] : descriptor.annotations) {
        if (k == key) return v;
    }
    return {};
}

}  // namespace miw
