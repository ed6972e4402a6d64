#include "model_image_webhook/json_patch.hpp"

#include <cstdio>

namespace miw {

void append_json_string(std::string& out, std::string_view text) {
    out += '"';
    std::size_t clean = 0;  // start of the run that needs no escape
    for (std::size_t i = 0; i < text.size(); ++i) {
        const auto c = static_cast<unsigned char>(text[i]);
        if (c >= 0x20 && c != '"' && c != '\\') continue;
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

void JsonPatch::add(std::string path, std::string value_json) { ops_.push_back({"add", std::move(path), std::move(value_json)}); }

void JsonPatch::remove(std::string path) { ops_.push_back({"remove", std::move(path), {}}); }

void JsonPatch::replace(std::string path, std::string value_json) { ops_.push_back({"replace", std::move(path), std::move(value_json)}); }

void JsonPatch::remove_indices(std::string_view array, const std::vector<std::size_t>& ascending) {
    for (auto it = ascending.rbegin(); it != ascending.rend(); ++it) remove(pointer_child(array, *it));
}

std::string JsonPatch::to_json() const {
    std::size_t size = 2;
    for (const auto& op : ops_) size += op.path.size() + op.value.size() + 40;
    std::string out;
    out.reserve(size);
    out += '[';
    for (std::size_t i = 0; i < ops_.size(); ++i) {
        const Op& op = ops_[i];
        if (i) out += ',';
        out += "{\"op\":\"";
        out += op.name;
        out += "\",\"path\":";
        append_json_string(out, op.path);
        if (!op.value.empty()) {
            out += ",\"value\":";
            out += op.value;
        }
        out += '}';
    }
    out += ']';
    return out;
}

}  // namespace miw
