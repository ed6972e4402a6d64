// How many CPUs the process may use: its CPU affinity mask, and the cgroup v2
// quota (cpu.max) of its cgroup and every ancestor. The default thread count
// comes from it, as Go (1.25) sets GOMAXPROCS: a Pod with limits.cpu 500m on
// a 64-core node gets one I/O thread, not 64 that contend for half a core.
// No Boost here.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace miw::server {

struct CpuBudget {
    unsigned affinity_cpus = 1;  // CPUs in the affinity mask
    std::optional<double> quota_cpus;  // the tightest cpu.max on the way to the root, as CPUs; none: no quota
    unsigned threads = 1;  // what --threads 0 means
    std::string explained;  // for the start-up log: "2 CPUs in the affinity mask; cgroup quota 0.5 CPU"
};

// A cgroup v2 cpu.max ("50000 100000", "max 100000"): the quota in CPUs, or
// none for "max" or text that is not cpu.max.
std::optional<double> parse_cpu_max(std::string_view text);

// The cgroup of the process in /proc/self/cgroup's cgroup v2 line ("0::/kubepods/..."); empty when none.
std::string cgroup_v2_path(std::string_view proc_self_cgroup);

// The thread count for a budget: the quota rounded up, within the affinity
// mask, at least 1.
unsigned threads_for(unsigned affinity_cpus, std::optional<double> quota_cpus);

// Reads the affinity mask and the cgroup files (under cgroup_root, normally /sys/fs/cgroup).
CpuBudget detect_cpu_budget(const std::string& cgroup_root = "/sys/fs/cgroup");

}  // namespace miw::server
