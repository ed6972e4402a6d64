// --registry-check and the flags that say how to reach registries, shared by
// serve, review and test (design.md 1.6, docs/registry-checks.md).
#pragma once

#include "../server/registry/lookups.hpp"

#include "model_image_webhook/registry/source.hpp"
#include "model_image_webhook/result.hpp"

#include <cxxopts.hpp>

namespace miw::cli {

void add_registry_options(cxxopts::Options& options);

// --registry-check.
Result<RegistryCheck> registry_check_from_options(const cxxopts::ParseResult& parsed);

// How registries are reached: reads the --registry-auth file.
Result<server::RegistrySettings> registry_settings_from_options(const cxxopts::ParseResult& parsed);

// The lookups of an offline command: none when --registry-check is off and
// no signature is to be fetched.
Result<std::unique_ptr<server::RegistryLookups>> offline_registry_lookups(const cxxopts::ParseResult& parsed, bool for_signatures = false);

}  // namespace miw::cli
