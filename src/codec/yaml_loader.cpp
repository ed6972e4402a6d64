#include "model_image_webhook/yaml_loader.hpp"

#include "model_image_webhook/json_patch.hpp"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cctype>

namespace miw {

namespace {

constexpr unsigned kMaxDepth = 1000;

struct ConversionError {
    std::string message;
    std::size_t line;
};

bool all_of(std::string_view s, std::size_t from, bool (*pred)(char)) {
    if (from >= s.size()) return false;
    return std::all_of(s.begin() + static_cast<std::ptrdiff_t>(from), s.end(), pred);
}
bool is_digit(char c) { return c >= '0' && c <= '9'; }
bool is_octal(char c) { return c >= '0' && c <= '7'; }
bool is_hex(char c) { return std::isxdigit(static_cast<unsigned char>(c)) != 0; }

// Decimal digits of an unsigned integer written in base 8 or 16, or empty
// when it does not fit 64 bits.
std::string to_decimal(std::string_view digits, int base) {
    unsigned long long value = 0;
    for (char c : digits) {
        const int d = is_digit(c) ? c - '0' : (std::tolower(static_cast<unsigned char>(c)) - 'a' + 10);
        if (value > (~0ULL - static_cast<unsigned>(d)) / static_cast<unsigned>(base)) return {};
        value = value * static_cast<unsigned>(base) + static_cast<unsigned>(d);
    }
    return std::to_string(value);
}

// [-+]? ( \. [0-9]+ | [0-9]+ ( \. [0-9]* )? ) ( [eE] [-+]? [0-9]+ )?  as JSON.
bool core_float(std::string_view s, std::string& json) {
    std::size_t i = 0;
    std::string out;
    if (i < s.size() && (s[i] == '-' || s[i] == '+')) {
        if (s[i] == '-') out += '-';
        ++i;
    }
    const std::size_t int_start = i;
    while (i < s.size() && is_digit(s[i])) ++i;
    std::string_view integer = s.substr(int_start, i - int_start);
    std::string_view fraction;
    bool dot = false;
    if (i < s.size() && s[i] == '.') {
        dot = true;
        const std::size_t frac_start = ++i;
        while (i < s.size() && is_digit(s[i])) ++i;
        fraction = s.substr(frac_start, i - frac_start);
    }
    if (integer.empty() && fraction.empty()) return false;
    std::string exponent;
    if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
        ++i;
        exponent = "e";
        if (i < s.size() && (s[i] == '-' || s[i] == '+')) exponent += s[i++];
        const std::size_t exp_start = i;
        while (i < s.size() && is_digit(s[i])) ++i;
        if (i == exp_start) return false;
        exponent += s.substr(exp_start, i - exp_start);
    }
    if (i != s.size() || (!dot && exponent.empty())) return false;
    // JSON wants a digit on both sides of the point and no leading zeros.
    std::size_t nonzero = integer.find_first_not_of('0');
    out += nonzero == std::string_view::npos ? std::string("0") : std::string(integer.substr(nonzero));
    if (dot || !fraction.empty()) out += "." + (fraction.empty() ? std::string("0") : std::string(fraction));
    json = out + exponent;
    return true;
}

// A plain scalar under the YAML 1.2 core schema, as JSON text.
std::string resolve_plain(const std::string& s) {
    if (s.empty() || s == "~" || s == "null" || s == "Null" || s == "NULL") return "null";
    if (s == "true" || s == "True" || s == "TRUE") return "true";
    if (s == "false" || s == "False" || s == "FALSE") return "false";
    const std::size_t sign = (s[0] == '-' || s[0] == '+') ? 1 : 0;
    if (all_of(s, sign, is_digit)) {
        const std::size_t nonzero = s.find_first_not_of('0', sign);
        const std::string digits = nonzero == std::string::npos ? "0" : s.substr(nonzero);
        return (s[0] == '-' && digits != "0" ? "-" : "") + digits;
    }
    if (s.size() > 2 && s[0] == '0' && s[1] == 'o' && all_of(s, 2, is_octal)) {
        if (auto d = to_decimal(std::string_view(s).substr(2), 8); !d.empty()) return d;
    }
    if (s.size() > 2 && s[0] == '0' && s[1] == 'x' && all_of(s, 2, is_hex)) {
        if (auto d = to_decimal(std::string_view(s).substr(2), 16); !d.empty()) return d;
    }
    std::string number;
    if (core_float(s, number)) return number;
    // .inf and .nan have no JSON form: they stay strings, as JSON encoders write them.
    return json_string(s);
}

class JsonEmitter {
public:
    std::string out;

