#include "model_image_webhook/yaml_scalar.hpp"

#include "model_image_webhook/json_patch.hpp"

#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <limits>

namespace miw {

namespace {

constexpr std::string_view kTagPrefix = "tag:yaml.org,2002:";

bool is_digit(char c) { return c >= '0' && c <= '9'; }

bool one_of(std::string_view text, std::initializer_list<std::string_view> words) {
    for (std::string_view w : words) {
        if (text == w) return true;
    }
    return false;
}

YamlScalar make(YamlScalarKind kind, std::string json, std::string key) { return YamlScalar{kind, std::move(json), std::move(key)}; }

YamlScalar null_scalar() { return make(YamlScalarKind::null, "null", "null"); }
YamlScalar bool_scalar(bool v) { return make(YamlScalarKind::boolean, v ? "true" : "false", v ? "true" : "false"); }

// Go's strconv.ParseInt/ParseUint with base 0, underscores already removed:
// an optional sign, then 0x, 0o, 0b or a leading 0 (octal), or decimal.
struct ParsedInteger {
    bool negative = false;
    unsigned long long magnitude = 0;
};

std::optional<ParsedInteger> parse_go_integer(std::string_view s) {
    ParsedInteger out;
    if (!s.empty() && (s[0] == '+' || s[0] == '-')) {
        out.negative = s[0] == '-';
        s.remove_prefix(1);
    }
    if (s.empty()) return std::nullopt;
    int base = 10;
    if (s.size() > 1 && s[0] == '0') {
        const char p = static_cast<char>(s[1] | 0x20);
        if (p == 'x') base = 16, s.remove_prefix(2);
        else if (p == 'o') base = 8, s.remove_prefix(2);
        else if (p == 'b') base = 2, s.remove_prefix(2);
        else base = 8, s.remove_prefix(1);
    }
    if (s.empty()) return std::nullopt;
    const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), out.magnitude, base);
    if (ec != std::errc() || end != s.data() + s.size()) return std::nullopt;
    return out;
}

// ^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$
bool yaml_style_float(std::string_view s) {
    std::size_t i = 0;
    if (i < s.size() && (s[i] == '-' || s[i] == '+')) ++i;
    if (i < s.size() && s[i] == '.') {
        const std::size_t start = ++i;
        while (i < s.size() && is_digit(s[i])) ++i;
        if (i == start) return false;
    } else {
        const std::size_t start = i;
        while (i < s.size() && is_digit(s[i])) ++i;
        if (i == start) return false;
        if (i < s.size() && s[i] == '.') {
            ++i;
            while (i < s.size() && is_digit(s[i])) ++i;
        }
    }
    if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
        ++i;
        if (i < s.size() && (s[i] == '-' || s[i] == '+')) ++i;
        const std::size_t start = i;
        while (i < s.size() && is_digit(s[i])) ++i;
        if (i == start) return false;
    }
    return i == s.size();
}

// The shortest digits that read back as v, and the decimal exponent of the
// first: 1.5e-7 is {"15", -7}.
std::pair<std::string, int> shortest_digits(double v) {
    char buffer[64];
    const auto r = std::to_chars(buffer, buffer + sizeof buffer, std::fabs(v), std::chars_format::scientific);
    const std::string text(buffer, r.ptr);
    const std::size_t e = text.find('e');
    std::string digits;
    for (std::size_t i = 0; i < e; ++i) {
        if (text[i] != '.') digits += text[i];
    }
    return {digits, std::atoi(text.c_str() + e + 1)};
}

// A float as Go's encoding/json writes it (strconv 'f' with the shortest
// digits, so 2^64 is 18446744073709552000; 'e' below 1e-6 and from 1e21,
// with "e-07" as "e-7").
std::string go_json_float(double v) {
    // Go writes -0.0 as -0; to the apiserver that is 0, and 0 is what reads back.
    if (v == 0) return "0";
    const double a = std::fabs(v);
    const auto [digits, exp10] = shortest_digits(v);
    std::string out = v < 0 ? "-" : "";
    if (a < 1e-6 || a >= 1e21) {
        out += digits.substr(0, 1);
        if (digits.size() > 1) out += "." + digits.substr(1);
        out += exp10 < 0 ? "e-" : "e+";
        const int e = exp10 < 0 ? -exp10 : exp10;
        out += (e < 10 && exp10 >= 0 ? "0" : "") + std::to_string(e);
        return out;
    }
    const int point = exp10 + 1;  // digits before the decimal point
    if (point <= 0) return out + "0." + std::string(static_cast<std::size_t>(-point), '0') + digits;
    if (static_cast<std::size_t>(point) >= digits.size()) return out + digits + std::string(static_cast<std::size_t>(point) - digits.size(), '0');
    return out + digits.substr(0, static_cast<std::size_t>(point)) + "." + digits.substr(static_cast<std::size_t>(point));
}

// A float as a key: strconv.FormatFloat(f, 'g', -1, 64).
std::string go_g_float(double v) {
    char buffer[64];
    const double a = std::fabs(v);
    const int exp10 = a == 0 ? 0 : static_cast<int>(std::floor(std::log10(a)));
    const bool exponent = exp10 < -4 || exp10 >= 21;
    const auto r = std::to_chars(buffer, buffer + sizeof buffer, v, exponent ? std::chars_format::scientific : std::chars_format::fixed);
    return std::string(buffer, r.ptr);
}

