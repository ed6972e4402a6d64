// What a pod spec says of its nodes: required terms naming nodes, and the
// preferred terms placement compares.
#include "../src/codec/node_selection_views.hpp"

#include <catch2/catch.hpp>

#include <string>
#include <vector>

using namespace miw;
using namespace miw::json;

TEST_CASE("required terms keep the In constraints on the keys that name a node", "[node_selection_views]") {
    std::string text = R"({"affinity":{"nodeAffinity":{"requiredDuringSchedulingIgnoredDuringExecution":{"nodeSelectorTerms":[)"
                       R"({"matchExpressions":[{"key":"kubernetes.io/hostname","operator":"In","values":["gpu-1","gpu-2",7]},)"
                       R"({"key":"zone","operator":"In","values":["a"]},{"key":"kubernetes.io/hostname","operator":"NotIn","values":["gpu-3"]}]},)"
                       R"({"matchFields":[{"key":"metadata.name","operator":"In","values":["n-9"]}]}]}}}})";
    Document doc;
    REQUIRE(parse_document(text, doc).empty());
    PodSpecView spec;
    read_node_terms(doc, spec);
    REQUIRE(spec.required_node_terms.size() == 2);
    REQUIRE(spec.required_node_terms[0].node_constraints.size() == 1);
    CHECK(spec.required_node_terms[0].node_constraints[0].by == NodeNamedBy::hostname_label);
    CHECK(spec.required_node_terms[0].node_constraints[0].values == std::vector<std::string_view>{"gpu-1", "gpu-2"});
    REQUIRE(spec.required_node_terms[1].node_constraints.size() == 1);
    CHECK(spec.required_node_terms[1].node_constraints[0].by == NodeNamedBy::name);
}

TEST_CASE("preferred terms are read as far as placement compares them", "[node_selection_views]") {
    struct Case {
        const char* name;
        std::string spec;
        MemberShape preferred;
        std::size_t terms;
        bool hostname_in_only;
    };
    const std::vector<Case> cases = {
        {"no affinity", "{}", MemberShape::absent, 0, false},
        {"affinity of the wrong type", R"({"affinity":[]})", MemberShape::absent, 0, false},
        {"placement's own term", R"({"affinity":{"nodeAffinity":{"preferredDuringSchedulingIgnoredDuringExecution":[{"weight":100,"preference":{"matchExpressions":[{"key":"kubernetes.io/hostname","operator":"In","values":["a","b"]}]}}]}}})",
         MemberShape::container, 1, true},
        {"a zone preference", R"({"affinity":{"nodeAffinity":{"preferredDuringSchedulingIgnoredDuringExecution":[{"weight":5,"preference":{"matchExpressions":[{"key":"zone","operator":"In","values":["a"]}]}}]}}})",
         MemberShape::container, 1, false},
        {"preferred terms not a list", R"({"affinity":{"nodeAffinity":{"preferredDuringSchedulingIgnoredDuringExecution":{}}}})", MemberShape::other, 0, false},
    };
    for (const Case& c : cases) {
        DYNAMIC_SECTION(c.name) {
            std::string text = c.spec;
            Document doc;
            REQUIRE(parse_document(text, doc).empty());
            AffinityView a;
            read_affinity(doc, a);
            CHECK(a.preferred == c.preferred);
            REQUIRE(a.preferred_terms.size() == c.terms);
            if (c.terms == 1) CHECK(a.preferred_terms[0].hostname_in_only == c.hostname_in_only);
        }
    }
}
