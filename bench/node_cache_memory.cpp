// What the Node watch holds for a large cluster: 5,000 Nodes with 50 images
// each (kubelet reports at most 50), read from list pages as the apiserver
// sends them, kept in the NodeCache. Prints the heap the cache holds, and
// what a placement lookup over all of them costs. A measurement, not a test.
//   node_cache_memory [NODES] [IMAGES]
#include "model_image_webhook/api_answers.hpp"
#include "model_image_webhook/node_cache.hpp"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <malloc.h>
#include <string>

namespace {

std::size_t heap_in_use() {
    const struct mallinfo2 m = mallinfo2();
    return m.uordblks + m.hblkhd;
}

std::string hex64(std::size_t seed) {
    static const char* kHex = "0123456789abcdef";
    std::string out(64, '0');
    std::size_t x = seed * 0x9e3779b97f4a7c15ull + 1;
    for (char& c : out) {
        x ^= x >> 13;
        x *= 0xff51afd7ed558ccdull;
        c = kHex[x & 15];
    }
    return out;
}

// A Node as the kubelet reports it: each image under its digest and its tag.
std::string node_json(std::size_t n, std::size_t images) {
    std::string out = R"({"apiVersion":"v1","kind":"Node","metadata":{"name":"gpu-node-)" + std::to_string(n) +
                      R"(.us-west-2.compute.internal","resourceVersion":"1","labels":{"kubernetes.io/hostname":"gpu-node-)" + std::to_string(n) +
                      R"("}},"status":{"nodeInfo":{"kubeletVersion":"v1.35.1","containerRuntimeVersion":"containerd://2.1.3"},"images":[)";
    for (std::size_t i = 0; i < images; ++i) {
        // Models shared across the fleet (200 of them) and images of each node's own.
        const std::size_t image = i < 10 ? (n + i) % 200 : n * images + i;
        const std::string repo = "registry.example.com/gpustack/models/model-" + std::to_string(image);
        out += (i ? "," : "") + std::string(R"({"names":[")") + repo + "@sha256:" + hex64(image) + R"(",")" + repo + R"(:v1"],"sizeBytes":16106127360})";
    }
    return out + "]}}";
}

}  // namespace

int main(int argc, char** argv) {
    const std::size_t nodes = argc > 1 ? std::strtoul(argv[1], nullptr, 10) : 5000;
    const std::size_t images = argc > 2 ? std::strtoul(argv[2], nullptr, 10) : 50;
    miw::NodeCache cache("bench");
    const std::size_t before = heap_in_use();
    std::size_t json_bytes = 0;
    miw::NodeMap all;
    const auto start = std::chrono::steady_clock::now();
    for (std::size_t first = 0; first < nodes; first += 100) {
        std::string page = R"({"kind":"NodeList","apiVersion":"v1","metadata":{"resourceVersion":"1"},"items":[)";
        for (std::size_t n = first; n < std::min(nodes, first + 100); ++n) page += (n > first ? "," : "") + node_json(n, images);
        page += "]}";
        json_bytes += page.size();
        miw::Result<miw::NodeListPage> read = miw::read_node_list(page);
        if (!read) {
            std::fprintf(stderr, "%s\n", read.error().c_str());
            return 1;
        }
        for (auto& record : read->items) all[std::move(record.name)] = std::move(record.info);
    }
    cache.replace_all(std::move(all));
    const double list_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    malloc_trim(0);
    const std::size_t held = heap_in_use() - before;

    const std::string shared = "registry.example.com/gpustack/models/model-7@sha256:" + hex64(7);
    const int rounds = 200;
    std::size_t found = 0;
    const auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < rounds; ++i) found += cache.nodes_holding(shared, miw::kMaxPreferredNodes)->size();
    const double lookup_us = std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count() / rounds;
    const std::string absent = "registry.example.com/gpustack/models/none@sha256:" + hex64(999999);
    const auto t1 = std::chrono::steady_clock::now();
    for (int i = 0; i < rounds; ++i) found += cache.nodes_holding(absent, miw::kMaxPreferredNodes)->size();
    const double miss_us = std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t1).count() / rounds;

    std::printf("nodes %zu, images per node %zu, list JSON %.1f MiB read in %.2f s\n", cache.size(), images, json_bytes / 1048576.0, list_seconds);
    std::printf("heap held by the cache: %.2f MiB (%.0f bytes a node)\n", held / 1048576.0, static_cast<double>(held) / static_cast<double>(nodes));
    std::printf("placement lookup: %.1f us when 16 warm nodes are found early, %.1f us when none holds it (all %zu scanned)\n", lookup_us, miss_us, nodes);
    return found == static_cast<std::size_t>(rounds) * miw::kMaxPreferredNodes ? 0 : 2;
}
