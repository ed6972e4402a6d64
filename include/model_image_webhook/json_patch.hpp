// RFC 6902 JSON Patch documents, built op by op in the order they are given.
// Values are JSON text made by the caller with json_string() and friends:
// the core writes the few small values it adds without a JSON library.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace miw {

// A JSON string literal: quoted, with '"', '\\' and control characters escaped.
std::string json_string(std::string_view text);
void append_json_string(std::string& out, std::string_view text);

// One reference token of a JSON Pointer (RFC 6901): '~' as "~0", '/' as "~1".
std::string pointer_token(std::string_view key);

// base + "/" + token, the token escaped.
std::string pointer_child(std::string_view base, std::string_view key);
std::string pointer_child(std::string_view base, std::size_t index);

class JsonPatch {
public:
    void add(std::string path, std::string value_json);
    void remove(std::string path);
    void replace(std::string path, std::string value_json);

    // Removes the elements of the array at `array` whose indices are listed
    // in ascending order, from the highest down so that each index still
    // names the element it named in the original.
    void remove_indices(std::string_view array, const std::vector<std::size_t>& ascending);

    bool empty() const { return ops_.empty(); }
    std::size_t size() const { return ops_.size(); }

    // The patch document: a JSON array of operation objects.
    std::string to_json() const;

private:
    struct Op {
        const char* name;
        std::string path;
        std::string value;  // JSON text; empty for remove
    };
    std::vector<Op> ops_;
};

}  // namespace miw
