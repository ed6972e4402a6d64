#include "model_image_webhook/pod_spec.hpp"

#include <catch2/catch.hpp>

using namespace miw;

TEST_CASE("every workload kind names where its pod specs live", "[pod_spec]") {
    struct Case {
        const char* group;
        const char* kind;
        std::vector<std::string_view> pointers;
    };
    const std::vector<Case> cases = {
        {"", "Pod", {"/spec"}},
        {"apps", "Deployment", {"/spec/template/spec"}},
        {"apps", "StatefulSet", {"/spec/template/spec"}},
        {"apps", "DaemonSet", {"/spec/template/spec"}},
        {"apps", "ReplicaSet", {"/spec/template/spec"}},
        {"batch", "Job", {"/spec/template/spec"}},
        {"batch", "CronJob", {"/spec/jobTemplate/spec/template/spec"}},
        {"leaderworkerset.x-k8s.io", "LeaderWorkerSet", {"/spec/leaderWorkerTemplate/leaderTemplate/spec", "/spec/leaderWorkerTemplate/workerTemplate/spec"}},
        {"", "ConfigMap", {}},
        {"apps", "Pod", {}},
        {"extensions", "Deployment", {}},
        {"worker.gpustack.ai", "ModelArtifact", {}},
    };
    for (const auto& c : cases) {
        DYNAMIC_SECTION(c.group << "/" << c.kind) { CHECK(pod_spec_locations(c.group, c.kind) == c.pointers); }
    }
}
