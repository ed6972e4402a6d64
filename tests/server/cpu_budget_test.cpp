// The default thread count: the affinity mask and the cgroup v2 CPU quota.
#include "../../src/server/cpu_budget.hpp"

#include <catch2/catch.hpp>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <optional>
#include <unistd.h>

using namespace miw::server;

TEST_CASE("cpu.max is read as the kernel writes it", "[cpu_budget]") {
    struct Case {
        const char* text;
        std::optional<double> cpus;
    };
    const Case cases[] = {
        {"max 100000\n", std::nullopt}, {"50000 100000\n", 0.5}, {"200000 100000", 2.0}, {"150000 100000\n", 1.5},
        {"1000 100000", 0.01},          {"", std::nullopt},      {"50000", std::nullopt}, {"0 100000", std::nullopt},
        {"50000 0", std::nullopt},      {"x 100000", std::nullopt},
    };
    for (const auto& c : cases) {
        INFO(c.text);
        CHECK(parse_cpu_max(c.text) == c.cpus);
    }
}

TEST_CASE("the quota is rounded up, within the affinity mask, and never below one", "[cpu_budget]") {
    struct Case {
        unsigned affinity;
        std::optional<double> quota;
        unsigned threads;
    };
    const Case cases[] = {
        {64, 0.5, 1}, {64, 1.0, 1}, {64, 1.5, 2}, {64, 2.0, 2}, {2, 8.0, 2}, {1, std::nullopt, 1}, {8, std::nullopt, 8}, {0, std::nullopt, 1}, {4, 0.01, 1},
    };
    for (const auto& c : cases) {
        INFO(c.affinity << " CPUs, quota " << (c.quota ? *c.quota : -1));
        CHECK(threads_for(c.affinity, c.quota) == c.threads);
    }
}

TEST_CASE("the cgroup v2 line of /proc/self/cgroup names the process's cgroup", "[cpu_budget]") {
    CHECK(cgroup_v2_path("0::/kubepods.slice/pod1/cri-containerd-2.scope\n") == "/kubepods.slice/pod1/cri-containerd-2.scope");
    CHECK(cgroup_v2_path("12:cpu,cpuacct:/docker/abc\n0::/\n") == "/");
    CHECK(cgroup_v2_path("12:cpu,cpuacct:/docker/abc\n").empty());  // cgroup v1 only: no quota read
}

TEST_CASE("the tightest quota on the way to the root binds", "[cpu_budget]") {
    std::ifstream in("/proc/self/cgroup");
    const std::string own = cgroup_v2_path(std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>()));
    if (own.empty()) {
        WARN("no cgroup v2 here: the walk is not exercised");
        return;
    }
    namespace fs = std::filesystem;
    const fs::path root = fs::temp_directory_path() / ("miw-cgroup-" + std::to_string(::getpid()));
    fs::create_directories(root.string() + own);
    const auto write = [](const fs::path& p, const char* text) { std::ofstream(p) << text; };
    write(root.string() + own + "/cpu.max", "max 100000\n");
    write(root / "cpu.max", "max 100000\n");
    CHECK_FALSE(detect_cpu_budget(root.string()).quota_cpus);
    if (own != "/") {
        write(root.string() + own + "/cpu.max", "50000 100000\n");  // limits.cpu: 500m
        const CpuBudget b = detect_cpu_budget(root.string());
        CHECK(b.quota_cpus == 0.5);
        CHECK(b.threads == 1);
        CHECK_THAT(b.explained, Catch::Contains("cgroup CPU quota 0.5"));
    }
    write(root / "cpu.max", "25000 100000\n");  // an ancestor tighter still
    CHECK(detect_cpu_budget(root.string()).quota_cpus == 0.25);
    fs::remove_all(root);
}
