// Where the node check learns about Nodes: a file of Node objects offline,
// the Kubernetes API in the server.
#pragma once

#include <map>
#include <string>
#include <string_view>

namespace miw {

// status.nodeInfo of a Node, as reported by its kubelet.
struct NodeInfo {
    std::string kubelet_version;  // "v1.35.0"
    std::string container_runtime_version;  // "containerd://2.1.6"
};

enum class NodeLookupStatus { found, not_found, unavailable };

struct NodeLookup {
    NodeLookupStatus status = NodeLookupStatus::not_found;
    NodeInfo info;
    std::string detail;  // for unavailable: why the lookup failed
};

class NodeSource {
public:
    virtual ~NodeSource() = default;
    virtual NodeLookup lookup(std::string_view name) const = 0;
    // Where the Nodes come from, for messages: "the Kubernetes API", "--nodes nodes.yaml".
    virtual std::string origin() const = 0;
};

// A fixed set of Nodes, read before any request.
class StaticNodeSource : public NodeSource {
public:
    explicit StaticNodeSource(std::string origin) : origin_(std::move(origin)) {}

    void add(std::string name, NodeInfo info) { nodes_[std::move(name)] = std::move(info); }
    std::size_t size() const { return nodes_.size(); }

    NodeLookup lookup(std::string_view name) const override;
    std::string origin() const override { return origin_; }

private:
    std::string origin_;
    std::map<std::string, NodeInfo, std::less<>> nodes_;
};

}  // namespace miw
