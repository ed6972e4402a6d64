// ModelArtifacts known offline, by namespace and name.
#include "model_image_webhook/artifact_source.hpp"

#include <catch2/catch.hpp>

using namespace miw;

TEST_CASE("an artifact is found by its namespace and name only", "[artifact_source]") {
    StaticArtifactSource artifacts("the inputs");
    artifacts.add("ml", "qwen", {"image", "r.io/q@sha256:1"});
    artifacts.add("ml", "qwen", {"image", "r.io/q@sha256:2"});  // a later document wins, as a later apply would
    CHECK(artifacts.size() == 1);
    const ArtifactLookup found = artifacts.lookup("ml", "qwen");
    CHECK(found.status == ArtifactLookupStatus::found);
    CHECK(found.info.image_reference == "r.io/q@sha256:2");
    CHECK(artifacts.lookup("default", "qwen").status == ArtifactLookupStatus::not_found);
    CHECK(artifacts.lookup("ml", "QWEN").status == ArtifactLookupStatus::not_found);
    CHECK(artifacts.origin() == "the inputs");
    artifacts.set_origin("--artifacts a.yaml");
    CHECK(artifacts.origin() == "--artifacts a.yaml");
}
