// YAML read as kubectl reads it: libyaml (the C parser go-yaml v2 was ported
// from) gives the events, scalars resolve as go-yaml v2 resolves them
// (yaml_scalar.hpp), and the documents become JSON. The events are kept as a
// tree so that aliases can point back at their anchors; expanding them is
// bounded, and so is nesting, so no input can exhaust memory or the stack.
#include "model_image_webhook/yaml_loader.hpp"

#include "model_image_webhook/json_patch.hpp"
#include "model_image_webhook/yaml_scalar.hpp"

#include <yaml.h>

#include <algorithm>
#include <map>
#include <memory>
#include <unordered_map>

namespace miw {

namespace {

constexpr unsigned kMaxDepth = 1000;

struct Node {
    enum class Type { scalar, sequence, mapping, alias } type = Type::scalar;
    std::string value;  // a scalar's text
    std::string tag;  // explicit tag, resolved by libyaml ("tag:yaml.org,2002:int", "!foo"); empty when none
    bool plain = false;  // a plain scalar (not quoted, not a block scalar)
    std::size_t line = 1;  // 1-based
    std::vector<std::size_t> children;  // a sequence's items; a mapping's keys and values, alternating
    std::size_t target = 0;  // an alias's node
};

struct ParseFailure {
    std::string message;
    std::size_t line;
};

// libyaml's parser, freed however the parse ends.
class Parser {
public:
    explicit Parser(std::string_view text) {
        yaml_parser_initialize(&parser_);
        yaml_parser_set_input_string(&parser_, reinterpret_cast<const unsigned char*>(text.data()), text.size());
    }
    ~Parser() { yaml_parser_delete(&parser_); }
    Parser(const Parser&) = delete;
    Parser& operator=(const Parser&) = delete;

    // The next event, or a failure with libyaml's words for it.
    bool next(yaml_event_t& event, ParseFailure& failure) {
        if (yaml_parser_parse(&parser_, &event)) return true;
        failure.message = parser_.problem != nullptr ? parser_.problem : "the YAML cannot be read";
        if (parser_.context != nullptr) failure.message = std::string(parser_.context) + ": " + failure.message;
        failure.line = parser_.problem_mark.line + 1;
        return false;
    }

private:
    yaml_parser_t parser_{};
};

class Event {
public:
    yaml_event_t e{};
    ~Event() { yaml_event_delete(&e); }
};

std::string text_of(const yaml_char_t* p) { return p != nullptr ? std::string(reinterpret_cast<const char*>(p)) : std::string(); }

// One document's nodes, built from its events.
class DocumentTree {
public:
    std::vector<Node> nodes;

    // Reads events up to the document's end; false with failure set.
    bool read(Parser& parser, ParseFailure& failure) {
        std::vector<std::size_t> open;  // containers being filled
        std::map<std::string, std::size_t> anchors;
        for (;;) {
            Event event;
            if (!parser.next(event.e, failure)) return false;
            const yaml_event_t& e = event.e;
            const std::size_t line = e.start_mark.line + 1;
            std::size_t made = 0;
            switch (e.type) {
                case YAML_DOCUMENT_END_EVENT:
                    return true;
                case YAML_SCALAR_EVENT: {
                    Node n;
                    n.type = Node::Type::scalar;
                    n.value.assign(reinterpret_cast<const char*>(e.data.scalar.value), e.data.scalar.length);
                    n.plain = e.data.scalar.style == YAML_PLAIN_SCALAR_STYLE;
                    n.tag = text_of(e.data.scalar.tag);
                    // "! 5": the non-specific tag, which libyaml gives as no tag on a
                    // scalar that is not plain-implicit; it makes the scalar a string.
                    if (n.tag.empty() && n.plain && !e.data.scalar.plain_implicit) n.tag = "!";
                    n.line = line;
                    made = add(std::move(n), text_of(e.data.scalar.anchor), anchors);
                    break;
                }
                case YAML_SEQUENCE_START_EVENT:
                case YAML_MAPPING_START_EVENT: {
                    if (open.size() >= kMaxDepth) {
                        failure = {"nested deeper than " + std::to_string(kMaxDepth) + " levels", line};
                        return false;
                    }
                    Node n;
                    n.type = e.type == YAML_SEQUENCE_START_EVENT ? Node::Type::sequence : Node::Type::mapping;
                    n.line = line;
                    const yaml_char_t* anchor = e.type == YAML_SEQUENCE_START_EVENT ? e.data.sequence_start.anchor : e.data.mapping_start.anchor;
                    made = add(std::move(n), text_of(anchor), anchors);
                    attach(open, made);
                    open.push_back(made);
                    continue;
                }
                case YAML_SEQUENCE_END_EVENT:
                case YAML_MAPPING_END_EVENT:
                    open.pop_back();
                    continue;
                case YAML_ALIAS_EVENT: {
                    const auto it = anchors.find(text_of(e.data.alias.anchor));
                    if (it == anchors.end()) {
                        failure = {"alias *" + text_of(e.data.alias.anchor) + " names no anchor before it", line};
                        return false;
                    }
                    Node n;
                    n.type = Node::Type::alias;
                    n.target = it->second;
                    n.line = line;
                    made = add(std::move(n), {}, anchors);
                    break;
                }
                default:
                    continue;  // stream and document starts
            }
            attach(open, made);
        }
    }

private:
    std::size_t add(Node n, const std::string& anchor, std::map<std::string, std::size_t>& anchors) {
        nodes.push_back(std::move(n));
        const std::size_t index = nodes.size() - 1;
        if (!anchor.empty()) anchors[anchor] = index;  // a later anchor of the same name wins, as in libyaml
        return index;
    }
    void attach(const std::vector<std::size_t>& open, std::size_t index) {
        if (!open.empty()) nodes[open.back()].children.push_back(index);
    }
};

// The JSON of one document's tree, aliases expanded up to kMaxYamlJsonBytes.
class JsonWriter {
public:
    explicit JsonWriter(const std::vector<Node>& nodes) : nodes_(nodes) {}
    std::string out;

