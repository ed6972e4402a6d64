// Where a workload's gpustack.ai/model-artifact annotation is resolved
// (design.md 1.7): the ModelArtifacts of the inputs and --artifacts offline,
// a watch of the cluster's in the server.
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <utility>

namespace miw {

// What the rules read of a ModelArtifact.
struct ArtifactInfo {
    // The member of spec.source it holds: "image", "huggingFace", "modelScope",
    // "persistentVolumeClaim"; empty when it holds none it knows, or several.
    std::string source;
    std::string image_reference;  // spec.source.image.reference, for an image source
};

enum class ArtifactLookupStatus { found, not_found, unavailable };

struct ArtifactLookup {
    ArtifactLookupStatus status = ArtifactLookupStatus::not_found;
    ArtifactInfo info;
    std::string detail = {};  // for unavailable: why the lookup failed
};

class ArtifactSource {
public:
    virtual ~ArtifactSource() = default;
    virtual ArtifactLookup lookup(std::string_view namespace_name, std::string_view name) const = 0;
    // Where they come from, for messages: "the inputs and --artifacts a.yaml".
    virtual std::string origin() const = 0;
};

// A fixed set, read before any request.
class StaticArtifactSource : public ArtifactSource {
public:
    explicit StaticArtifactSource(std::string origin) : origin_(std::move(origin)) {}

    void add(std::string namespace_name, std::string name, ArtifactInfo info);
    std::size_t size() const { return artifacts_.size(); }
    void set_origin(std::string origin) { origin_ = std::move(origin); }

    ArtifactLookup lookup(std::string_view namespace_name, std::string_view name) const override;
    std::string origin() const override { return origin_; }

private:
    std::string origin_;
    std::map<std::pair<std::string, std::string>, ArtifactInfo, std::less<>> artifacts_;
};

}  // namespace miw
