#include "model_image_webhook/decision.hpp"

#include "model_image_webhook/text.hpp"

namespace miw {

std::string_view to_string(CauseType type) {
    switch (type) {
        case CauseType::field_value_invalid: return "FieldValueInvalid";
        case CauseType::field_value_required: return "FieldValueRequired";
        case CauseType::field_value_forbidden: return "FieldValueForbidden";
    }
    return "FieldValueInvalid";
}

FieldError field_invalid(std::string field, std::string_view value, std::string_view detail, const Rule& rule) {
    return FieldError{CauseType::field_value_invalid, std::move(field), "Invalid value: " + quote_value(value) + ": " + std::string(detail),
                      std::string(rule.id)};
}

FieldError field_required(std::string field, std::string_view detail, const Rule& rule) {
    return FieldError{CauseType::field_value_required, std::move(field), "Required value: " + std::string(detail), std::string(rule.id)};
}

FieldError field_forbidden(std::string field, std::string_view detail, const Rule& rule) {
    return FieldError{CauseType::field_value_forbidden, std::move(field), "Forbidden: " + std::string(detail), std::string(rule.id)};
}

std::string Decision::rule_annotation() const {
    std::string out;
    for (std::size_t i = 0; i < rules.size(); ++i) {
        bool seen = false;
        for (std::size_t k = 0; k < i; ++k) seen = seen || rules[k] == rules[i];
        if (seen) continue;
        if (!out.empty()) out += ',';
        out += rules[i];
    }
    return out;
}

Decision allow(std::vector<std::string> warnings) {
    Decision d;
    d.warnings = std::move(warnings);
    return d;
}

Decision invalid(std::string_view group, std::string_view kind, std::string_view name, std::vector<FieldError> errors) {
    Decision d;
    d.allowed = false;
    d.code = 422;
    d.reason = "Invalid";
    d.details_group = group;
    d.details_kind = kind;
    d.details_name = name;
    // GroupKind.String() and utilerrors.Aggregate's format: one error alone,
    // several in brackets.
    std::string qualified(kind);
    if (!group.empty()) qualified += "." + std::string(group);
    d.message = qualified + " " + quote_value(name) + " is invalid";
    if (!errors.empty()) {
        d.message += ": ";
        if (errors.size() > 1) d.message += "[";
        for (std::size_t i = 0; i < errors.size(); ++i) {
            if (i) d.message += ", ";
            d.message += errors[i].text();
        }
        if (errors.size() > 1) d.message += "]";
    }
    for (const auto& e : errors) d.rules.push_back(e.rule);
    d.causes = std::move(errors);
    return d;
}

namespace {
Decision refusal(int code, const char* reason, std::string message, const Rule& rule) {
    Decision d;
    d.allowed = false;
    d.code = code;
    d.reason = reason;
    d.message = std::move(message);
    d.rules.push_back(std::string(rule.id));
    return d;
}
}  // namespace

Decision forbidden(std::string message, const Rule& rule) { return refusal(403, "Forbidden", std::move(message), rule); }

Decision bad_request(std::string message, const Rule& rule) { return refusal(400, "BadRequest", std::move(message), rule); }

}  // namespace miw