    bool emit(const YAML::Node& node, unsigned depth, ConversionError& error) {
        if (depth > kMaxDepth) return fail(error, "nested deeper than " + std::to_string(kMaxDepth) + " levels", node);
        if (out.size() > kMaxYamlJsonBytes) return fail(error, "expands to more than 64 MiB of JSON (aliases nested in aliases?)", node);
        switch (node.Type()) {
            case YAML::NodeType::Undefined:
            case YAML::NodeType::Null:
                out += "null";
                return true;
            case YAML::NodeType::Scalar:
                out += scalar(node);
                return true;
            case YAML::NodeType::Sequence: {
                out += '[';
                bool first = true;
                for (const auto& item : node) {
                    if (!first) out += ',';
                    first = false;
                    if (!emit(item, depth + 1, error)) return false;
                }
                out += ']';
                return true;
            }
            case YAML::NodeType::Map:
                return emit_map(node, depth, error);
        }
        return true;
    }

private:
    static bool fail(ConversionError& error, std::string message, const YAML::Node& node) {
        error = {std::move(message), static_cast<std::size_t>(std::max(0, node.Mark().line)) + 1};
        return false;
    }

    static std::string scalar(const YAML::Node& node) {
        const std::string& tag = node.Tag();
        const std::string& value = node.Scalar();
        if (tag == "?") return resolve_plain(value);
        if (tag == "tag:yaml.org,2002:int" || tag == "tag:yaml.org,2002:float" || tag == "tag:yaml.org,2002:bool" || tag == "tag:yaml.org,2002:null") {
            return resolve_plain(value);
        }
        return json_string(value);  // quoted, block, !!str or an unknown tag
    }

    static bool is_merge_key(const YAML::Node& key) { return key.IsScalar() && key.Tag() == "?" && key.Scalar() == "<<"; }

    // The mappings a merge key brings in: one mapping or a list of them; the
    // earlier ones win, and the mapping's own keys win over all of them.
    static bool merge_sources(const YAML::Node& value, std::vector<YAML::Node>& sources, ConversionError& error) {
        if (value.IsMap()) {
            sources.push_back(value);
            return true;
        }
        if (value.IsSequence()) {
            for (const auto& item : value) {
                if (!item.IsMap()) return fail(error, "a merge key (<<) takes a mapping or a list of mappings", item);
                sources.push_back(item);
            }
            return true;
        }
        return fail(error, "a merge key (<<) takes a mapping or a list of mappings", value);
    }

