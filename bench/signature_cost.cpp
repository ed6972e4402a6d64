// Prints the CPU one cold keyless verification costs, network aside: the
// bundle read from its JSON and verified (the Fulcio chain at signing time,
// the SCT, the log entry's SET, inclusion proof and signed checkpoint, the
// identity), as a replica pays once for a digest it has not seen. A
// measurement, not a test: it prints, and fails only on a bundle that does
// not verify (exit 1) or an unreadable input (exit 2).
//
//   build/bench/signature_cost BUNDLE TRUSTED_ROOT ARTIFACT IDENTITY ISSUER [--rounds N]
#include "../src/sigstore/crypto.hpp"
#include "../src/sigstore/verify.hpp"

#include "model_image_webhook/sigstore/bundle.hpp"
#include "model_image_webhook/sigstore/trusted_root.hpp"

#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <iterator>
#include <string>

namespace {

bool read_file(const char* path, std::string& out) {
    std::ifstream in(path, std::ios::binary);
    if (!in) return false;
    out.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
    return true;
}

double cpu_seconds() {
    timespec t{};
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_nsec) / 1e9;
}

}  // namespace

int main(int argc, char** argv) {
    if (argc < 6) {
        std::fprintf(stderr, "usage: signature_cost BUNDLE TRUSTED_ROOT ARTIFACT IDENTITY ISSUER [--rounds N]\n");
        return 2;
    }
    int rounds = 200;
    if (argc >= 8 && std::string(argv[6]) == "--rounds") rounds = std::atoi(argv[7]);
    std::string bundle_text, root_text;
    miw::sigstore::Artifact artifact;
    artifact.has_bytes = true;
    if (!read_file(argv[1], bundle_text) || !read_file(argv[2], root_text) || !read_file(argv[3], artifact.bytes)) {
        std::fprintf(stderr, "signature_cost: cannot read an input\n");
        return 2;
    }
    artifact.sha256 = miw::sigstore::sha256(artifact.bytes);
    const auto root = miw::sigstore::read_trusted_root(root_text);
    if (!root) {
        std::fprintf(stderr, "signature_cost: %s\n", root.error().c_str());
        return 2;
    }
    miw::sigstore::SignerPolicy signer;
    signer.identity = argv[4];
    signer.issuer = argv[5];
    // A clock inside the certificates' and keys' validity: the bundle's own log time is used.
    const std::int64_t now = static_cast<std::int64_t>(std::time(nullptr));
    const double start = cpu_seconds();
    for (int r = 0; r < rounds; ++r) {
        auto bundle = miw::sigstore::read_bundle(bundle_text);
        if (!bundle) {
            std::fprintf(stderr, "signature_cost: %s\n", bundle.error().c_str());
            return 2;
        }
        const auto verified = miw::sigstore::verify_bundle(*bundle, *root, artifact, signer, now);
        if (!verified) {
            std::fprintf(stderr, "signature_cost: not verified: %s\n", verified.error().c_str());
            return 1;
        }
    }
    const double per = (cpu_seconds() - start) / rounds;
    std::printf("%s: %.3f ms of CPU per cold keyless verification (%d rounds)\n", argv[1], per * 1000.0, rounds);
    return 0;
}
