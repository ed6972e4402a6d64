// Any bytes as an image reference: the parser and the digest contract answer
// without crashing, and what they accept reassembles to the input.
#include "model_image_webhook/image_reference.hpp"
#include "model_image_webhook/pinned_reference.hpp"

#include <cstdint>
#include <cstdlib>
#include <string>

// The regression replay's expectations: "pinned", or "refused RULE".
std::string miw_fuzz_answer(std::string_view input) {
    const miw::PinnedReferenceCheck check = miw::check_pinned_reference(input, miw::DigestAlgorithms{true, true});
    return check.ok() ? std::string("pinned") : "refused " + std::string(check.rule->id);
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    const miw::ReferenceParse parsed = miw::parse_image_reference(text);
    if (parsed.ok()) {
        const miw::ImageReference& r = *parsed.reference;
        std::string rebuilt(r.name);
        if (r.has_tag()) rebuilt += ":" + std::string(r.tag);
        if (r.has_digest()) rebuilt += "@" + std::string(r.digest);
        if (rebuilt != text) std::abort();
        if (r.name.size() > miw::kMaxNameLength) std::abort();
    } else if (parsed.error.message.empty() || parsed.error.offset > size) {
        std::abort();
    }
    const miw::PinnedReferenceCheck check = miw::check_pinned_reference(text, miw::DigestAlgorithms{true, true});
    if (!check.ok() && check.detail.empty()) std::abort();
    return 0;
}
