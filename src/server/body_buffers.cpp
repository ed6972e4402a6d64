#include "body_buffers.hpp"

#include <utility>

namespace miw::server {

void BodyBuffers::reserve(std::string& body, std::size_t bytes) {
    std::string* best = nullptr;
    for (std::string& kept : kept_) {
        if (kept.capacity() >= bytes && fits(kept.capacity(), bytes) && (best == nullptr || kept.capacity() < best->capacity())) best = &kept;
    }
    if (best == nullptr) return body.reserve(bytes);
    kept_bytes_ -= best->capacity();
    body.swap(*best);
    body.clear();
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
