#include "input.hpp"

#include <cerrno>
#include <cstdio>
#include <cstring>

namespace miw::cli {

bool read_input(const std::string& path, std::string& out, std::string& error) {
    const bool is_stdin = path == "-";
    std::FILE* file = is_stdin ? stdin : std::fopen(path.c_str(), "rb");
    if (file == nullptr) {
        error = "cannot read " + path + ": " + std::strerror(errno);
        return false;
    }
    char chunk[65536];
    std::size_t n = 0;
    while ((n = std::fread(chunk, 1, sizeof chunk, file)) > 0) out.append(chunk, n);
    const bool failed = std::ferror(file) != 0;
    const int read_errno = errno;
    if (!is_stdin) std::fclose(file);
    if (failed) {
        error = "cannot read " + (is_stdin ? std::string("standard input") : path) + ": " + std::strerror(read_errno);
        return false;
    }
    return true;
}

}  // namespace miw::cli
