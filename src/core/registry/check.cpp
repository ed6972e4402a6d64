#include "model_image_webhook/registry/check.hpp"

#include "model_image_webhook/registry/image_facts.hpp"
#include "model_image_webhook/warning.hpp"

#include <cmath>
#include <cstdio>

namespace miw {

std::optional<RegistryCheck> parse_registry_check(std::string_view text) {
    if (text == "off") return RegistryCheck::off;
    if (text == "warn") return RegistryCheck::warn;
    if (text == "deny") return RegistryCheck::deny;
    return std::nullopt;
}

std::string_view to_string(RegistryCheck mode) {
    switch (mode) {
        case RegistryCheck::off: return "off";
        case RegistryCheck::warn: return "warn";
        case RegistryCheck::deny: return "deny";
    }
    return "off";
}

std::string_view to_string(RegistryFailure failure) {
    switch (failure) {
        case RegistryFailure::none: return "none";
        case RegistryFailure::unreachable: return "unreachable";
        case RegistryFailure::timeout: return "timeout";
        case RegistryFailure::tls: return "tls";
        case RegistryFailure::unauthorized: return "unauthorized";
        case RegistryFailure::rate_limited: return "rate-limited";
        case RegistryFailure::server_error: return "server-error";
        case RegistryFailure::too_large: return "too-large";
        case RegistryFailure::redirect: return "redirect";
        case RegistryFailure::bad_answer: return "bad-answer";
        case RegistryFailure::busy: return "busy";
        case RegistryFailure::not_allowed: return "not-allowed";
    }
    return "none";
}

namespace {

// A failure as a tenant reads it: a refused connection, a timeout and a TLS
// failure alike, so that the check is no port scanner (the metric and the
// log keep them apart).
std::string_view tenant_words(RegistryFailure failure) {
    if (failure == RegistryFailure::timeout || failure == RegistryFailure::tls) return to_string(RegistryFailure::unreachable);
    return to_string(failure);
}

}  // namespace

std::string format_bytes(std::uint64_t bytes) {
    // Tenths by integer arithmetic, rounded half up: every review of a found
    // image formats two sizes, and printf's floating point cost more than
    // the lookup itself.
    constexpr std::uint64_t kMiB = 1024ull * 1024;
    constexpr std::uint64_t kGiB = kMiB * 1024;
    const auto tenths = [](std::uint64_t value, std::uint64_t unit, std::string_view name) {
        const unsigned __int128 scaled = (static_cast<unsigned __int128>(value) * 10 + unit / 2) / unit;
        const auto whole = static_cast<std::uint64_t>(scaled / 10);
        return std::to_string(whole) + "." + static_cast<char>('0' + static_cast<int>(scaled % 10)) + " " + std::string(name);
    };
    if (bytes >= kGiB) return tenths(bytes, kGiB, "GiB");
    if (bytes >= kMiB) return tenths(bytes, kMiB, "MiB");
    return std::to_string(bytes) + " bytes";
}

namespace {

// The words of a certain refusal, as deny gives it and warn repeats it.
std::string refusal_words(const RegistryLookup& found) {
    if (found.status == RegistryLookupStatus::not_found) {
        return "the registry has no manifest for this digest (" + found.detail +
               "): the Pod would sit in ImagePullBackOff; check the digest (push the image, or copy the digest from the registry)";
    }
    return "the registry returned content for this digest that hashes to another digest (" + found.detail +
           "): the image cannot be pulled as pinned; check the registry or any mirror in front of it";
}

std::string not_an_image_words(const std::string& types) {
    return "the registry holds an OCI artifact, not an image (" + types +
           "): containerd mounts only images (an image config and tar layers) as image volumes, so the Pod would fail on every node; "
           "rebuild the weights as an image (a FROM scratch image with COPY, or umoci or buildah) and pin its digest";
}

}  // namespace

std::string size_warning(std::string_view field, std::uint64_t compressed_bytes, const DiskEstimate& disk) {
    std::string computed;
    if (disk.compressed_layer_bytes != 0) computed += "gzip/zstd layers x2.26";
    if (disk.tar_layer_bytes != 0) computed += std::string(computed.empty() ? "" : ", ") + "tar layers x2";
    if (computed.empty()) computed = "no layers";
    return Warning(field)
        .say(": the model image is ")
        .say(format_bytes(compressed_bytes))
        .say(" compressed; about ")
        .say(format_bytes(disk.bytes))
        .say(" on the node's disk once pulled and unpacked (")
        .say(computed)
        .say("): check the GPU nodes have that room")
        .text();
}

RegistryVerdict check_in_registry(std::string_view field, std::string_view reference, RegistryCheck mode, const RegistrySource* registry,
                                  const PullSecretsRef* who) {
    RegistryVerdict out;
    if (mode == RegistryCheck::off || registry == nullptr) return out;
    const RegistryLookup found = who != nullptr ? registry->lookup_for(reference, *who) : registry->lookup(reference);
    for (const std::string& note : found.credential_notes) {
        out.warnings.push_back(Warning(field).say(": ").bare(note, 300).text());
    }
    switch (found.status) {
        case RegistryLookupStatus::found: {
            if (const std::optional<NotAnImage> artifact = not_an_image(found.facts)) {
                if (mode == RegistryCheck::deny) {
                    out.refusal = not_an_image_words(artifact->found);
                    out.rule = &kRegistryNotAnImage;
                } else {
                    // The deny words do not fit a warning: the type that decides it, and what to do.
                    out.warnings.push_back(Warning(field)
                                               .say(": --registry-check deny would refuse this (")
                                               .say(kRegistryNotAnImage.id)
                                               .say("): an OCI artifact (")
                                               .bare(artifact->deciding, 62)
                                               .say("), not an image containerd mounts: rebuild it FROM scratch with COPY")
                                               .text());
                }
                return out;
            }
            if (const std::optional<DiskEstimate> disk = disk_estimate(found)) {
                out.warnings.push_back(size_warning(field, *found.compressed_bytes, *disk));
            } else if (!found.detail.empty()) {
                out.warnings.push_back(Warning(field)
                                           .say(": the digest is in its registry, but the image's size cannot be told (")
                                           .bare(found.detail, 160)
                                           .say("): check the GPU nodes' disks have room for it")
                                           .text());
            }
            return out;
        }
        case RegistryLookupStatus::not_found:
        case RegistryLookupStatus::digest_mismatch: {
            const Rule& rule = found.status == RegistryLookupStatus::not_found ? kRegistryManifestUnknown : kRegistryDigestMismatch;
            if (mode == RegistryCheck::deny) {
                out.refusal = refusal_words(found);
                out.rule = &rule;
            } else {
                out.warnings.push_back(
                    Warning(field).say(": --registry-check deny would refuse this (").say(rule.id).say("): ").bare(refusal_words(found), 200).text());
            }
            return out;
        }
        case RegistryLookupStatus::unavailable:
            out.warnings.push_back(Warning(field)
                                       .say(": the registry could not be asked whether the digest exists (")
                                       .say(tenant_words(found.failure))
                                       .say(": ")
                                       .bare(found.detail, 120)
                                       .say("); admitted unchecked")
                                       .text());
            return out;
    }
    return out;
}

}  // namespace miw
