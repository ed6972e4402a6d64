#include "model_artifact_views.hpp"

namespace miw::json {

namespace {

// Absent, null, [] and "" all mean "no patterns", as they do to the operator.
bool holds_something(const Value* v) {
    if (v == nullptr || v->IsNull()) return false;
    if (v->IsArray()) return !v->Empty();
    if (v->IsString()) return v->GetStringLength() != 0;
    return true;
}

// The zero value of its type: what a typed Go decoder cannot tell from absent.
bool zero_value(const Value& v) {
    switch (v.GetType()) {
        case rapidjson::kNullType:
        case rapidjson::kFalseType: return true;
        case rapidjson::kTrueType: return false;
        case rapidjson::kNumberType: return v.GetDouble() == 0.0;
        case rapidjson::kStringType: return v.GetStringLength() == 0;
        case rapidjson::kArrayType: return v.Empty();
        case rapidjson::kObjectType:
            for (auto it = v.MemberBegin(); it != v.MemberEnd(); ++it) {
                if (!zero_value(it->value)) return false;
            }
            return true;
    }
    return false;
}

// Equality as upstream's typed comparison sees it: a member that is absent
// equals one that holds its zero value, at any depth. Iterative over
// objects' members would gain nothing: the DOM is at most kMaxJsonDepth deep.
bool equal_but_for_zero_values(const Value* a, const Value* b) {
    if (a == nullptr || b == nullptr) {
        const Value* present = a != nullptr ? a : b;
        return present == nullptr || zero_value(*present);
    }
    if (a->IsObject() && b->IsObject()) {
        for (auto it = a->MemberBegin(); it != a->MemberEnd(); ++it) {
            if (!equal_but_for_zero_values(&it->value, member(b, view(it->name)))) return false;
        }
        for (auto it = b->MemberBegin(); it != b->MemberEnd(); ++it) {
            if (member(a, view(it->name)) == nullptr && !zero_value(it->value)) return false;
        }
        return true;
    }
    if (a->IsArray() && b->IsArray()) {
        if (a->Size() != b->Size()) return false;
        for (SizeType i = 0; i < a->Size(); ++i) {
            if (!equal_but_for_zero_values(&(*a)[i], &(*b)[i])) return false;
        }
        return true;
    }
    // null beside an empty object or list is no change either: both decode to the zero value.
    if (zero_value(*a) && zero_value(*b)) return a->GetType() == b->GetType() || a->IsNull() || b->IsNull();
    return *a == *b;
}

}  // namespace

ModelArtifactView read_model_artifact(const Value* object, const Value* old_object) {
    ModelArtifactView view;
    const Value* spec = member(object, "spec");
    view.spec = type_of(spec);
    const Value* source = member(spec, "source");
    view.source = type_of(source);
    for (std::string_view name : kSourceMembers) {
        const Value* m = member(source, name);
        if (m != nullptr && !m->IsNull()) view.sources_present.push_back(name);
    }
    const Value* image = member(source, "image");
    view.image = type_of(image);
    const Value* reference = member(image, "reference");
    view.reference = type_of(reference);
    if (reference != nullptr && reference->IsString()) view.reference_value = json::view(*reference);
    view.allow_patterns_set = holds_something(member(spec, "allowPatterns"));
    view.ignore_patterns_set = holds_something(member(spec, "ignorePatterns"));
    view.expected_digest_set = holds_something(member(spec, "expectedDigest"));
    if (old_object != nullptr) view.spec_unchanged = equal_but_for_zero_values(spec, member(old_object, "spec"));
    return view;
}

ModelArtifactStatusView read_model_artifact_status(const Value& object) {
    ModelArtifactStatusView out;
    const Value* image = member(member(member(&object, "spec"), "source"), "image");
    out.image_source = image != nullptr && !image->IsNull();
    const Value* status = member(&object, "status");
    const Value* resolved = member(status, "resolved");
    out.resolved = type_of(resolved);
    if (resolved != nullptr && resolved->IsObject()) {
        for (auto it = resolved->MemberBegin(); it != resolved->MemberEnd(); ++it) {
            if (view(it->name) != "resolvedTime" && !zero_value(it->value)) out.resolved_extra.push_back(view(it->name));
        }
    }
    const Value* nodes = member(status, "nodes");
    out.nodes_present = nodes != nullptr && !zero_value(*nodes);
    return out;
}

}  // namespace miw::json
