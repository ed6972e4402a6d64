#include "model_image_webhook/registry/body_references.hpp"

#include <algorithm>
#include <cstring>
#include <functional>

namespace miw {

namespace {

bool json_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

// The string value after the key that ends at `at` ("...": "value"): empty
// when what follows is not a string value (the key text was a value itself);
// escaped set when the value holds a backslash (not read: Go escapes nothing
// a reference may hold, so an escape is a value the scan leaves to the review).
std::string_view value_after(std::string_view body, std::size_t at, bool& escaped) {
    while (at < body.size() && json_space(body[at])) ++at;
    if (at >= body.size() || body[at] != ':') return {};
    ++at;
    while (at < body.size() && json_space(body[at])) ++at;
    if (at >= body.size() || body[at] != '"') return {};
    const std::size_t start = ++at;
    while (at < body.size() && body[at] != '"') {
        if (body[at] == '\\') {
            escaped = true;
            return {};
        }
        ++at;
    }
    if (at >= body.size()) return {};
    return body.substr(start, at - start);
}

// Each value of a member named `key` (given with its quotes), in order.
void each_value(std::string_view body, std::string_view key, bool& escaped, const std::function<bool(std::string_view)>& take) {
    const std::boyer_moore_horspool_searcher search(key.begin(), key.end());
    for (auto it = body.begin();;) {
        it = std::search(it, body.end(), search);
        if (it == body.end()) return;
        const auto end = static_cast<std::size_t>(it - body.begin()) + key.size();
        const std::string_view value = value_after(body, end, escaped);
        if (!value.empty() && !take(value)) return;
        it += static_cast<std::ptrdiff_t>(key.size());
    }
}

}  // namespace

BodyReferences references_in_body(std::string_view body, const ArtifactSource* artifacts, std::vector<std::string>& artifact_images) {
    BodyReferences out;
    bool escaped = false;
    const auto add = [&](std::string_view reference) {
        // Only a reference that pins something can be looked up.
        if (reference.find('@') == std::string_view::npos) return true;
        if (std::find(out.references.begin(), out.references.end(), reference) != out.references.end()) return true;
        if (out.references.size() == kMaxScannedReferences) {
            out.complete = false;
            return false;
        }
        out.references.push_back(reference);
        return true;
    };
    each_value(body, "\"gpustack.ai/model-image\"", escaped, add);
    each_value(body, "\"reference\"", escaped, add);
    if (artifacts != nullptr && body.find("\"gpustack.ai/model-artifact\"") != std::string_view::npos) {
        std::vector<std::string_view> names, namespaces;
        const auto collect = [](std::vector<std::string_view>& into) {
            return [&into](std::string_view v) {
                if (std::find(into.begin(), into.end(), v) == into.end() && into.size() < kMaxScannedReferences) into.push_back(v);
                return true;
            };
        };
        each_value(body, "\"gpustack.ai/model-artifact\"", escaped, collect(names));
        each_value(body, "\"namespace\"", escaped, collect(namespaces));
        artifact_images.clear();
        artifact_images.reserve(names.size() * namespaces.size());  // views into it stay put
        for (std::string_view ns : namespaces) {
            for (std::string_view name : names) {
                const ArtifactLookup found = artifacts->lookup(ns, name);
                if (found.status == ArtifactLookupStatus::found && !found.info.image_reference.empty()) {
                    artifact_images.push_back(found.info.image_reference);
                    if (!add(artifact_images.back())) break;
                }
            }
        }
        // A name the artifact watch cannot answer for now, or a namespace
        // the body does not write: the review may still find a reference.
        if (namespaces.empty() && !names.empty()) out.complete = false;
    }
    if (escaped) out.complete = false;
    return out;
}

}  // namespace miw
