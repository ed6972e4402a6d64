// The paths reviews are answered on, and the mode each forces.
#include "model_image_webhook/admission_path.hpp"

#include <catch2/catch.hpp>

using namespace miw;

TEST_CASE("each admission path names its endpoint and the mode it forces", "[admission_path]") {
    struct Case {
        const char* path;
        Endpoint endpoint;
        std::optional<Enforcement> forced;
    };
    const Case cases[] = {
        {"/validate", Endpoint::validate, std::nullopt},       {"/mutate", Endpoint::mutate, std::nullopt},
        {"/warn/validate", Endpoint::validate, Enforcement::warn}, {"/warn/mutate", Endpoint::mutate, Enforcement::warn},
        {"/audit/validate", Endpoint::validate, Enforcement::audit}, {"/audit/mutate", Endpoint::mutate, Enforcement::audit},
    };
    for (const auto& c : cases) {
        DYNAMIC_SECTION(c.path) {
            const AdmissionPath* at = find_admission_path(c.path);
            REQUIRE(at != nullptr);
            CHECK(at->endpoint == c.endpoint);
            CHECK(at->forced == c.forced);
            CHECK(at->mode(Enforcement::deny) == c.forced.value_or(Enforcement::deny));
            CHECK(at->mode(Enforcement::warn) == c.forced.value_or(Enforcement::warn));
        }
    }
    CHECK(admission_paths().size() == std::size(cases));
}

TEST_CASE("nothing else is an admission path", "[admission_path]") {
    for (const char* path : {"/", "/warn", "/warn/", "/deny/validate", "/Warn/validate", "/warn/validate/", "/audit//mutate", "/warn/warn/validate", ""}) {
        INFO(path);
        CHECK(find_admission_path(path) == nullptr);
    }
}
