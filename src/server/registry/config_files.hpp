// The files the nodes' configuration gives the registry check
// (--registry-auth, --registry-ca, --registry-hosts-dir and the CA files its
// hosts.toml name, --image-credential-provider-config), read, and told apart
// from their next version: a Secret or ConfigMap volume replaces them by
// swapping its `..data` link, a rotation CronJob rewrites them. No Boost, no
// libcurl here.
#pragma once

#include "model_image_webhook/pull_credentials.hpp"
#include "model_image_webhook/registry/kubelet_keyring.hpp"
#include "model_image_webhook/result.hpp"

#include <optional>
#include <string>
#include <vector>

namespace miw::server {

// A configuration file past this is no configuration file.
inline constexpr std::size_t kMaxConfigFileBytes = 4u << 20;

// A file's bytes, at most kMaxConfigFileBytes; or why not, naming it.
Result<std::string> read_config_file(const std::string& path);

// --registry-auth: a node's .dockerconfigjson (or legacy .dockercfg).
Result<KubeletKeyring> read_auth_file(const std::string& path);
// --image-credential-provider-config.
Result<CredentialProviderConfig> read_provider_config_file(const std::string& path);

// The names in a directory but . and .., sorted; nullopt when it cannot be read.
std::optional<std::vector<std::string>> names_in(const std::string& dir);

// What a set of files and directories is now, as a string that changes when
// any of them is replaced, rewritten or its link swapped: each path (links
// followed) and, below a directory, every file and link to three levels,
// with its device, inode, size and modification time. A path that is not
// there is told as such, so that its coming is a change too.
std::string files_fingerprint(const std::vector<std::string>& paths);

}  // namespace miw::server
