// Reading the commands' input files.
#pragma once

#include <string>

namespace miw::cli {

// The whole of a file, or of standard input for "-"; false with error set
// to a one-line reason when it cannot be read.
bool read_input(const std::string& path, std::string& out, std::string& error);

}  // namespace miw::cli
