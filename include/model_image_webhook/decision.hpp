// What the policy decides about one admission request, as a value. The codec
// turns it into an AdmissionReview response; nothing here knows JSON.
#pragma once

#include "model_image_webhook/rule.hpp"

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace miw {

enum class Enforcement : unsigned char;  // enforcement.hpp

// metav1.CauseType values a field error carries.
enum class CauseType { field_value_invalid, field_value_required, field_value_forbidden };

std::string_view to_string(CauseType type);

// One field error, shaped as Go's field.Error: body is its ErrorBody().
struct FieldError {
    CauseType type = CauseType::field_value_invalid;
    std::string field;  // "spec.source.image.reference"
    std::string body;  // "Invalid value: \"x\": why, and what to do instead"
    std::string rule;  // stable identifier, see docs/rules.md

    std::string text() const { return field + ": " + body; }
};

FieldError field_invalid(std::string field, std::string_view value, std::string_view detail, const Rule& rule);
FieldError field_required(std::string field, std::string_view detail, const Rule& rule);
FieldError field_forbidden(std::string field, std::string_view detail, const Rule& rule);

struct Decision {
    bool allowed = true;
    int code = 0;  // 0 when allowed; else 422, 403, 400 or 500
    std::string reason;  // metav1.StatusReason: Invalid, Forbidden, BadRequest, InternalError
    std::string message;
    // For 422: the kind the details name.
    std::string details_group;
    std::string details_kind;
    std::string details_name;
    std::vector<FieldError> causes;
    std::vector<std::string> warnings;
    std::vector<std::string> rules;  // for the audit annotation, in cause order
    std::string patch;  // a JSON Patch document (JSON text) for an allowed mutation; empty for none
    // Set when the enforcement mode admitted a denial (enforcement.hpp): the
    // fields above still say what was found; the last softened_warnings
    // warnings are the findings as kubectl prints them.
    std::optional<Enforcement> softened;
    std::size_t softened_warnings = 0;

    std::string rule_annotation() const;  // rules joined by ","
};

Decision allow(std::vector<std::string> warnings = {});

// Kubernetes' own "is invalid" error for a list of field errors, as
// apierrors.NewInvalid builds it: 422, reason Invalid, one cause per error.
Decision invalid(std::string_view group, std::string_view kind, std::string_view name, std::vector<FieldError> errors);

Decision forbidden(std::string message, const Rule& rule);
Decision bad_request(std::string message, const Rule& rule);

}  // namespace miw