    bool value(std::size_t index, unsigned depth, ParseFailure& failure) {
        if (nodes_[index].type == Node::Type::alias) return alias(index, depth, failure);
        const Node& n = nodes_[index];
        if (depth > kMaxDepth) return fail(failure, "nested deeper than " + std::to_string(kMaxDepth) + " levels (aliases inside themselves?)", n);
        if (out.size() > kMaxYamlJsonBytes) return too_large(failure, n);
        deepest_ = std::max(deepest_, depth);
        switch (n.type) {
            case Node::Type::scalar: {
                Result<YamlScalar> s = scalar(n);
                if (!s) return fail(failure, s.error(), n);
                out += s->json;
                return true;
            }
            case Node::Type::sequence: {
                out += '[';
                for (std::size_t i = 0; i < n.children.size(); ++i) {
                    if (i) out += ',';
                    if (!value(n.children[i], depth + 1, failure)) return false;
                }
                out += ']';
                return true;
            }
            case Node::Type::mapping:
                return mapping(n, depth, failure);
            case Node::Type::alias:
                break;
        }
        return true;
    }

private:
    // The JSON an alias's anchor has been written as, and how many levels it
    // nests below where it stands.
    struct Written {
        std::string json;
        unsigned height = 0;
    };
    // What the aliases' anchors keep of their JSON, in all: aliases of
    // aliases (ten of ten of ten ...) are then copied at memory speed up to
    // the bound, not walked node by node again, while the copies kept stay
    // small beside the bound.
    static constexpr std::size_t kMaxWrittenBytes = 8u << 20;

    // An alias: its anchor's JSON again, copied when it was written before
    // and fits where it stands; else written (a first time, or to fail
    // where the walk fails: nested too deep).
    bool alias(std::size_t index, unsigned depth, ParseFailure& failure) {
        const std::size_t target = anchor_of(index);
        const auto known = written_.find(target);
        if (known != written_.end() && depth + known->second.height <= kMaxDepth) {
            // Refused before it is copied: the JSON never grows past the bound.
            if (out.size() + known->second.json.size() > kMaxYamlJsonBytes) return too_large(failure, nodes_[index]);
            out += known->second.json;
            deepest_ = std::max(deepest_, depth + known->second.height);
            return true;
        }
        const std::size_t start = out.size();
        const unsigned outer = deepest_;
        deepest_ = depth;
        if (!value(target, depth, failure)) return false;
        const unsigned height = deepest_ - depth;
        deepest_ = std::max(outer, deepest_);
        const std::size_t size = out.size() - start;
        if (known == written_.end() && written_bytes_ + size <= kMaxWrittenBytes) {
            written_bytes_ += size;
            written_.emplace(target, Written{out.substr(start), height});
        }
        return true;
    }

    static bool too_large(ParseFailure& failure, const Node& n) {
        return fail(failure, "expands to more than 64 MiB of JSON (aliases nested in aliases?)", n);
    }

    // The node an alias names, through aliases of aliases.
    std::size_t anchor_of(std::size_t index) const {
        // An alias only names an anchor made before it: the chain ends.
        while (nodes_[index].type == Node::Type::alias) index = nodes_[index].target;
        return index;
    }

    const Node& resolve_alias(std::size_t index) const { return nodes_[anchor_of(index)]; }

    static Result<YamlScalar> scalar(const Node& n) {
        if (!n.tag.empty()) return resolve_tagged_yaml_scalar(n.tag, n.value);
        if (n.plain) return resolve_plain_yaml_scalar(n.value);
        return yaml_string_scalar(n.value);
    }

    static bool fail(ParseFailure& failure, std::string message, const Node& n) {
        failure = {std::move(message), n.line};
        return false;
    }

    static bool is_merge_key(const Node& key) { return key.type == Node::Type::scalar && key.plain && key.tag.empty() && key.value == "<<"; }

