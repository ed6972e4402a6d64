// A rule's identity: what a refusal names in the `rule` audit annotation.
// Each rule is defined once, as a constant in the header of the code that
// applies it; rule_registry() lists them all, and a test holds docs/rules.md
// to that list.
#pragma once

#include <span>
#include <string_view>

namespace miw {

struct Rule {
    std::string_view id;  // stable, lowercase words joined by hyphens
    std::string_view field;  // the field it judges, as messages name it
    std::string_view verdict;  // the answer a refusal gets
    std::string_view description;  // one line: when it refuses
};

// Rules of the request itself, applied by the codec before any policy.
inline constexpr Rule kMalformedRequest{"malformed-request", "request", "400 BadRequest",
                                        "the AdmissionReview's request cannot be read: a field of the wrong type, an unknown operation, a missing object"};
inline constexpr Rule kInternalError{"internal-error", "", "500 InternalError", "the webhook could not answer (out of memory on one request)"};

// Every rule, in the order docs/rules.md lists them.
std::span<const Rule* const> rule_registry();

// nullptr for an identifier no rule has.
const Rule* find_rule(std::string_view id);

}  // namespace miw
