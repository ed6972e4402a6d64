#include "body_buffers.hpp"

#include <utility>

namespace miw::server {

std::vector<std::string>::iterator BodyBuffers::best_kept(std::size_t bytes) {
    auto best = kept_.end();
    for (auto k = kept_.begin(); k != kept_.end(); ++k) {
        const std::size_t capacity = k->capacity();
        if (capacity >= bytes && fits(capacity, bytes) && (best == kept_.end() || capacity < best->capacity())) best = k;
    }
    return best;
}

void BodyBuffers::reserve(std::string& body, std::size_t bytes) {
    reserve_for_overwrite(body, bytes);
    body.clear();
}

void BodyBuffers::reserve_for_overwrite(std::string& body, std::size_t bytes) {
    const auto best = best_kept(bytes);
    if (best == kept_.end()) return body.reserve(bytes);
    kept_bytes_ -= best->capacity();
    body.swap(*best);
    kept_.erase(best);  // the rest stay in the order they were kept
}

void BodyBuffers::keep(std::string& body) {
    const std::size_t capacity = body.capacity();
    if (capacity < kMinKeptBytes || capacity > kMaxKeptBytes) return;
    while (kept_.size() >= kMaxKept || kept_bytes_ + capacity > kMaxKeptBytes) {
        kept_bytes_ -= kept_.front().capacity();
        kept_.erase(kept_.begin());
    }
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
