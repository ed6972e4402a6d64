// Command-line options that configure the policy, shared by the commands.
#pragma once

#include "model_image_webhook/admission.hpp"

#include <cxxopts.hpp>

#include <optional>
#include <string>

namespace miw::cli {

// The version offline commands assume when none is given: the floor.
inline constexpr const char* kDefaultOfflineKubeVersion = "v1.35.0";

void add_policy_options(cxxopts::Options& options, const std::string& default_kube_version = kDefaultOfflineKubeVersion);

// The PolicyConfig the options describe, the apiserver version being
// kube_version ("" for unknown: `serve --kube-version auto` until it asks),
// or nullopt with error set to a one-line usage message.
std::optional<PolicyConfig> policy_from_options(const cxxopts::ParseResult& parsed, const std::string& kube_version, std::string& error);

// Parses the command line; nullopt with error set when it cannot be read.
std::optional<cxxopts::ParseResult> parse_command_line(cxxopts::Options& options, int argc, char** argv, std::string& error);

}  // namespace miw::cli
