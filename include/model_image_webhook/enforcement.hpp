// What a would-be denial becomes (--enforcement, and the /warn/ and /audit/
// paths): one step after the decision, so no rule knows about modes.
#pragma once

#include "model_image_webhook/decision.hpp"

#include <optional>
#include <string>
#include <string_view>

namespace miw {

enum class Enforcement : unsigned char {
    deny,  // a denial is sent as it is
    warn,  // allowed; the denial's findings go out as warnings kubectl prints
    audit,  // allowed; only the audit annotations and the metrics record it
};

std::optional<Enforcement> parse_enforcement(std::string_view text);
std::string_view to_string(Enforcement mode);

// Each softened finding's warning starts with this, so kubectl's
// "Warning: would be denied: ..." says that nothing was refused yet.
inline constexpr std::string_view kWouldBeDenied = "would be denied: ";

// The decision as the mode has it. Under warn and audit a policy denial (403,
// 422) becomes allowed, keeping its message and rules for the report, with
// softened set; under warn one warning per field error (or the message) is
// appended, and softened_warnings counts them. A mutation that would be
// denied carries no patch, so it is admitted unchanged. A malformed request
// (400) or an internal error (500) is the webhook's own failure, not a
// finding: it stays as it is in every mode.
Decision enforce(Decision decision, Enforcement mode);

}  // namespace miw
