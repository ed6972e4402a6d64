// Who holds credentials, told by SHA-256 of what they hold, never the secret.
#include "../../../src/server/registry/credential_identity.hpp"

#include <catch2/catch.hpp>

#include <set>

using namespace miw;
using namespace miw::server;

namespace {

KubeletKeyring keyring(std::vector<std::pair<std::string, RegistryCredential>> entries) {
    KubeletKeyring k;
    for (auto& [key, credential] : entries) k.add(key, credential);
    return k;
}

}  // namespace

TEST_CASE("a credential's identity tells credentials apart without holding the secret", "[credential_identity]") {
    const RegistryCredential a{"ci-bot", "s3cret-one"}, b{"ci-bot", "s3cret-two"}, c{"other", "s3cret-one"};
    CHECK(credential_identity(a) == credential_identity(RegistryCredential{"ci-bot", "s3cret-one"}));
    CHECK(credential_identity(a) != credential_identity(b));
    CHECK(credential_identity(a) != credential_identity(c));
    CHECK(credential_identity(a).find("s3cret") == std::string::npos);
    // SHA-256("s3cret-one"), its first 128 bits: a one-way function, not std::hash.
    CHECK(credential_identity(a) == "ci-bot#2ed45968de9caa56ca8ad382fb9de62d");
}

TEST_CASE("a keyring's holder is told by what it holds, never showing a secret", "[credential_identity]") {
    struct Case {
        const char* name;
        KubeletKeyring keyring;
        bool same_as_alice;
    };
    const KubeletKeyring alice = keyring({{"registry.example.com", {"alice", "password-1"}}});
    const Case cases[] = {
        {"the same key written with a scheme and /v1/", keyring({{"https://registry.example.com/v1/", {"alice", "password-1"}}}), true},
        {"another password", keyring({{"registry.example.com", {"alice", "password-2"}}}), false},
        {"another registry", keyring({{"other.example.com", {"alice", "password-1"}}}), false},
        {"another user", keyring({{"registry.example.com", {"bob", "password-1"}}}), false},
        {"one credential more", keyring({{"registry.example.com", {"alice", "password-1"}}, {"registry.example.com", {"bob", "x"}}}), false},
    };
    for (const Case& c : cases) {
        DYNAMIC_SECTION(c.name) { CHECK((holder_identity(c.keyring) == holder_identity(alice)) == c.same_as_alice); }
    }
    CHECK(holder_identity(alice).find("password-1") == std::string::npos);
    CHECK(holder_identity(alice).size() == 64);
    CHECK(holder_identity(KubeletKeyring()).empty());
}

TEST_CASE("no two keyrings of keys and credentials that run into each other share a holder", "[credential_identity]") {
    // Contents that would make one text if their parts were joined without their lengths.
    std::set<std::string> seen;
    seen.insert(holder_identity(keyring({{"a.example/b", {"u", "p"}}})));
    seen.insert(holder_identity(keyring({{"a.example", {"b", "p"}}})));
    seen.insert(holder_identity(keyring({{"a.example", {"u", "p"}}, {"b.example", {"u", "p"}}})));
    seen.insert(holder_identity(keyring({{"a.example", {"u", "p"}}, {"a.example", {"u", "p"}}})));
    CHECK(seen.size() == 4);
}
