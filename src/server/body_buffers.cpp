#include "body_buffers.hpp"

#include <utility>

namespace miw::server {

namespace {

// The smallest kept string that can hold `bytes` and fits them.
std::string* best_kept(std::vector<std::string>& kept, std::size_t bytes) {
    std::string* best = nullptr;
    for (std::string& k : kept) {
        if (k.capacity() >= bytes && BodyBuffers::fits(k.capacity(), bytes) && (best == nullptr || k.capacity() < best->capacity())) best = &k;
    }
    return best;
}

}  // namespace

void BodyBuffers::reserve(std::string& body, std::size_t bytes) {
    reserve_for_overwrite(body, bytes);
    body.clear();
}

void BodyBuffers::reserve_for_overwrite(std::string& body, std::size_t bytes) {
    std::string* best = best_kept(kept_, bytes);
    if (best == nullptr) return body.reserve(bytes);
    kept_bytes_ -= best->capacity();
    body.swap(*best);
    best->swap(kept_.back());
    kept_.pop_back();
}

void BodyBuffers::keep(std::string& body) {
    const std::size_t capacity = body.capacity();
    if (capacity < kMinKeptBytes || kept_.size() >= kMaxKept || kept_bytes_ + capacity > kMaxKeptBytes) return;
    if (kept_.capacity() == 0) kept_.reserve(kMaxKept);  // once: keeping never allocates after
    kept_bytes_ += capacity;
    kept_.push_back(std::move(body));
    body.clear();
}

BodyBuffers& thread_body_buffers() {
    thread_local BodyBuffers buffers;
    return buffers;
}

}  // namespace miw::server
