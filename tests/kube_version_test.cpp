#include "model_image_webhook/kube_version.hpp"

#include <catch2/catch.hpp>

using miw::KubeVersion;
using miw::parse_kube_version;

TEST_CASE("versions as components report them are read as major.minor", "[kube_version]") {
    struct Case {
        const char* name;
        const char* text;
        int major;
        int minor;
    };
    const Case cases[] = {
        {"apiserver gitVersion", "v1.35.0", 1, 35},
        {"without the v", "1.35.7", 1, 35},
        {"kind build", "v1.35.5-kind.1", 1, 35},
        {"GKE build", "v1.36.1-gke.1200", 1, 36},
        {"next major", "v2.0.0", 2, 0},
        {"release candidate", "v1.35.0-rc.1", 1, 35},
        {"EKS build", "v1.34.2-eks-113cf36", 1, 34},
        {"major.minor only", "1.35", 1, 35},
        {"containerd describe output", "2.1.0-beta.0-18-g8237c496", 2, 1},
        {"containerd vendor build", "2.1.6+bottlerocket", 2, 1},
        {"old minor", "v1.9.11", 1, 9},
        {"leading zeros", "v01.035.0", 1, 35},
    };
    for (const auto& c : cases) {
        DYNAMIC_SECTION(c.name) {
            const auto v = parse_kube_version(c.text);
            REQUIRE(v.has_value());
            CHECK(v->major == c.major);
            CHECK(v->minor == c.minor);
        }
    }
}

TEST_CASE("anything else is unreadable", "[kube_version]") {
    const char* cases[] = {
        "", "v", "1", "v1", "v1.", "1.x", "Unknown", "latest", "v1.35.", "v1..35", "vv1.35.0", "V1.35.0", "1.35.0-", "1.35.0 ", " 1.35.0",
        "1.35.0\n", "1.35.x", "-1.35", "1.-35", "1.35.0-rc 1", "1.35.0/x", "9999999.1", "1.1234567", "containerd://2.1.0",
    };
    for (const char* text : cases) {
        DYNAMIC_SECTION("\"" << text << "\"") { CHECK_FALSE(parse_kube_version(text).has_value()); }
    }
}

TEST_CASE("versions compare by major then minor", "[kube_version]") {
    const KubeVersion floor = miw::kImageVolumeKubeFloor;
    CHECK(KubeVersion{1, 35}.at_least(floor));
    CHECK(KubeVersion{1, 36}.at_least(floor));
    CHECK(KubeVersion{2, 0}.at_least(floor));
    CHECK_FALSE(KubeVersion{1, 34}.at_least(floor));
    CHECK_FALSE(KubeVersion{0, 99}.at_least(floor));
    CHECK(KubeVersion{1, 35}.to_string() == "1.35");
}
