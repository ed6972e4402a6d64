// A directory of a test's own under /tmp, removed with all it holds when the
// test ends.
#pragma once

#include <stdlib.h>

#include <cstdlib>
#include <string>

namespace miw::test {

struct TempDir {
    explicit TempDir(const std::string& name) {
        std::string pattern = "/tmp/miw-" + name + "-XXXXXX";
        const char* made = ::mkdtemp(pattern.data());
        path = made != nullptr ? made : "";
    }
    ~TempDir() {
        if (!path.empty()) std::system(("rm -rf '" + path + "'").c_str());
    }
    TempDir(const TempDir&) = delete;
    TempDir& operator=(const TempDir&) = delete;

    std::string path;
};

}  // namespace miw::test
