// containerd's hosts.toml (its registry config_path layout, design.md 1.9),
// read as containerd reads it: [host."URL"] tables in the order the file
// writes them, then the `server` (or, where none is set, the registry
// itself), each with its capabilities, CA files, skip_verify, headers and
// API path. The webhook asks a registry's hosts as the nodes do.
#pragma once

#include "model_image_webhook/result.hpp"

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace miw {

struct HostsFileEntry {
    // Where to connect; empty for the last entry where the file sets no
    // server: the registry's own host, filled in by whoever knows it.
    std::string scheme;  // "https" or "http"
    std::string host;  // no brackets around an IPv6 address
    std::string port;  // empty: the scheme's own
    std::string path;  // the API root: "/v2", "/prefix/v2", or override_path's own
    bool pull = true;  // capabilities: none set is every one, as containerd has it
    bool resolve = true;
    std::vector<std::string> ca_files;  // absolute: a relative one is the hosts directory's
    std::optional<bool> skip_verify;
    std::vector<std::pair<std::string, std::string>> headers;  // one pair per value
    bool client_certificates = false;  // `client` is set: not presented by the webhook
};

struct HostsFile {
    std::vector<HostsFileEntry> hosts;  // [host."..."] in file order, then the server
};

// hosts.toml text; base_dir makes relative `ca` paths absolute. An error
// names what is wrong (and where, for TOML that does not parse).
Result<HostsFile> read_hosts_toml(std::string_view text, std::string_view base_dir);

// The directory names containerd tries for a registry under config_path, in
// order: "host_port_" for "host:port", then the name itself, then "_default".
std::vector<std::string> hosts_directories(std::string_view registry);

}  // namespace miw
