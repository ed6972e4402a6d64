#include "body_buffers.hpp"

#include <utility>

namespace miw::server {

BodyBuffers::Kept* BodyBuffers::best_kept(std::size_t bytes) {
    Kept* best = nullptr;
    for (Kept& k : kept_) {
        const std::size_t capacity = k.text.capacity();
        if (capacity >= bytes && fits(capacity, bytes) && (best == nullptr || capacity < best->text.capacity())) best = &k;
    }
    return best;
}

void BodyBuffers::reserve(std::string& body, std::size_t bytes) {
    reserve_for_overwrite(body, bytes);
    body.clear();
}

void BodyBuffers::reserve_for_overwrite(std::string& body, std::size_t bytes) {
    Kept* best = best_kept(bytes);
    if (best == nullptr) return body.reserve(bytes);
    kept_bytes_ -= best->text.capacity();
    body.swap(best->text);
    std::swap(*best, kept_.back());
    kept_.pop_back();
}

void BodyBuffers::keep(std::string& body) {
    const std::size_t capacity = body.capacity();
    if (capacity < kMinKeptBytes || capacity > kMaxKeptBytes) return;
    while (kept_.size() >= kMaxKept || kept_bytes_ + capacity > kMaxKeptBytes) drop_oldest();
    if (kept_.capacity() == 0) kept_.reserve(kMaxKept);  // once: keeping never allocates after
    kept_bytes_ += capacity;
    kept_.push_back(Kept{std::move(body), keeps_++});
    body.clear();
}

void BodyBuffers::drop_oldest() {
    auto oldest = kept_.begin();
    for (auto k = kept_.begin(); k != kept_.end(); ++k) {
        if (k->kept_at < oldest->kept_at) oldest = k;
    }
    kept_bytes_ -= oldest->text.capacity();
    std::swap(*oldest, kept_.back());
    kept_.pop_back();
}

BodyBuffers& thread_body_buffers() {
    thread_local BodyBuffers buffers;
    return buffers;
}

}  // namespace miw::server
