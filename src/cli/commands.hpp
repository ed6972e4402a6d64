// The subcommands of model-image-webhook. Each returns the process exit code.
#pragma once

namespace miw::cli {

int run_review(int argc, char** argv);
int run_serve(int argc, char** argv);
int run_test(int argc, char** argv);

}  // namespace miw::cli
