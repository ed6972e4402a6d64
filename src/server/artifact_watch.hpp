// The cluster's ModelArtifacts kept current (design.md 1.7) by the
// list-then-watch loop, for workloads that name one with
// gpustack.ai/model-artifact. No Boost here.
#pragma once

#include "kube_client.hpp"
#include "list_watch.hpp"
#include "metrics.hpp"

#include "model_image_webhook/artifact_cache.hpp"

namespace miw::server {

// Where the server reads ModelArtifacts: every namespace, at the version the
// GPUStack operator serves.
inline constexpr std::string_view kModelArtifactsPath = "/apis/worker.gpustack.ai/v1alpha1/modelartifacts";
// A page of 100 artifacts, or one watch event, is a few KiB; past these the answer is refused.
inline constexpr std::size_t kMaxArtifactListPageBytes = 16u << 20;
inline constexpr std::size_t kMaxArtifactEventBytes = 1u << 20;

class ArtifactKind : public WatchedKind {
public:
    ArtifactKind(ArtifactCache& cache, Metrics& metrics) : cache_(cache), metrics_(metrics) {}
    std::string_view plural() const override { return "ModelArtifacts"; }
    std::string collection_path() const override { return std::string(kModelArtifactsPath); }
    std::size_t max_page_bytes() const override { return kMaxArtifactListPageBytes; }
    std::size_t max_event_bytes() const override { return kMaxArtifactEventBytes; }
    Result<ListPosition> take_page(std::string& json) override;
    std::size_t commit_list() override;
    void drop_list() override { ArtifactMap().swap(listed_); }
    Result<WatchedEvent> apply_event(std::string& line) override;
    std::size_t size() const override { return cache_.size(); }
    void synced(std::size_t count, std::int64_t unix_time) override { metrics_.artifact_cache_synced(count, unix_time); }
    void relisted() override { metrics_.artifact_cache_relisted(); }
    void failed() override { metrics_.artifact_watch_failed(); }

private:
    ArtifactCache& cache_;
    Metrics& metrics_;
    ArtifactMap listed_;  // the pages of a list in progress
};

class ArtifactWatch {
public:
    ArtifactWatch(const KubeClient& client, ArtifactCache& cache, Metrics& metrics, WatchSettings settings = {})
        : kind_(cache, metrics), loop_(client, kind_, settings) {}
    void start() { loop_.start(); }
    void stop() { loop_.stop(); }

private:
    ArtifactKind kind_;
    ListWatch loop_;  // after kind_: it runs on it
};

}  // namespace miw::server