    bool emit_map(const YAML::Node& node, unsigned depth, ConversionError& error) {
        std::vector<std::pair<std::string, YAML::Node>> entries;
        std::vector<YAML::Node> merged;
        for (const auto& kv : node) {
            if (is_merge_key(kv.first)) {
                if (!merge_sources(kv.second, merged, error)) return false;
                continue;
            }
            if (!kv.first.IsScalar() && !kv.first.IsNull()) return fail(error, "a mapping key must be a scalar", kv.first);
            std::string key = kv.first.IsNull() ? "null" : kv.first.Scalar();
            // A later duplicate replaces an earlier one, keeping its place.
            auto same = std::find_if(entries.begin(), entries.end(), [&](const auto& e) { return e.first == key; });
            if (same != entries.end()) same->second = kv.second;
            else entries.emplace_back(std::move(key), kv.second);
        }
        for (const auto& source : merged) {
            for (const auto& kv : source) {
                if (!kv.first.IsScalar()) continue;
                const std::string& key = kv.first.Scalar();
                if (std::none_of(entries.begin(), entries.end(), [&](const auto& e) { return e.first == key; })) entries.emplace_back(key, kv.second);
            }
        }
        out += '{';
        for (std::size_t i = 0; i < entries.size(); ++i) {
            if (i) out += ',';
            out += json_string(entries[i].first);
            out += ':';
            if (!emit(entries[i].second, depth + 1, error)) return false;
        }
        out += '}';
        return true;
    }
};

std::vector<std::size_t> list_item_lines(const YAML::Node& root) {
    std::vector<std::size_t> lines;
    if (!root.IsMap()) return lines;
    const YAML::Node items = root["items"];
    if (!items || !items.IsSequence()) return lines;
    for (const auto& item : items) lines.push_back(static_cast<std::size_t>(std::max(0, item.Mark().line)) + 1);
    return lines;
}

// yaml-cpp 0.7 never returns (and grows without bound) on some inputs with a
// ',' where a block node is expected, as in "  a: 1\n,". A ',' that begins
// a line (after indentation, a "---" marker or an anchor or tag) outside a
// flow collection is never valid YAML: such input is refused before the
// parser sees it. Returns the 1-based line, or 0.
std::size_t comma_opening_a_block_line(std::string_view text) {
    int flow_depth = 0;
    std::size_t line = 1;
    bool line_start = true;  // only indentation, "---" or node properties so far
    char quote = 0;
    // A quote or a bracket opens a scalar or a collection only where a node
    // can start; elsewhere it is part of a plain scalar ("a\"b", "x[0]").
    char previous = '\n';
    auto node_can_start = [&] { return previous == '\n' || previous == ':' || previous == '-' || previous == '?' || previous == '[' || previous == '{' || previous == ','; };
    for (std::size_t i = 0; i < text.size(); ++i) {
        const char c = text[i];
        if (c == '\n') {
            ++line;
            line_start = true;
            if (quote == 0) previous = '\n';
            continue;
        }
        if (quote != 0) {
            if (c == quote) {
                quote = 0;
                previous = 'q';
            }
            continue;
        }
        if (line_start) {
            if (c == ' ' || c == '\t' || c == '\r') continue;
            if (text.substr(i, 3) == "---") {
                i += 2;
                continue;
            }
            if (c == '&' || c == '!') {
                while (i + 1 < text.size() && text[i + 1] != ' ' && text[i + 1] != '\n') ++i;
                continue;
            }
            if (c == ',' && flow_depth == 0) return line;
            line_start = false;
        }
        if (c == ' ' || c == '\t' || c == '\r') continue;
        switch (c) {
            case '#':
                if (previous == '\n' || text[i - 1] == ' ' || text[i - 1] == '\t') {
                    while (i + 1 < text.size() && text[i + 1] != '\n') ++i;
                    continue;
                }
                break;
            case '\'':
            case '"':
                if (node_can_start()) {
                    quote = c;
                    continue;
                }
                break;
            case '[':
            case '{':
                if (node_can_start() || flow_depth > 0) ++flow_depth;
                break;
            case ']':
            case '}':
                if (flow_depth > 0) --flow_depth;
                break;
            default: break;
        }
        previous = c;
    }
    return 0;
}

}  // namespace

YamlLoad load_yaml(std::string_view text) {
    YamlLoad result;
    // A byte order mark is not content.
    if (text.size() >= 3 && text.substr(0, 3) == "\xEF\xBB\xBF") text.remove_prefix(3);
    if (const std::size_t line = comma_opening_a_block_line(text); line != 0) {
        result.error = "a line cannot start with ',' outside a [ ] or { } collection";
        result.error_line = line;
        return result;
    }
    std::vector<YAML::Node> roots;
    try {
        roots = YAML::LoadAll(std::string(text));
    } catch (const YAML::Exception& e) {
        result.error = e.msg.empty() ? std::string(e.what()) : e.msg;
        result.error_line = e.mark.is_null() ? 0 : static_cast<std::size_t>(e.mark.line) + 1;
        return result;
    }
    for (const auto& root : roots) {
        if (!root || root.IsNull()) continue;
        YamlDocument doc;
        doc.line = static_cast<std::size_t>(std::max(0, root.Mark().line)) + 1;
        JsonEmitter emitter;
        ConversionError error;
        if (!emitter.emit(root, 0, error)) {
            result.error = error.message;
            result.error_line = error.line;
            result.documents.clear();
            return result;
        }
        doc.json = std::move(emitter.out);
        doc.item_lines = list_item_lines(root);
        result.documents.push_back(std::move(doc));
    }
    return result;
}

}  // namespace miw
