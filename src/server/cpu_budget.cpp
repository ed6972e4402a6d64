#include "cpu_budget.hpp"

#include <sched.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <thread>

namespace miw::server {

namespace {

std::string read_file(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

std::optional<unsigned long long> number(std::string_view text) {
    unsigned long long n = 0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), n);
    if (ec != std::errc() || end != text.data() + text.size() || text.empty()) return std::nullopt;
    return n;
}

unsigned affinity_cpus() {
    cpu_set_t set;
    CPU_ZERO(&set);
    if (sched_getaffinity(0, sizeof set, &set) == 0) {
        const int n = CPU_COUNT(&set);
        if (n > 0) return static_cast<unsigned>(n);
    }
    return std::max(1u, std::thread::hardware_concurrency());
}

std::string cpus(double n) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%g", n);
    return buf;
}

}  // namespace

std::optional<double> parse_cpu_max(std::string_view text) {
    while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.remove_suffix(1);
    const std::size_t space = text.find(' ');
    if (space == std::string_view::npos) return std::nullopt;
    const std::string_view quota = text.substr(0, space);
    const auto period = number(text.substr(space + 1));
    if (!period || *period == 0 || quota == "max") return std::nullopt;
    const auto q = number(quota);
    if (!q || *q == 0) return std::nullopt;
    return static_cast<double>(*q) / static_cast<double>(*period);
}

std::string cgroup_v2_path(std::string_view text) {
    while (!text.empty()) {
        const std::size_t eol = text.find('\n');
        const std::string_view line = text.substr(0, eol);
        text = eol == std::string_view::npos ? std::string_view() : text.substr(eol + 1);
        if (line.substr(0, 3) == "0::") return std::string(line.substr(3));
    }
    return {};
}

unsigned threads_for(unsigned affinity, std::optional<double> quota) {
    unsigned n = std::max(1u, affinity);
    if (quota) n = std::min(n, static_cast<unsigned>(std::max(1.0, std::ceil(*quota - 1e-9))));
    return std::max(1u, n);
}

CpuBudget detect_cpu_budget(const std::string& cgroup_root) {
    CpuBudget b;
    b.affinity_cpus = affinity_cpus();
    b.explained = std::to_string(b.affinity_cpus) + (b.affinity_cpus == 1 ? " CPU" : " CPUs") + " in the affinity mask";
    // The process's own cgroup and each ancestor: the tightest quota binds.
    std::string path = cgroup_v2_path(read_file("/proc/self/cgroup"));
    for (bool more = !path.empty(); more;) {
        if (const auto q = parse_cpu_max(read_file(cgroup_root + (path == "/" ? "" : path) + "/cpu.max")); q && (!b.quota_cpus || *q < *b.quota_cpus)) {
            b.quota_cpus = q;
        }
        more = path != "/" && !path.empty();
        const std::size_t slash = path.rfind('/');
        path = slash == 0 || slash == std::string::npos ? "/" : path.substr(0, slash);
    }
    if (b.quota_cpus) b.explained += "; cgroup CPU quota " + cpus(*b.quota_cpus);
    b.threads = threads_for(b.affinity_cpus, b.quota_cpus);
    return b;
}

}  // namespace miw::server
