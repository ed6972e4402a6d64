// The strings request bodies are read into and answers are written into,
// kept for the next ones. Past the mmap threshold (server.cpp) each large
// body's string was mapped, faulted in page by page and unmapped again: about
// 80 page faults for a 300 KB Pod, and with many connections many bodies are
// read at once. Below it, a string of a few KiB is too large for malloc's
// per-thread caches and cost a search of its bins and a merge on free, every
// request. What is kept is bounded (kMaxKeptBytes and kMaxKept for each I/O
// thread, docs/operations.md); strings under kMinKeptBytes come from malloc's
// caches. When the bound is reached, the string kept longest ago makes room
// for the new one: the strings of an earlier kind of traffic (small Pods,
// say) would otherwise fill it for good, and every large body after them
// would be mapped and faulted in again. No Boost here.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace miw::server {

class BodyBuffers {
public:
    static constexpr std::size_t kMinKeptBytes = 1u << 10;
    static constexpr std::size_t kMaxKeptBytes = 4u << 20;
    static constexpr std::size_t kMaxKept = 32;

    // Room for `bytes` in body (empty): the smallest kept string large enough,
    // when there is one that is not much larger (fits below).
    void reserve(std::string& body, std::size_t bytes);
    // The same, for a caller that will overwrite what it reads into: a kept
    // string comes with the bytes it held (body.size() as it was), so that
    // growing body within them writes no zeros first.
    void reserve_for_overwrite(std::string& body, std::size_t bytes);
    // Whether a kept string of `capacity` may hold `bytes`: at most kMaxSlack
    // times as many (or kMinKeptBytes). A small body or answer never takes
    // the string a large body will want next, which would then be mapped
    // and faulted in again, page by page.
    static constexpr std::size_t kMaxSlack = 2;
    static constexpr bool fits(std::size_t capacity, std::size_t bytes) { return capacity <= kMaxSlack * bytes || capacity <= kMinKeptBytes; }
    // Takes body's string for a later body when it is large enough to be
    // worth keeping and within the bounds, letting go of the strings kept
    // longest ago where there is no room for it.
    void keep(std::string& body);

    std::size_t kept_bytes() const { return kept_bytes_; }
    std::size_t kept_count() const { return kept_.size(); }

private:
    // The smallest kept string that can hold `bytes` and fits them; end() when none.
    std::vector<std::string>::iterator best_kept(std::size_t bytes);

    std::vector<std::string> kept_;  // in the order they were kept: the oldest first
    std::size_t kept_bytes_ = 0;
};

// The calling thread's own: an I/O thread reads and answers its requests.
BodyBuffers& thread_body_buffers();

}  // namespace miw::server
