// Command-line options that configure the policy, shared by the commands.
#pragma once

#include "model_image_webhook/admission.hpp"
#include "model_image_webhook/enforcement.hpp"
#include "model_image_webhook/result.hpp"

#include <cxxopts.hpp>

#include <optional>
#include <string>

namespace miw::cli {

// The version offline commands assume when none is given: the floor.
inline constexpr const char* kDefaultOfflineKubeVersion = "v1.35.0";

void add_policy_options(cxxopts::Options& options, const std::string& default_kube_version = kDefaultOfflineKubeVersion);

// The PolicyConfig the options describe, the apiserver version being
// kube_version ("" for unknown: `serve --kube-version auto` until it asks).
Result<PolicyConfig> policy_from_options(const cxxopts::ParseResult& parsed, const std::string& kube_version);

// --enforcement: what a policy denial becomes (deny, warn, audit).
Result<Enforcement> enforcement_from_options(const cxxopts::ParseResult& parsed);

// Parses the command line.
Result<cxxopts::ParseResult> parse_command_line(cxxopts::Options& options, int argc, char** argv);

}  // namespace miw::cli
