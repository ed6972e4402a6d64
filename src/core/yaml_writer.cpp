#include "model_image_webhook/yaml_writer.hpp"

#include "model_image_webhook/json_patch.hpp"
#include "model_image_webhook/text.hpp"
#include "model_image_webhook/yaml_scalar.hpp"

#include <utility>

namespace miw {

struct YamlWriter::Node {
    enum class Type { object, array, scalar } type;
    std::string text;  // the scalar as written
    std::vector<std::pair<std::string, std::unique_ptr<Node>>> members;
    std::vector<std::unique_ptr<Node>> items;
};

namespace {

bool plain_char(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '/' || c == '.' || c == ':' || c == '@' ||
           c == '=' || c == '+' || c == '-';
}

// What a YAML 1.1 reader other than kubectl's could take for a number
// (12:30 is sexagesimal to PyYAML): quoted too, since quoting costs nothing.
bool number_like(std::string_view s) {
    if (s.empty() || !((s[0] >= '0' && s[0] <= '9') || s[0] == '+' || s[0] == '-' || s[0] == '.')) return false;
    for (char c : s) {
        if (!((c >= '0' && c <= '9') || c == '.' || c == '_' || c == ':' || c == '+' || c == '-' || c == 'e' || c == 'E' || c == 'x' || c == 'o')) return false;
    }
    return true;
}

// Whether a YAML reader takes the character only escaped inside a
// double-quoted scalar: DEL and the C1 controls it refuses raw (libyaml:
// "control characters are not allowed"); NEL, LS and PS it reads as line
// breaks, folded into a space; the BOM and the two non-characters go-yaml's
// emitter escapes too.
bool escaped_in_yaml(unsigned code) {
    return code == 0x7F || (code >= 0x80 && code <= 0x9F) || code == 0x2028 || code == 0x2029 || code == 0xFEFF || code == 0xFFFE || code == 0xFFFF;
}

// A double-quoted scalar: the JSON string (which YAML reads as one), with what
// YAML takes only escaped written as \uXXXX.
std::string double_quoted(std::string_view value) {
    static constexpr char kHex[] = "0123456789abcdef";
    const std::string json = json_string(value);
    std::string out;
    out.reserve(json.size());
    for (std::size_t i = 0; i < json.size();) {
        const CodePoint at = code_point_at(json, i);
        if (at.length == 0 || !escaped_in_yaml(at.value)) {
            out += json[i++];
            continue;
        }
        out += "\\u";
        for (int shift = 12; shift >= 0; shift -= 4) out += kHex[(at.value >> shift) & 0xF];
        i += at.length;
    }
    return out;
}

}  // namespace

std::string yaml_scalar(std::string_view value) {
    bool plain = !value.empty() && (plain_char(value.front()) && value.front() != '-' && value.front() != ':' && value.front() != '@' &&
                                    value.front() != '=' && value.front() != '+' && value.front() != '.');
    for (char c : value) plain = plain && plain_char(c);
    // Plain only where kubectl's reader gives the same string back: 0x1F,
    // 0b101, 0755, 1_000, yes and ~ would come back as numbers, booleans or null.
    plain = plain && value.back() != ':' && reads_back_as_string(value) && !number_like(value);
    // ": " cannot occur (no spaces); "://" and "a:b" read back as strings.
    return plain ? std::string(value) : double_quoted(value);
}

YamlWriter::YamlWriter() = default;
YamlWriter::~YamlWriter() = default;

void YamlWriter::add(std::unique_ptr<Node> node) {
    Node* raw = node.get();
    const bool container = node->type != Node::Type::scalar;
    if (open_.empty()) {
        root_ = std::move(node);
    } else if (open_.back()->type == Node::Type::object) {
        open_.back()->members.emplace_back(std::move(pending_key_), std::move(node));
        pending_key_.clear();
    } else {
        open_.back()->items.push_back(std::move(node));
    }
    if (container) open_.push_back(raw);
}

void YamlWriter::start_object() { add(std::make_unique<Node>(Node{Node::Type::object, {}, {}, {}})); }
void YamlWriter::key(std::string_view name) { pending_key_ = name; }
void YamlWriter::end_object() { open_.pop_back(); }
void YamlWriter::start_array() { add(std::make_unique<Node>(Node{Node::Type::array, {}, {}, {}})); }
void YamlWriter::end_array() { open_.pop_back(); }
void YamlWriter::string(std::string_view value) { add(std::make_unique<Node>(Node{Node::Type::scalar, yaml_scalar(value), {}, {}})); }
void YamlWriter::literal(std::string_view json) { add(std::make_unique<Node>(Node{Node::Type::scalar, std::string(json), {}, {}})); }

namespace {

constexpr std::size_t kLongestSimpleKey = 128;

bool empty_container(const YamlWriter::Node* n) {
    return (n->type == YamlWriter::Node::Type::object && n->members.empty()) || (n->type == YamlWriter::Node::Type::array && n->items.empty());
}

std::string inline_text(const YamlWriter::Node* n) {
    if (n->type == YamlWriter::Node::Type::scalar) return n->text;
    return n->type == YamlWriter::Node::Type::object ? "{}" : "[]";
}

// Writes the members or items of a container, each line at `indent`.
void write_node(const YamlWriter::Node* node, std::string& out, std::size_t indent) {
    const std::string pad(indent, ' ');
    if (node->type == YamlWriter::Node::Type::object) {
        for (const auto& [name, child] : node->members) {
            // A YAML reader looks no further than 1024 characters for a key's
            // colon, so a long key is written after "? " and its value after
            // ": " on the next line, past 128 bytes as go-yaml's emitter does.
            const bool explicit_key = name.size() > kLongestSimpleKey;
            out += pad + (explicit_key ? "? " + yaml_scalar(name) + "\n" + pad : yaml_scalar(name)) + ":";
            if (child->type == YamlWriter::Node::Type::scalar || empty_container(child.get())) {
                out += " " + inline_text(child.get()) + "\n";
            } else {
                out += "\n";
                // Sequences under a key sit at the key's indent, as kubectl writes them.
                const bool indentless = child->type == YamlWriter::Node::Type::array && !explicit_key;
                write_node(child.get(), out, indentless ? indent : indent + 2);
            }
        }
        return;
    }
    for (const auto& child : node->items) {
        if (child->type == YamlWriter::Node::Type::scalar || empty_container(child.get())) {
            out += pad + "- " + inline_text(child.get()) + "\n";
            continue;
        }
        // The first line of the item follows the dash; the rest align with it.
        std::string inner;
        write_node(child.get(), inner, indent + 2);
        out += pad + "- " + inner.substr(indent + 2);
    }
}

}  // namespace

std::string YamlWriter::yaml() const {
    if (!root_) return "null\n";
    if (root_->type == Node::Type::scalar || empty_container(root_.get())) return inline_text(root_.get()) + "\n";
    std::string out;
    write_node(root_.get(), out, 0);
    return out;
}

}  // namespace miw
