#include "input.hpp"

#include <cerrno>
#include <cstdio>
#include <cstring>

namespace miw::cli {

Result<std::string> read_input(const std::string& path) {
    const bool is_stdin = path == "-";
    std::FILE* file = is_stdin ? stdin : std::fopen(path.c_str(), "rb");
    if (file == nullptr) return fail("cannot read " + path + ": " + std::strerror(errno));
    std::string out;
    char chunk[65536];
    std::size_t n = 0;
    while ((n = std::fread(chunk, 1, sizeof chunk, file)) > 0) out.append(chunk, n);
    const bool failed = std::ferror(file) != 0;
    const int read_errno = errno;
    if (!is_stdin) std::fclose(file);
    if (failed) return fail("cannot read " + (is_stdin ? std::string("standard input") : path) + ": " + std::strerror(read_errno));
    return out;
}

}  // namespace miw::cli
