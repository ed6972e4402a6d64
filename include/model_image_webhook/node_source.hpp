// Where the node check and the placement rule learn about Nodes: a file of
// Node objects offline, a watch of the Kubernetes API in the server.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace miw {

// A digest-pinned image name as a Node's status.images[].names lists it,
// kept as a fixed-size hash: what the placement rule compares, at 8 bytes
// an image whatever the length of its name (64-bit FNV-1a; a collision only
// adds a preference, never a refusal).
using ImageNameHash = std::uint64_t;
ImageNameHash image_name_hash(std::string_view name);
// The hash of an image name as distribution/reference normalises it (Docker
// Hub's names, "library/", a tag beside the digest dropped): what a Node's
// status.images and a Pod's reference are compared by.
ImageNameHash normalized_image_hash(std::string_view name);

// Whether a name pins a digest ("registry/repo@sha256:..."): only those are
// kept, as only those can equal a pinned reference.
bool is_digest_pinned_name(std::string_view name);

// The label a Node carries with its host's name, which Pods select it by.
inline constexpr std::string_view kHostnameLabel = "kubernetes.io/hostname";

// How a Pod names the node it is pinned to (design.md 1.3). spec.nodeName and
// matchFields on metadata.name name the Node object; a nodeSelector or
// matchExpressions on kubernetes.io/hostname name the Node carrying that
// label value, which clouds set otherwise than the Node's name
// (ip-10-0-2-9.ec2.internal is labelled ip-10-0-2-9).
enum class NodeNamedBy : unsigned char { name, hostname_label };

struct NodeRef {
    std::string_view value;
    NodeNamedBy by = NodeNamedBy::name;
    bool operator==(const NodeRef&) const = default;
};

// "node \"X\"" or "the node labelled kubernetes.io/hostname=\"X\"", for messages.
std::string describe(const NodeRef& node);

// What the rules read of a Node: status.nodeInfo as its kubelet reports it,
// its hostname label, and the digest-pinned names of the images it holds.
struct NodeInfo {
    std::string kubelet_version;  // "v1.35.0"
    std::string container_runtime_version;  // "containerd://2.1.6"
    std::string hostname = {};  // metadata.labels["kubernetes.io/hostname"]; empty: no such label
    std::vector<ImageNameHash> pinned_images = {};  // sorted, unique
    std::optional<std::uint64_t> ephemeral_storage_bytes = {};  // status.capacity["ephemeral-storage"]; nullopt: not reported

    bool holds_image(std::string_view reference) const;
    // Adds a name's hash if it is digest-pinned, keeping the list sorted.
    void add_image_name(std::string_view name);
};

enum class NodeLookupStatus { found, not_found, unavailable };

struct NodeLookup {
    NodeLookupStatus status = NodeLookupStatus::not_found;
    NodeInfo info;
    std::string detail = {};  // for unavailable: why the lookup failed
};

// The nodes the placement rule prefers for an image: at most this many.
inline constexpr std::size_t kMaxPreferredNodes = 16;

class NodeSource {
public:
    virtual ~NodeSource() = default;
    virtual NodeLookup lookup(const NodeRef& node) const = 0;
    // Where the Nodes come from, for messages: "the Kubernetes API", "--nodes nodes.yaml".
    virtual std::string origin() const = 0;
    // The kubernetes.io/hostname label values of the nodes holding exactly
    // `reference`, sorted, the first `limit` of them (a node without the
    // label is left out: a Pod can only prefer a node by it); nullopt while
    // the source does not know every Node (the server's watch before its
    // first list), so nothing is preferred then. A function of the set of
    // such nodes alone, so Pods created together prefer the same nodes.
    virtual std::optional<std::vector<std::string>> nodes_holding(std::string_view reference, std::size_t limit) const = 0;
};

using NodeMap = std::map<std::string, NodeInfo, std::less<>>;

// The nodes of `nodes` holding `reference`, as nodes_holding() answers.
std::vector<std::string> nodes_holding_in(const NodeMap& nodes, std::string_view reference, std::size_t limit);

// The node `node` names in `nodes`: by its name, or the first (by name)
// carrying that hostname label value.
NodeLookup lookup_in(const NodeMap& nodes, const NodeRef& node);

// A fixed set of Nodes, read before any request.
class StaticNodeSource : public NodeSource {
public:
    explicit StaticNodeSource(std::string origin) : origin_(std::move(origin)) {}

    void add(std::string name, NodeInfo info) { nodes_[std::move(name)] = std::move(info); }
    std::size_t size() const { return nodes_.size(); }

    NodeLookup lookup(const NodeRef& node) const override { return lookup_in(nodes_, node); }
    std::string origin() const override { return origin_; }
    std::optional<std::vector<std::string>> nodes_holding(std::string_view reference, std::size_t limit) const override {
        return nodes_holding_in(nodes_, reference, limit);
    }

private:
    std::string origin_;
    NodeMap nodes_;
};

}  // namespace miw
