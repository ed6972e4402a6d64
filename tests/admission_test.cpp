#include "model_image_webhook/admission.hpp"

#include <catch2/catch.hpp>

using namespace miw;

TEST_CASE("operations are read as the apiserver writes them", "[admission]") {
    CHECK(parse_operation("CREATE") == Operation::create);
    CHECK(parse_operation("UPDATE") == Operation::update);
    CHECK(parse_operation("DELETE") == Operation::remove);
    CHECK(parse_operation("CONNECT") == Operation::connect);
    CHECK_FALSE(parse_operation("create").has_value());
    CHECK_FALSE(parse_operation("operationValue").has_value());
    for (auto op : {Operation::create, Operation::update, Operation::remove, Operation::connect}) CHECK(parse_operation(to_string(op)) == op);
}

TEST_CASE("endpoints", "[admission]") {
    CHECK(parse_endpoint("validate") == Endpoint::validate);
    CHECK(parse_endpoint("mutate") == Endpoint::mutate);
    CHECK_FALSE(parse_endpoint("/validate").has_value());
}

TEST_CASE("a ModelArtifact is known by group and kind, in any version", "[admission]") {
    CHECK(is_model_artifact({"worker.gpustack.ai", "v1alpha1", "ModelArtifact"}));
    CHECK(is_model_artifact({"worker.gpustack.ai", "v1", "ModelArtifact"}));
    CHECK_FALSE(is_model_artifact({"gpustack.ai", "v1", "ModelArtifact"}));
    CHECK_FALSE(is_model_artifact({"worker.gpustack.ai", "v1", "ModelDeployment"}));
}

TEST_CASE("the digest algorithms flag lists sha256 and sha512", "[admission]") {
    struct Case {
        const char* text;
        bool valid;
        bool sha256;
        bool sha512;
    };
    const Case cases[] = {
        {"sha256", true, true, false}, {"sha512", true, false, true}, {"sha256,sha512", true, true, true}, {"sha512,sha256", true, true, true},
        {"", false, false, false},     {"md5", false, false, false},  {"sha256,", false, false, false},    {"SHA256", false, false, false},
    };
    for (const auto& c : cases) {
        DYNAMIC_SECTION("\"" << c.text << "\"") {
            const auto parsed = parse_digest_algorithms(c.text);
            REQUIRE(parsed.has_value() == c.valid);
            if (c.valid) {
                CHECK(parsed->sha256 == c.sha256);
                CHECK(parsed->sha512 == c.sha512);
            }
        }
    }
}

TEST_CASE("the apiserver version keeps what was seen beside what was read", "[admission]") {
    const auto known = ApiserverVersion::from_text("v1.35.2-gke.100");
    CHECK(known.text == "v1.35.2-gke.100");
    REQUIRE(known.parsed.has_value());
    CHECK(known.parsed->minor == 35);
    const auto garbled = ApiserverVersion::from_text("banana");
    CHECK(garbled.text == "banana");
    CHECK_FALSE(garbled.parsed.has_value());
}
