#include "model_image_webhook/pinned_reference.hpp"

#include "model_image_webhook/image_reference.hpp"

#include "byte_scan.hpp"

namespace miw {

namespace {

PinnedReferenceCheck refuse(const Rule& rule, std::string detail) {
    PinnedReferenceCheck out;
    out.rule = &rule;
    out.detail = std::move(detail);
    return out;
}

std::string pinned_forms(const DigestAlgorithms& algorithms) {
    std::string out;
    if (algorithms.sha256) out = "sha256:<64 lowercase hex>";
    if (algorithms.sha512) out += std::string(out.empty() ? "" : " or ") + "sha512:<128 lowercase hex>";
    return out;
}

std::size_t find_pattern_character(std::string_view text, std::size_t from) {
    if (from >= text.size()) return std::string_view::npos;
    const char* const end = text.data() + text.size();
    const char* at = byte_scan::find_any_of<'*', '?', '[', ']', '{', '}'>(text.data() + from, end);
    return at == end ? std::string_view::npos : static_cast<std::size_t>(at - text.data());
}

// Offset of the first glob or pattern character, passing over the brackets
// of an IPv6 registry host ("[fd00::1]:5000/repo").
std::size_t first_pattern_character(std::string_view ref) {
    std::size_t from = 0;
    if (!ref.empty() && ref[0] == '[') {
        const std::size_t close = ref.find(']');
        const std::size_t slash = ref.find('/');
        if (close != std::string_view::npos && slash != std::string_view::npos && close < slash) {
            from = close + 1;
            if (find_pattern_character(ref.substr(1, close - 1), 0) != std::string_view::npos) from = 0;
        }
    }
    return find_pattern_character(ref, from);
}

bool lowercase_hex(std::string_view hex) { return byte_scan::find_non_hex<true>(hex.data(), hex.data() + hex.size()) == hex.data() + hex.size(); }

PinnedReferenceCheck check_digest(const ImageReference& ref, const DigestAlgorithms& algorithms) {
    const std::string_view alg = ref.digest_algorithm;
    std::size_t expected = 0;
    if (alg == "sha256" && algorithms.sha256) expected = 64;
    if (alg == "sha512" && algorithms.sha512) expected = 128;
    if (expected == 0) {
        std::string why = "digest algorithm \"" + std::string(alg) + "\" is not accepted";
        if (alg == "sha512") why += " (allow it with --digest-algorithms sha256,sha512)";
        return refuse(kDigestInvalid, why + "; pin the image as " + std::string(ref.name) + "@" + pinned_forms(algorithms));
    }
    if (ref.digest_hex.size() != expected) {
        return refuse(kDigestInvalid, std::string(alg) + " digest has " + std::to_string(ref.digest_hex.size()) + " hex digits; it needs exactly " +
                                            std::to_string(expected) + ": copy the full digest of the image manifest");
    }
    if (!lowercase_hex(ref.digest_hex)) {
        return refuse(kDigestInvalid, "digest hex must be lowercase: write " + std::string(ref.name) + "@" + std::string(alg) + ":<the same digits in lowercase>");
    }
    PinnedReferenceCheck out;
    if (ref.has_tag()) {
        out.warnings.push_back(Warning("tag ").quote(ref.tag).say(" is ignored; the digest " + std::string(alg) + ":" +
                               std::string(ref.digest_hex.substr(0, 12)) + "... is what is pulled"));
    }
    return out;
}

}  // namespace

PinnedReferenceCheck check_pinned_reference(std::string_view reference, const DigestAlgorithms& algorithms) {
    if (reference.size() > kMaxReferenceLength) {
        return refuse(kReferenceTooLong, "the reference is " + std::to_string(reference.size()) + " characters long; at most " +
                                                std::to_string(kMaxReferenceLength) + " are allowed");
    }
    if (const std::size_t at = first_pattern_character(reference); at != std::string_view::npos) {
        return refuse(kReferencePattern, "pattern character '" + std::string(1, reference[at]) + "' at character " + std::to_string(at + 1) +
                                               ": an image is mounted whole, so there is no listing to select from; name one image pinned by digest, "
                                               "e.g. registry.example.com/team/model@" +
                                               pinned_forms(algorithms));
    }
    const ReferenceParse parsed = parse_image_reference(reference);
    if (!parsed.ok() && parsed.error.part == ReferencePart::digest) {
        return refuse(kDigestInvalid, "the digest is not " + pinned_forms(algorithms) + ": " + parsed.error.message);
    }
    if (!parsed.ok()) {
        return refuse(kReferenceInvalid, "not a valid image reference: " + parsed.error.message + " (in the " +
                                               std::string(to_string(parsed.error.part)) + "); the form is [registry[:port]/]repository@" +
                                               pinned_forms(algorithms));
    }
    const ImageReference& ref = *parsed.reference;
    if (!ref.has_digest()) {
        return refuse(kDigestRequired, "no digest: a tag is mutable, so one artifact could deliver different weights on different pulls; pin the image by digest: " +
                                             std::string(ref.name) + "@" + pinned_forms(algorithms));
    }
    return check_digest(ref, algorithms);
}

}  // namespace miw
