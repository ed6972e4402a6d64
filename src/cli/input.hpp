// Reading the commands' input files.
#pragma once

#include "model_image_webhook/result.hpp"

#include <string>

namespace miw::cli {

// The whole of a file, or of standard input for "-".
Result<std::string> read_input(const std::string& path);

}  // namespace miw::cli
