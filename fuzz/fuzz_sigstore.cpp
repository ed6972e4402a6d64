// Any bytes as what a signature's verification reads: a --signature-policy
// file, a Sigstore bundle, a trusted root, a Rekor entry's body, an in-toto
// statement, a checkpoint, what a registry answers as signatures are found
// (an OCI manifest or index, a simple-signing payload, a Rekor bundle
// annotation), and
// (its first bytes as the shape) a Merkle inclusion proof: a result or a
// reason, never a crash; what reads holds together (a log index is never
// negative, a checkpoint's root hash is 32 bytes, a proof that leads
// somewhere gives 32 bytes).
#include "../src/sigstore/checkpoint.hpp"
#include "../src/sigstore/merkle.hpp"

#include "model_image_webhook/registry/oci_document.hpp"
#include "model_image_webhook/signature_policy.hpp"
#include "model_image_webhook/sigstore/bundle.hpp"
#include "model_image_webhook/sigstore/rekor_entry.hpp"
#include "model_image_webhook/sigstore/simple_signing.hpp"
#include "model_image_webhook/sigstore/trusted_root.hpp"

#include <cstdint>
#include <cstdlib>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string text(reinterpret_cast<const char*>(data), size);
    {
        const miw::Result<miw::SignaturePolicy> policy = miw::read_signature_policy(text);
        if (!policy && policy.error().empty()) std::abort();
        if (policy) {
            for (const miw::ImagePolicy& p : policy->policies) {
                if (p.images.empty() || p.authorities.empty()) std::abort();
            }
        }
    }
    {
        const miw::Result<miw::sigstore::Bundle> bundle = miw::sigstore::read_bundle(text);
        if (!bundle && bundle.error().empty()) std::abort();
        if (bundle) {
            for (const miw::sigstore::TlogEntry& e : bundle->tlog_entries) {
                if (e.log_index < 0 || (e.inclusion_proof && e.inclusion_proof->log_index < 0)) std::abort();
            }
            if (bundle->dsse && bundle->dsse_signatures.empty()) std::abort();
        }
    }
    {
        const miw::Result<miw::sigstore::TrustedRoot> root = miw::sigstore::read_trusted_root(text);
        if (!root && root.error().empty()) std::abort();
        if (root) {
            for (const miw::sigstore::LogKey& log : root->tlogs) {
                if (log.key.empty()) std::abort();
            }
        }
    }
    {
        const miw::Result<miw::sigstore::RekorEntry> entry = miw::sigstore::read_rekor_entry(text);
        if (!entry && entry.error().empty()) std::abort();
        const miw::Result<miw::sigstore::Statement> statement = miw::sigstore::read_statement(text);
        if (!statement && statement.error().empty()) std::abort();
    }
    {
        const miw::Result<miw::OciDocument> doc = miw::read_oci_document(text, 64);
        if (!doc && doc.error().empty()) std::abort();
        if (doc && (doc->manifests.size() > 64 || doc->layers.size() > 64)) std::abort();
        const miw::Result<std::string> digest = miw::sigstore::simple_signing_digest(text);
        if (!digest && digest.error().empty()) std::abort();
        const miw::Result<miw::sigstore::TlogEntry> logged = miw::sigstore::read_cosign_rekor_bundle(text);
        if (!logged && logged.error().empty()) std::abort();
        if (logged && logged->log_index < 0) std::abort();
    }
    {
        const miw::Result<miw::sigstore::Checkpoint> checkpoint = miw::sigstore::read_checkpoint(text);
        if (!checkpoint && checkpoint.error().empty()) std::abort();
        if (checkpoint && (checkpoint->root_hash.size() != 32 || checkpoint->signatures.empty() || checkpoint->origin.empty())) std::abort();
    }
    if (size >= 16) {
        std::uint64_t index = 0, tree = 0;
        for (int i = 0; i < 8; ++i) {
            index = index << 8 | data[i];
            tree = tree << 8 | data[8 + i];
        }
        std::vector<std::string> proof;
        for (std::size_t at = 16; at + 32 <= size && proof.size() < 70; at += 32) proof.emplace_back(reinterpret_cast<const char*>(data + at), 32);
        const auto root = miw::sigstore::merkle_root_from_proof(index, tree, miw::sigstore::merkle_leaf_hash(text), proof);
        if (root && root->size() != 32) std::abort();
    }
    return 0;
}
