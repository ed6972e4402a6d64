// The subcommands of model-image-webhook. Each returns the process exit code.
#pragma once

#include <string_view>

namespace miw::cli {

// The exit codes of review and test (serve: 0, or 2 at start-up).
inline constexpr int kExitAllowed = 0;
inline constexpr int kExitDenied = 1;
inline constexpr int kExitInputError = 2;

// Prints "model-image-webhook COMMAND: MESSAGE" on stderr; returns kExitInputError.
int usage_error(std::string_view command, std::string_view message);

int run_review(int argc, char** argv);
int run_serve(int argc, char** argv);
int run_test(int argc, char** argv);
int run_verify_bundle(int argc, char** argv);

}  // namespace miw::cli
