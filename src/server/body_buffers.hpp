// The strings large request bodies are read into, kept for the next ones.
// Past the mmap threshold (server.cpp) each body's string was mapped, faulted
// in page by page and unmapped again: about 80 page faults for a 300 KB Pod,
// and with many connections many bodies are read at once. What is kept is
// bounded (kMaxKeptBytes for each I/O thread, docs/operations.md); smaller
// bodies come from the heap, which reuses its memory anyway. No Boost here.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace miw::server {

class BodyBuffers {
public:
    static constexpr std::size_t kLargeBodyBytes = 128u << 10;
    static constexpr std::size_t kMaxKeptBytes = 4u << 20;

    // Room for `bytes` in body (empty): a kept string when one is large enough.
    void reserve(std::string& body, std::size_t bytes);
    // Takes body's string for a later body when it is large and there is room.
    void keep(std::string& body);

    std::size_t kept_bytes() const { return kept_bytes_; }
    std::size_t kept_count() const { return kept_.size(); }

private:
    std::vector<std::string> kept_;
    std::size_t kept_bytes_ = 0;
};

// The calling thread's own: an I/O thread reads and answers its requests.
BodyBuffers& thread_body_buffers();

}  // namespace miw::server
