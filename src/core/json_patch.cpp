#include "model_image_webhook/json_patch.hpp"

#include <array>
#include <charconv>
#include <cstdio>

namespace miw {

namespace {

constexpr std::array<bool, 256> make_escape_table() {
    std::array<bool, 256> table{};
    for (std::size_t c = 0; c < 0x20; ++c) table[c] = true;
    table['"'] = true;
    table['\\'] = true;
    return table;
}
constexpr std::array<bool, 256> kNeedsEscape = make_escape_table();

}  // namespace

void append_json_string(std::string& out, std::string_view text) {
    out += '"';
    std::size_t clean = 0;  // start of the run that needs no escape
    for (std::size_t i = 0; i < text.size(); ++i) {
        const auto c = static_cast<unsigned char>(text[i]);
        if (!kNeedsEscape[c]) continue;
        out.append(text.data() + clean, i - clean);
        clean = i + 1;
        switch (c) {
            case '"': out += "\\\""; break;
            case '\\': out += "\\\\"; break;
            case '\n': out += "\\n"; break;
            case '\r': out += "\\r"; break;
            case '\t': out += "\\t"; break;
            default: {
                char buf[8];
                std::snprintf(buf, sizeof buf, "\\u%04x", static_cast<unsigned>(c));
                out += buf;
            }
        }
    }
    out.append(text.data() + clean, text.size() - clean);
    out += '"';
}

std::string json_string(std::string_view text) {
    std::string out;
    out.reserve(text.size() + 2);
    append_json_string(out, text);
    return out;
}

std::string pointer_token(std::string_view key) {
    std::string out;
    out.reserve(key.size());
    for (char c : key) {
        if (c == '~') out += "~0";
        else if (c == '/') out += "~1";
        else out += c;
    }
    return out;
}

std::string pointer_child(std::string_view base, std::string_view key) {
    std::string out(base);
    out += '/';
    out += pointer_token(key);
    return out;
}

std::string pointer_child(std::string_view base, std::size_t index) {
    std::string out(base);
    out += '/';
    out += std::to_string(index);
    return out;
}

void JsonPatch::append_op(std::string_view name, std::string_view path, std::string_view value_json) {
    json_ += json_.empty() ? "[{\"op\":\"" : ",{\"op\":\"";
    json_ += name;
    json_ += "\",\"path\":";
    append_json_string(json_, path);
    if (!value_json.empty()) {
        json_ += ",\"value\":";
        json_ += value_json;
    }
    json_ += '}';
    ++count_;
}

void JsonPatch::add(std::string_view path, std::string_view value_json) { append_op("add", path, value_json); }

void JsonPatch::remove(std::string_view path) { append_op("remove", path, {}); }

void JsonPatch::replace(std::string_view path, std::string_view value_json) { append_op("replace", path, value_json); }

void JsonPatch::remove_indices(std::string_view array, const std::vector<std::size_t>& ascending) {
    if (ascending.empty()) return;
    // One path buffer for all of them: an env list can lose many variables.
    std::string path(array);
    path += '/';
    const std::size_t prefix = path.size();
    for (auto it = ascending.rbegin(); it != ascending.rend(); ++it) {
        char digits[24];
        path.resize(prefix);
        path.append(digits, std::to_chars(digits, digits + sizeof digits, *it).ptr);
        remove(path);
    }
}

std::string JsonPatch::to_json() const { return json_.empty() ? std::string("[]") : json_ + "]"; }

}  // namespace miw
