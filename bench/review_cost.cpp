// Prints what review() alone costs on each body given, with no transport:
// the part of a request's time that is parsing, the rules and the answer.
// A measurement, not a test: it prints, and fails only on a file it cannot
// read (exit 2) or an empty answer (exit 1).
//
//   build/bench/review_cost validate|mutate FILE... [--rounds N] [--rapidjson-only] [--registry-warm] [--signature-warm]
//
// --rapidjson-only: every body parsed by RapidJSON's reader, as before the
// compact reader (for a before-and-after).
// --registry-warm: --registry-check warn, every digest found in a warm cache
// (15 GiB), as a server answers once the first review of an image has looked.
// --signature-warm: --signature-policy with one ClusterImagePolicy matching
// every image (a key authority), each digest's verdict (verified) already
// kept, read as the server reads it: the kept verdict asked by reference and
// policy for each matching policy.
#include "../src/server/registry/signature_checks.hpp"
#include "../src/sigstore/image_policy.hpp"
#include "../tests/sigstore/test_key.hpp"

#include "model_image_webhook/admission_review.hpp"
#include "model_image_webhook/registry/cache.hpp"
#include "model_image_webhook/text.hpp"


#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <string>
#include <string_view>
#include <vector>

namespace {

// A registry in which every digest exists: the cache asks it once a digest.
class EveryDigestFound : public miw::RegistryFetcher {
public:
    miw::RegistryLookup fetch(std::string_view, const miw::PullCredentials&, miw::Deadline) const override {
        miw::RegistryLookup found;
        found.status = miw::RegistryLookupStatus::found;
        found.compressed_bytes = 15ull << 30;
        return found;
    }
};

// The kept verdicts, as a review on the server's I/O thread reads them.
class KeptSignatures : public miw::SignatureSource {
public:
    explicit KeptSignatures(const miw::server::SignatureChecks& checks) : checks_(checks) {}
    miw::SignatureOutcome verify(std::string_view reference, std::size_t policy, const miw::PullSecretsRef*) const override {
        if (auto kept = checks_.cached(reference, policy)) return std::move(*kept);
        // Not kept yet: the first round fetches (signs) and keeps it.
        return checks_.check(reference, policy, miw::PullCredentials{}, std::chrono::steady_clock::now() + std::chrono::seconds(3)).outcome;
    }

private:
    const miw::server::SignatureChecks& checks_;
};

}  // namespace

int main(int argc, char** argv) {
    if (argc < 3) {
        std::fprintf(stderr, "usage: review_cost validate|mutate FILE... [--rounds N] [--rapidjson-only] [--registry-warm] [--signature-warm]\n");
        return 2;
    }
    miw::ReviewContext context;
    context.endpoint = std::string_view(argv[1]) == "mutate" ? miw::Endpoint::mutate : miw::Endpoint::validate;
    context.policy.apiserver = miw::ApiserverVersion::from_text("v1.35.0");
    int rounds = 20000;
    const EveryDigestFound registry;
    const miw::RegistryCache cache(registry, std::chrono::seconds(30));
    const miw::CachedRegistrySource warm(cache, std::chrono::seconds(3));
    // The policy's key, and the signer of every digest's simple signature.
    const miw::test::TestKey key;
    miw::PolicyAuthority release_key;
    release_key.name = "release-key";
    release_key.key_pem = key.public_pem();
    miw::SignaturePolicy signature_policy;
    signature_policy.policies.push_back(miw::ImagePolicy{"every-model", {*miw::ImageGlob::compile("**")}, {release_key}, true});
    const auto verifier = miw::sigstore::ImagePolicyVerifier::create(signature_policy, miw::sigstore::TrustedRoot{});
    const miw::server::SignatureChecks checks(
        [&key](std::string_view reference, const miw::PullCredentials&, miw::Deadline) {
            miw::server::SignatureFetch fetched;
            fetched.fetched = true;
            miw::sigstore::SimpleSignature s;
            s.payload = R"({"critical":{"image":{"docker-manifest-digest":")" + std::string(reference.substr(reference.rfind('@') + 1)) + R"("}}})";
            s.signature = miw::base64_encode(key.sign(s.payload));
            fetched.found.simple.push_back(std::move(s));
            return fetched;
        },
        verifier ? *verifier : nullptr, miw::server::SignatureCheckSettings{});
    const KeptSignatures kept(checks);
    std::vector<std::string> files;
    for (int i = 2; i < argc; ++i) {
        if (std::string_view(argv[i]) == "--rounds" && i + 1 < argc) {
            rounds = std::atoi(argv[++i]);
        } else if (std::string_view(argv[i]) == "--registry-warm") {
            context.policy.registry_check = miw::RegistryCheck::warn;
            context.registry = &warm;
        } else if (std::string_view(argv[i]) == "--signature-warm") {
            context.policy.signature_policy = std::make_shared<const miw::SignaturePolicy>(signature_policy);
            context.signatures = &kept;
        } else if (std::string_view(argv[i]) == "--rapidjson-only") {
            context.json_reader = miw::JsonReader::rapidjson_only;
        } else {
            files.emplace_back(argv[i]);
        }
    }
    std::printf("%-40s %10s %12s\n", "body", "bytes", "us/review");
    for (const auto& file : files) {
        std::ifstream in(file, std::ios::binary);
        if (!in) {
            std::fprintf(stderr, "review_cost: cannot read %s\n", file.c_str());
            return 2;
        }
        const std::string body((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
        std::string copy;
        copy.reserve(body.size() + miw::kReviewBodySlack);
        const auto start = std::chrono::steady_clock::now();
        for (int r = 0; r < rounds; ++r) {
            copy.assign(body);  // review() parses in place
            const miw::ReviewResult result = miw::review(copy, context);
            if (result.body.empty()) return 1;
        }
        const double us = std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start).count() / rounds;
        const auto slash = file.find_last_of('/');
        std::printf("%-40s %10zu %12.2f\n", file.substr(slash == std::string::npos ? 0 : slash + 1).c_str(), body.size(), us);
    }
    return 0;
}
