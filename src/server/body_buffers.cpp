#include "body_buffers.hpp"

#include <utility>

namespace miw::server {

void BodyBuffers::reserve(std::string& body, std::size_t bytes) {
    if (bytes >= kLargeBodyBytes) {
        for (std::string& kept : kept_) {
            if (kept.capacity() < bytes) continue;
            kept_bytes_ -= kept.capacity();
            body.swap(kept);
            body.clear();
            kept.swap(kept_.back());
            kept_.pop_back();
            return;
        }
    }
    body.reserve(bytes);
}

void BodyBuffers::keep(std::string& body) {
    const std::size_t capacity = body.capacity();
    if (capacity < kLargeBodyBytes || kept_bytes_ + capacity > kMaxKeptBytes) return;
    kept_bytes_ += capacity;
    kept_.push_back(std::move(body));
    body.clear();
}

BodyBuffers& thread_body_buffers() {
    thread_local BodyBuffers buffers;
    return buffers;
}

}  // namespace miw::server
