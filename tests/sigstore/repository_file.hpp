// The repository's files as the Sigstore tests read them: the conformance
// cases, the shipped trusted root, the fixtures.
#pragma once

#include <sys/stat.h>

#include <fstream>
#include <sstream>
#include <string>

namespace miw::test {

// A path relative to the repository, whole; empty when it is not there.
inline std::string repository_file(const std::string& path) {
    std::ifstream in(std::string(MIW_SOURCE_DIR) + "/" + path);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

inline bool repository_has(const std::string& path) {
    struct stat st {};
    return ::stat((std::string(MIW_SOURCE_DIR) + "/" + path).c_str(), &st) == 0;
}

// sigstore-conformance's bundle-verify cases, relative to the repository.
inline const std::string kConformanceCases = "tests/fixtures/sigstore-conformance/test/assets/bundle-verify/";

}  // namespace miw::test
