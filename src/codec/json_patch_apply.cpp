// RFC 6902 applied to a JSON document, for the test mode's --show-patched and
// for checking that every patch the webhook writes applies.
#include "model_image_webhook/manifest.hpp"

#include "json_dom.hpp"

#include <optional>
#include <vector>

namespace miw {

using namespace json;

namespace {

// RFC 6901 reference tokens of a pointer, unescaped.
bool pointer_tokens(std::string_view pointer, std::vector<std::string>& out) {
    if (pointer.empty()) return true;
    if (pointer.front() != '/') return false;
    std::size_t start = 1;
    while (true) {
        const std::size_t slash = pointer.find('/', start);
        std::string token(pointer.substr(start, slash == std::string_view::npos ? pointer.npos : slash - start));
        std::string unescaped;
        for (std::size_t i = 0; i < token.size(); ++i) {
            if (token[i] == '~' && i + 1 < token.size() && (token[i + 1] == '0' || token[i + 1] == '1')) {
                unescaped += token[i + 1] == '0' ? '~' : '/';
                ++i;
            } else if (token[i] == '~') {
                return false;
            } else {
                unescaped += token[i];
            }
        }
        out.push_back(std::move(unescaped));
        if (slash == std::string_view::npos) return true;
        start = slash + 1;
    }
}

std::optional<std::size_t> array_index(const std::string& token, std::size_t size, bool allow_end) {
    if (token.empty() || token.size() > 9 || token.find_first_not_of("0123456789") != std::string::npos || (token.size() > 1 && token[0] == '0')) {
        return std::nullopt;
    }
    const std::size_t i = std::stoul(token);
    if (i > size || (i == size && !allow_end)) return std::nullopt;
    return i;
}

// The last member of that name, as member() reads it: a patch lands where
// the rules looked, even in an object with duplicate keys.
Value::MemberIterator find_last_member(Value& obj, std::string_view name) {
    auto found = obj.MemberEnd();
    for (auto it = obj.MemberBegin(); it != obj.MemberEnd(); ++it) {
        if (view(it->name) == name) found = it;
    }
    return found;
}

std::string apply_op(Document& doc, const Value& op) {
    const std::string kind = string_member(&op, "op");
    const Value* path_value = member(&op, "path");
    if (path_value == nullptr || !path_value->IsString()) return "an operation without a path";
    const std::string path(view(*path_value));
    std::vector<std::string> tokens;
    if (!pointer_tokens(path, tokens) || tokens.empty()) return "path \"" + path + "\" is not a JSON Pointer to a member";
    Value* parent = &doc;
    for (std::size_t i = 0; i + 1 < tokens.size(); ++i) {
        if (parent->IsObject()) {
            auto it = find_last_member(*parent, tokens[i]);
            if (it == parent->MemberEnd()) return "path \"" + path + "\" goes through a missing member";
            parent = &it->value;
        } else if (parent->IsArray()) {
            const auto index = array_index(tokens[i], parent->Size(), false);
            if (!index) return "path \"" + path + "\" has a bad array index";
            parent = &(*parent)[static_cast<SizeType>(*index)];
        } else {
            return "path \"" + path + "\" goes through a scalar";
        }
    }
    const std::string& last = tokens.back();
    const Value* value = member(&op, "value");
    auto& alloc = doc.GetAllocator();
    if ((kind == "add" || kind == "replace") && value == nullptr) return kind + " without a value";
    if (parent->IsObject()) {
        Value key(last.c_str(), static_cast<SizeType>(last.size()), alloc);
        auto it = find_last_member(*parent, last);
        if (kind == "remove" || kind == "replace") {
            if (it == parent->MemberEnd()) return kind + " of the missing member \"" + path + "\"";
            if (kind == "remove") parent->EraseMember(it);
            else it->value.CopyFrom(*value, alloc);
        } else if (kind == "add") {
            if (it != parent->MemberEnd()) it->value.CopyFrom(*value, alloc);
            else parent->AddMember(key, Value(*value, alloc), alloc);
        } else {
            return "operation \"" + kind + "\" is not supported";
        }
        return {};
    }
    if (!parent->IsArray()) return "path \"" + path + "\" goes through a scalar";
    if (kind == "add") {
        if (last == "-") {
            parent->PushBack(Value(*value, alloc), alloc);
            return {};
        }
        const auto index = array_index(last, parent->Size(), true);
        if (!index) return "path \"" + path + "\" has a bad array index";
        parent->PushBack(Value(), alloc);
        for (SizeType i = parent->Size() - 1; i > *index; --i) (*parent)[i].Swap((*parent)[i - 1]);
        (*parent)[static_cast<SizeType>(*index)].CopyFrom(*value, alloc);
        return {};
    }
    const auto index = array_index(last, parent->Size(), false);
    if (!index) return "path \"" + path + "\" has a bad array index";
    if (kind == "remove") parent->Erase(parent->Begin() + *index);
    else if (kind == "replace") (*parent)[static_cast<SizeType>(*index)].CopyFrom(*value, alloc);
    else return "operation \"" + kind + "\" is not supported";
    return {};
}

}  // namespace

Result<std::string> apply_json_patch(const std::string& document, const std::string& patch) {
    std::string document_text = document;
    std::string patch_text = patch;
    Document doc;
    Document ops;
    if (std::string error = parse_document(document_text, doc); !error.empty()) return fail("the document: " + error);
    if (std::string error = parse_document(patch_text, ops); !error.empty()) return fail("the patch: " + error);
    if (!ops.IsArray()) return fail("the patch is not a JSON array");
    for (const Value& op : ops.GetArray()) {
        if (!op.IsObject()) return fail("a patch operation that is not an object");
        if (std::string error = apply_op(doc, op); !error.empty()) return fail(error);
    }
    return serialize(doc);
}

}  // namespace miw
