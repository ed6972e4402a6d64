// Starts the kernel's write-back of the log as it is written, when standard
// output is a regular file (a service's log file, the benchmark's). Left to
// itself the kernel keeps written pages dirty for dirty_expire_centisecs
// (30 s by default) and then writes the whole 30 s back at once: at 50,000
// reviews a second, some 500 MB in one burst, tens of milliseconds of kernel
// work on every CPU, which the requests of that second wait behind
// (measured after run 43: docs/performance.md's git history). Starting it each
// MiB, as RocksDB's bytes_per_sync does, spreads the same work evenly. A pipe
// (a container's log, read by the runtime) or a terminal has no page cache
// of its own and is left alone. No Boost here.
#pragma once

#include <cstddef>

namespace miw::server {

class WritebackPacer {
public:
    static constexpr std::size_t kStepBytes = 1u << 20;

    // Looks at fd once: paces only a regular file.
    explicit WritebackPacer(int fd);

    // After `bytes` more were written to fd: once kStepBytes have been
    // written since the last start, starts the write-back of what is dirty
    // without waiting for it. Returns whether it did. A failed start (a file
    // system that cannot) ends the pacing; the writes go on as before.
    bool wrote(std::size_t bytes);

    bool pacing() const { return pacing_; }

private:
    int fd_;
    bool pacing_;
    std::size_t unstarted_ = 0;
};

}  // namespace miw::server
