#include "model_image_webhook/enforcement.hpp"

#include "model_image_webhook/text.hpp"
#include "model_image_webhook/warning.hpp"

namespace miw {

std::optional<Enforcement> parse_enforcement(std::string_view text) {
    if (text == "deny") return Enforcement::deny;
    if (text == "warn") return Enforcement::warn;
    if (text == "audit") return Enforcement::audit;
    return std::nullopt;
}

std::string_view to_string(Enforcement mode) {
    switch (mode) {
        case Enforcement::deny: return "deny";
        case Enforcement::warn: return "warn";
        case Enforcement::audit: return "audit";
    }
    return "deny";
}

namespace {
bool is_finding(const Decision& d) { return !d.allowed && (d.code == 403 || d.code == 422); }
}  // namespace

Decision enforce(Decision decision, Enforcement mode) {
    if (mode == Enforcement::deny || !is_finding(decision)) return decision;
    decision.allowed = true;
    decision.softened = mode;
    decision.patch.clear();
    if (mode == Enforcement::warn) {
        const std::size_t before = decision.warnings.size();
        // One warning per field error keeps each one short enough to read
        // whole; a refusal without field errors has one message.
        // The message is cut at its end where it must be: "would be denied" stays.
        if (decision.causes.empty()) {
            decision.warnings.push_back(Warning(kWouldBeDenied).bare(decision.message, kMaxWarningBytes).text());
        } else {
            for (const auto& cause : decision.causes) decision.warnings.push_back(Warning(kWouldBeDenied).bare(cause.text(), kMaxWarningBytes).text());
        }
        decision.softened_warnings = decision.warnings.size() - before;
    }
    return decision;
}

}  // namespace miw
