// What the Kubernetes API (or a --nodes or --artifacts file) answers, read by
// the codec: Node and ModelArtifact objects, Lists of them, pages and watch
// events of their lists, and GET /version. Each parses its JSON in place.
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

struct ArtifactRecord {
    std::string namespace_name;  // "default" where the object names none
    std::string name;
    ArtifactInfo info;
};

// One page of a list (GET /api/v1/nodes?limit=N, or of ModelArtifacts).
template <typename Record>
struct ListPage {
    std::vector<Record> items;
    std::string resource_version;  // metadata.resourceVersion: where the watch starts
    std::string continue_token;  // metadata.continue: empty on the last page
};
using NodeListPage = ListPage<NodeRecord>;
using ArtifactListPage = ListPage<ArtifactRecord>;

Result<NodeListPage> read_node_list(std::string& json);
Result<ArtifactListPage> read_artifact_list(std::string& json);

enum class WatchEventType { added, modified, deleted, bookmark, error };

// One line of a watch (GET ...?watch=1).
template <typename Record>
struct WatchEvent {
    WatchEventType type = WatchEventType::error;
    Record object;  // added, modified, deleted
    std::string resource_version;  // of the object (a bookmark's included)
    int code = 0;  // error: the Status's code (410: the resource version is too old, list again)
    std::string message;  // error: the Status's message
};
using NodeWatchEvent = WatchEvent<NodeRecord>;
using ArtifactWatchEvent = WatchEvent<ArtifactRecord>;

Result<NodeWatchEvent> read_node_watch_event(std::string& json);
Result<ArtifactWatchEvent> read_artifact_watch_event(std::string& json);

// GET .../namespaces/NS/modelartifacts/NAME: one ModelArtifact.
Result<ArtifactRecord> read_one_artifact(std::string& json);

}  // namespace miw
