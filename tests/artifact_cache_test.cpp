// The ModelArtifacts as the server's watch keeps them.
#include "model_image_webhook/artifact_cache.hpp"

#include <catch2/catch.hpp>

using namespace miw;

TEST_CASE("until its first list the artifact cache answers that it cannot tell", "[artifact_cache]") {
    ArtifactCache cache("the Kubernetes API");
    cache.upsert("ml", "qwen", {"image", "r.io/q@sha256:1"});  // an event before the list
    const ArtifactLookup early = cache.lookup("ml", "qwen");
    CHECK(early.status == ArtifactLookupStatus::unavailable);
    CHECK_THAT(early.detail, Catch::Contains("not been listed yet"));
    CHECK_FALSE(cache.synced());
}

TEST_CASE("a list replaces every artifact; events change one each", "[artifact_cache]") {
    ArtifactCache cache("the Kubernetes API");
    ArtifactMap listed;
    listed[{"ml", "qwen"}] = {"image", "r.io/q@sha256:1"};
    listed[{"ml", "hub"}] = {"huggingFace", ""};
    cache.replace_all(listed);
    CHECK(cache.synced());
    CHECK(cache.size() == 2);
    CHECK(cache.lookup("ml", "qwen").info.image_reference == "r.io/q@sha256:1");
    CHECK(cache.lookup("default", "qwen").status == ArtifactLookupStatus::not_found);
    cache.upsert("default", "qwen", {"image", "r.io/q@sha256:2"});
    CHECK(cache.lookup("default", "qwen").status == ArtifactLookupStatus::found);
    cache.remove("ml", "hub");
    CHECK(cache.lookup("ml", "hub").status == ArtifactLookupStatus::not_found);
    cache.remove("ml", "none");  // deleting what is not there changes nothing
    CHECK(cache.size() == 2);
    cache.replace_all({});
    CHECK(cache.size() == 0);
    CHECK(cache.lookup("ml", "qwen").status == ArtifactLookupStatus::not_found);
}
