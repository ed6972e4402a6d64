#include "model_image_webhook/json_patch.hpp"

#include "byte_scan.hpp"

#include <array>
#include <charconv>
#include <cstring>

namespace miw {

namespace {

// The escape of a byte escape_stop stops at ('"', '\\' or a control
// character), written at out; its length. \b and \f in their short forms, as
// Go's encoding/json (since 1.22) and RapidJSON write them.
std::size_t write_escape(unsigned char c, char* out) {
    static constexpr char kHex[] = "0123456789abcdef";
    out[0] = '\\';
    switch (c) {
        case '"': out[1] = '"'; return 2;
        case '\\': out[1] = '\\'; return 2;
        case '\b': out[1] = 'b'; return 2;
        case '\f': out[1] = 'f'; return 2;
        case '\n': out[1] = 'n'; return 2;
        case '\r': out[1] = 'r'; return 2;
        case '\t': out[1] = 't'; return 2;
        default:  // the other control characters, below 0x20
            out[1] = 'u';
            out[2] = '0';
            out[3] = '0';
            out[4] = kHex[c >> 4];
            out[5] = kHex[c & 0xf];
            return 6;
    }
}

}  // namespace

char* write_json_string(char* out, std::string_view text) {
    *out++ = '"';
    const char* p = text.data();
    const char* const end = p + text.size();
    for (;;) {
        const char* const stop = byte_scan::escape_stop(p, end);
        std::memcpy(out, p, static_cast<std::size_t>(stop - p));
        out += stop - p;
        if (stop == end) break;
        out += write_escape(static_cast<unsigned char>(*stop), out);
        p = stop + 1;
    }
    *out++ = '"';
    return out;
}

// Appended piece by piece rather than into room made for the worst case:
// growing a string fills the new room, six bytes for each one of the text.
void append_json_string(std::string& out, std::string_view text) {
    out += '"';
    const char* p = text.data();
    const char* const end = p + text.size();
    for (;;) {
        const char* const stop = byte_scan::escape_stop(p, end);
        out.append(p, static_cast<std::size_t>(stop - p));
        if (stop == end) break;
        char escape[6];
        out.append(escape, write_escape(static_cast<unsigned char>(*stop), escape));
        p = stop + 1;
    }
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
    append_pointer_index(out, index);
    return out;
}

void append_pointer_index(std::string& pointer, std::size_t index) {
    char digits[24];
    pointer += '/';
    pointer.append(digits, std::to_chars(digits, digits + sizeof digits, index).ptr);
}

void JsonPatch::open_op() {
    if (json_.empty()) {
        json_.reserve(kReservedBytes);
        json_ += '[';
    } else {
        json_ += ',';
    }
    ++count_;
}

void JsonPatch::append_op(std::string_view name, std::string_view path, std::string_view value_json) {
    open_op();
    json_ += "{\"op\":\"";
    json_ += name;
    json_ += "\",\"path\":";
    append_json_string(json_, path);
    if (!value_json.empty()) {
        json_ += ",\"value\":";
        json_ += value_json;
    }
    json_ += '}';
}

void JsonPatch::add(std::string_view path, std::string_view value_json) { append_op("add", path, value_json); }

void JsonPatch::remove(std::string_view path) { append_op("remove", path, {}); }

void JsonPatch::replace(std::string_view path, std::string_view value_json) { append_op("replace", path, value_json); }

void JsonPatch::remove_indices(std::string_view parent, std::string_view field, const std::vector<std::size_t>& ascending) {
    if (ascending.empty()) return;
    path_.assign(parent.data(), parent.size());
    if (!field.empty()) {
        path_ += '/';
        path_.append(field.data(), field.size());
    }
    path_ += '/';
    // An env list can lose many variables: the operations' text up to the
    // index is the same for all, escaped once; an index needs no escaping.
    remove_op_.assign("{\"op\":\"remove\",\"path\":");
    append_json_string(remove_op_, path_);
    remove_op_.pop_back();  // the closing quote: it follows the index
    for (auto it = ascending.rbegin(); it != ascending.rend(); ++it) {
        open_op();
        json_ += remove_op_;
        char end[24];
        char* const digits_end = std::to_chars(end, end + 20, *it).ptr;
        std::memcpy(digits_end, "\"}", 2);
        json_.append(end, static_cast<std::size_t>(digits_end + 2 - end));
    }
}

std::string JsonPatch::to_json() const& { return json_.empty() ? std::string("[]") : json_ + "]"; }

std::string JsonPatch::to_json() && {
    if (json_.empty()) return "[]";
    json_ += ']';
    std::string out = std::move(json_);
    json_.clear();  // left empty, as count_ says
    count_ = 0;
    return out;
}

}  // namespace miw