    // The members of one mapping, in the order go-yaml v2 sets them: each
    // key in turn (a later duplicate replaces an earlier one, keeping its
    // place), a merge key's mappings set where it stands, the first of a
    // list winning.
    bool members(const Node& map, std::vector<std::pair<std::string, std::size_t>>& entries, unsigned depth, ParseFailure& failure) {
        if (depth > kMaxDepth) return fail(failure, "merge keys nested deeper than " + std::to_string(kMaxDepth) + " levels", map);
        for (std::size_t i = 0; i + 1 < map.children.size(); i += 2) {
            const Node& key = resolve_alias(map.children[i]);
            const std::size_t value_index = map.children[i + 1];
            if (is_merge_key(key)) {
                if (!merge(resolve_alias(value_index), entries, depth, failure)) return false;
                continue;
            }
            if (key.type != Node::Type::scalar) return fail(failure, "a mapping key must be a scalar", key);
            Result<YamlScalar> k = scalar(key);
            if (!k) return fail(failure, k.error(), key);
            set(entries, std::move(k->key), value_index);
        }
        return true;
    }

    bool merge(const Node& source, std::vector<std::pair<std::string, std::size_t>>& entries, unsigned depth, ParseFailure& failure) {
        if (source.type == Node::Type::mapping) return members(source, entries, depth + 1, failure);
        if (source.type != Node::Type::sequence) return fail(failure, "a merge key (<<) takes a mapping or a list of mappings", source);
        // The first mapping of the list wins: set them from the last.
        for (auto it = source.children.rbegin(); it != source.children.rend(); ++it) {
            const Node& item = resolve_alias(*it);
            if (item.type != Node::Type::mapping) return fail(failure, "a merge key (<<) takes a mapping or a list of mappings", item);
            if (!members(item, entries, depth + 1, failure)) return false;
        }
        return true;
    }

    static void set(std::vector<std::pair<std::string, std::size_t>>& entries, std::string key, std::size_t value) {
        const auto same = std::find_if(entries.begin(), entries.end(), [&](const auto& e) { return e.first == key; });
        if (same != entries.end()) same->second = value;
        else entries.emplace_back(std::move(key), value);
    }

    bool mapping(const Node& n, unsigned depth, ParseFailure& failure) {
        std::vector<std::pair<std::string, std::size_t>> entries;
        if (!members(n, entries, depth, failure)) return false;
        out += '{';
        for (std::size_t i = 0; i < entries.size(); ++i) {
            if (i) out += ',';
            out += json_string(entries[i].first);
            out += ':';
            if (!value(entries[i].second, depth + 1, failure)) return false;
        }
        out += '}';
        return true;
    }

    const std::vector<Node>& nodes_;
    std::unordered_map<std::size_t, Written> written_;  // by the anchor's node
    std::size_t written_bytes_ = 0;
    unsigned deepest_ = 0;  // the deepest level written so far
};

// The line of each item of a top-level `items` list (a List's objects).
std::vector<std::size_t> list_item_lines(const std::vector<Node>& nodes) {
    std::vector<std::size_t> lines;
    if (nodes.empty() || nodes.front().type != Node::Type::mapping) return lines;
    const Node& root = nodes.front();
    for (std::size_t i = 0; i + 1 < root.children.size(); i += 2) {
        const Node& key = nodes[root.children[i]];
        if (key.type != Node::Type::scalar || key.value != "items") continue;
        const Node* items = &nodes[root.children[i + 1]];
        while (items->type == Node::Type::alias) items = &nodes[items->target];
        lines.clear();
        if (items->type != Node::Type::sequence) continue;
        for (std::size_t item : items->children) lines.push_back(nodes[item].line);
    }
    return lines;
}

}  // namespace

YamlLoad load_yaml(std::string_view text) {
    YamlLoad result;
    // A byte order mark is not content.
    if (text.size() >= 3 && text.substr(0, 3) == "\xEF\xBB\xBF") text.remove_prefix(3);
    Parser parser(text);
    for (;;) {
        Event event;
        ParseFailure failure;
        if (!parser.next(event.e, failure)) {
            result.error = failure.message;
            result.error_line = failure.line;
            result.documents.clear();
            return result;
        }
        if (event.e.type == YAML_STREAM_END_EVENT) return result;
        if (event.e.type != YAML_DOCUMENT_START_EVENT) continue;
        DocumentTree tree;
        if (!tree.read(parser, failure)) {
            result.error = failure.message;
            result.error_line = failure.line;
            result.documents.clear();
            return result;
        }
        if (tree.nodes.empty()) continue;
        const Node& root = tree.nodes.front();
        JsonWriter writer(tree.nodes);
        if (!writer.value(0, 0, failure)) {
            result.error = failure.message;
            result.error_line = failure.line;
            result.documents.clear();
            return result;
        }
        // A document that reads as null (empty, "~", "!!null", ...) is no
        // object: kubectl skips it by its JSON, whatever wrote it so.
        if (writer.out == "null") continue;
        YamlDocument doc;
        doc.line = root.line;
        doc.json = std::move(writer.out);
        doc.item_lines = list_item_lines(tree.nodes);
        result.documents.push_back(std::move(doc));
    }
}

}  // namespace miw
