// What the Kubernetes API (or a --nodes file) answers, read by the codec:
// Node objects, Lists of them, pages and watch events of GET /api/v1/nodes,
// and GET /version. Each parses its JSON in place.
#pragma once

#include "model_image_webhook/artifact_source.hpp"
#include "model_image_webhook/node_source.hpp"
#include "model_image_webhook/result.hpp"

#include <string>
#include <vector>

namespace miw {

// Adds the Nodes in one JSON document (a Node, a List or NodeList of them, or
// an array of them) to out; objects of other kinds are passed over.
Status add_nodes_from_json(std::string& json, StaticNodeSource& out);

// The same for ModelArtifacts (worker.gpustack.ai, any version): each under
// its namespace ("default" where it names none) and name.
Status add_artifacts_from_json(std::string& json, StaticArtifactSource& out);

// gitVersion of a GET /version answer; empty when there is none.
std::string read_git_version(std::string& json);

struct NodeRecord {
    std::string name;
    NodeInfo info;
};

// One page of GET /api/v1/nodes?limit=N.
struct NodeListPage {
    std::vector<NodeRecord> nodes;
    std::string resource_version;  // metadata.resourceVersion: where the watch starts
    std::string continue_token;  // metadata.continue: empty on the last page
};

Result<NodeListPage> read_node_list(std::string& json);

enum class WatchEventType { added, modified, deleted, bookmark, error };

// One line of GET /api/v1/nodes?watch=1.
struct NodeWatchEvent {
    WatchEventType type = WatchEventType::error;
    NodeRecord node;  // added, modified, deleted
    std::string resource_version;  // of the object (a bookmark's included)
    int code = 0;  // error: the Status's code (410: the resource version is too old, list again)
    std::string message;  // error: the Status's message
};

Result<NodeWatchEvent> read_node_watch_event(std::string& json);

}  // namespace miw