Result<YamlScalar> float_scalar(double v, std::string_view text) {
    if (std::isnan(v) || std::isinf(v)) {
        return fail("the number " + json_string(text) + " has no JSON form (kubectl cannot send it to the apiserver); quote it to keep it a string");
    }
    return make(YamlScalarKind::floating, go_json_float(v), go_g_float(v));
}

std::optional<double> parse_double(std::string_view s) {
    const std::string text(s);
    char* end = nullptr;
    const double v = std::strtod(text.c_str(), &end);
    if (end != text.c_str() + text.size()) return std::nullopt;
    return v;
}

// go-yaml v2's resolve() for an untagged plain scalar, or one tagged with a
// standard type (tag is then what it must resolve to).
Result<YamlScalar> resolve(std::string_view in) {
    if (one_of(in, {"", "~", "null", "Null", "NULL"})) return null_scalar();
    if (one_of(in, {"y", "Y", "yes", "Yes", "YES", "true", "True", "TRUE", "on", "On", "ON"})) return bool_scalar(true);
    if (one_of(in, {"n", "N", "no", "No", "NO", "false", "False", "FALSE", "off", "Off", "OFF"})) return bool_scalar(false);
    if (one_of(in, {".nan", ".NaN", ".NAN"})) return float_scalar(std::numeric_limits<double>::quiet_NaN(), in);
    if (one_of(in, {".inf", ".Inf", ".INF", "+.inf", "+.Inf", "+.INF"})) return float_scalar(std::numeric_limits<double>::infinity(), in);
    if (one_of(in, {"-.inf", "-.Inf", "-.INF"})) return float_scalar(-std::numeric_limits<double>::infinity(), in);
    const char hint = in.front();
    if (hint == '.') {
        // strconv.ParseFloat: ".5", ".5e3".
        if (yaml_style_float(in)) {
            if (auto v = parse_double(in)) return float_scalar(*v, in);
        }
        return yaml_string_scalar(in);
    }
    if (!is_digit(hint) && hint != '+' && hint != '-') return yaml_string_scalar(in);
    std::string plain;
    for (char c : in) {
        if (c != '_') plain += c;
    }
    if (const auto n = parse_go_integer(plain)) {
        constexpr unsigned long long kInt64Max = static_cast<unsigned long long>(std::numeric_limits<long long>::max());
        if (!n->negative) {
            const std::string digits = std::to_string(n->magnitude);
            return make(YamlScalarKind::integer, digits, digits);
        }
        if (n->magnitude <= kInt64Max + 1) {
            const std::string digits = n->magnitude == 0 ? "0" : "-" + std::to_string(n->magnitude);
            return make(YamlScalarKind::integer, digits, digits);
        }
    }
    if (yaml_style_float(plain)) {
        if (auto v = parse_double(plain)) return float_scalar(*v, in);
    }
    return yaml_string_scalar(in);
}

}  // namespace

YamlScalar yaml_string_scalar(std::string_view text) { return make(YamlScalarKind::string, json_string(text), std::string(text)); }

Result<YamlScalar> resolve_plain_yaml_scalar(std::string_view text) { return resolve(text); }

Result<std::string> json_number_as_kubectl_sends(std::string_view text) {
    const bool integer = text.find_first_of(".eE") == std::string_view::npos;
    if (integer) {
        long long value = 0;
        const auto r = std::from_chars(text.data(), text.data() + text.size(), value);
        if (r.ec == std::errc() && r.ptr == text.data() + text.size()) return std::to_string(value);
    }
    const std::optional<double> v = parse_double(text);
    if (!v || std::isinf(*v) || std::isnan(*v)) return fail("the number " + json_string(text) + " is past what a float64 holds (kubectl cannot read it)");
    return go_json_float(*v);
}

Result<YamlScalar> resolve_tagged_yaml_scalar(std::string_view tag, std::string_view text) {
    std::string_view type = tag;
    if (type.rfind(kTagPrefix, 0) == 0) type.remove_prefix(kTagPrefix.size());
    else return yaml_string_scalar(text);  // "!", "!foo", another namespace: a string
    if (type == "str" || type == "binary" || type == "timestamp") return yaml_string_scalar(text);
    if (type != "int" && type != "float" && type != "bool" && type != "null") return yaml_string_scalar(text);
    Result<YamlScalar> resolved = resolve(text);
    if (!resolved) return resolved;
    const YamlScalarKind kind = resolved->kind;
    const bool fits = (type == "int" && kind == YamlScalarKind::integer) || (type == "float" && (kind == YamlScalarKind::floating || kind == YamlScalarKind::integer)) ||
                      (type == "bool" && kind == YamlScalarKind::boolean) || (type == "null" && kind == YamlScalarKind::null);
    if (!fits) return fail("!!" + std::string(type) + " " + json_string(text) + " is not a " + std::string(type) + " (kubectl cannot decode it)");
    if (type == "float" && kind == YamlScalarKind::integer) {
        if (auto v = parse_double(resolved->json)) return float_scalar(*v, text);
    }
    return resolved;
}

bool reads_back_as_string(std::string_view text) {
    const Result<YamlScalar> r = resolve(text);
    return r.ok() && r->kind == YamlScalarKind::string;
}

}  // namespace miw
