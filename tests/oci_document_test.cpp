// OCI manifests and indexes read for their descriptors, as signatures are found.
#include "model_image_webhook/registry/oci_document.hpp"

#include <catch2/catch.hpp>

using namespace miw;

TEST_CASE("a referrers index lists its descriptors with their artifact types", "[oci_document]") {
    const auto doc = read_oci_document(
        R"({"schemaVersion":2,"mediaType":"application/vnd.oci.image.index.v1+json","manifests":[
            {"mediaType":"application/vnd.oci.image.manifest.v1+json","digest":"sha256:aa","size":512,"artifactType":"application/vnd.dev.sigstore.bundle.v0.3+json"},
            {"mediaType":"application/vnd.oci.image.manifest.v1+json","digest":"sha256:bb","size":300}]})",
        64);
    REQUIRE(doc);
    CHECK(doc->is_index);
    REQUIRE(doc->manifests.size() == 2);
    CHECK(doc->manifests[0].artifact_type == "application/vnd.dev.sigstore.bundle.v0.3+json");
    CHECK(doc->manifests[0].size == 512);
    CHECK(doc->manifests[1].artifact_type.empty());
}

TEST_CASE("a .sig manifest's layers keep their string annotations", "[oci_document]") {
    const auto doc = read_oci_document(
        R"({"schemaVersion":2,"config":{"mediaType":"application/vnd.oci.image.config.v1+json","digest":"sha256:c","size":2},"layers":[
            {"mediaType":"application/vnd.dev.cosign.simplesigning.v1+json","digest":"sha256:p","size":250,
             "annotations":{"dev.cosignproject.cosign/signature":"MEUC","count":3}}]})",
        64);
    REQUIRE(doc);
    CHECK_FALSE(doc->is_index);
    CHECK(doc->config_media_type == "application/vnd.oci.image.config.v1+json");
    REQUIRE(doc->layers.size() == 1);
    CHECK(annotation_of(doc->layers[0], "dev.cosignproject.cosign/signature") == "MEUC");
    CHECK(annotation_of(doc->layers[0], "count").empty());
    CHECK(annotation_of(doc->layers[0], "absent").empty());
}

TEST_CASE("what is no manifest, or lists more than the cap, is refused with why", "[oci_document]") {
    struct Case {
        const char* name;
        std::string text;
        const char* error;
    };
    std::string many = R"({"manifests":[)";
    for (int i = 0; i < 65; ++i) many += std::string(i ? "," : "") + R"({"digest":"sha256:aa"})";
    many += "]}";
    const Case cases[] = {
        {"not JSON", "{", "it is not JSON"},
        {"not an object", "[]", "it is not a JSON object"},
        {"manifests not a list", R"({"manifests":{}})", "its manifests is not a list"},
        {"an entry not an object", R"({"layers":[1]})", "an entry of its layers is not an object"},
        {"over the cap", many, "it lists 65 manifests, more than the 64 read"},
    };
    for (const Case& c : cases) {
        SECTION(c.name) {
            const auto doc = read_oci_document(c.text, 64);
            REQUIRE_FALSE(doc);
            CHECK_THAT(doc.error(), Catch::Contains(c.error));
        }
    }
}
