// Versions as Kubernetes components report them: "v1.35.0", "1.35.7",
// "v1.35.5-kind.1", "v1.36.1-gke.1200", "2.1.0-beta.0-18-g8237c496",
// "2.1.6+bottlerocket". Only major.minor is read: a patch or pre-release never
// moves a component across a feature floor.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace miw {

struct KubeVersion {
    int major = 0;
    int minor = 0;

    friend bool operator==(const KubeVersion& a, const KubeVersion& b) { return a.major == b.major && a.minor == b.minor; }
    friend bool operator<(const KubeVersion& a, const KubeVersion& b) {
        return a.major != b.major ? a.major < b.major : a.minor < b.minor;
    }
    bool at_least(const KubeVersion& floor) const { return !(*this < floor); }
    std::string to_string() const { return std::to_string(major) + "." + std::to_string(minor); }
};

// The apiserver and kubelet floor for image volumes without a feature gate.
inline constexpr KubeVersion kImageVolumeKubeFloor{1, 35};

// [v]MAJOR.MINOR[.PATCH][(-|+)anything]; nullopt for anything else.
std::optional<KubeVersion> parse_kube_version(std::string_view text);

}  // namespace miw
