#include "writeback_pacer.hpp"

#include <fcntl.h>
#include <sys/stat.h>

namespace miw::server {

namespace {
bool regular_file(int fd) {
    struct stat about {};
    return fd >= 0 && fstat(fd, &about) == 0 && S_ISREG(about.st_mode);
}
}  // namespace

WritebackPacer::WritebackPacer(int fd) : fd_(fd), pacing_(regular_file(fd)) {}

bool WritebackPacer::wrote(std::size_t bytes) {
    if (!pacing_) return false;
    unstarted_ += bytes;
    if (unstarted_ < kStepBytes) return false;
    unstarted_ = 0;
    // The whole file (offset 0, length 0 is "to its end"): only pages dirty
    // and not yet under write-back are submitted, found by the page cache's
    // dirty tags, so the pages already written cost nothing.
    if (sync_file_range(fd_, 0, 0, SYNC_FILE_RANGE_WRITE) != 0) {
        pacing_ = false;
        return false;
    }
    return true;
}

}  // namespace miw::server
