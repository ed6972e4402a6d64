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
// The same literal written at out, which has room for json_string_room(text)
// bytes; returns the end of what was written.
char* write_json_string(char* out, std::string_view text);
constexpr std::size_t json_string_room(std::string_view text) { return 2 + 6 * text.size(); }

// One reference token of a JSON Pointer (RFC 6901): '~' as "~0", '/' as "~1".
std::string pointer_token(std::string_view key);

// base + "/" + token, the token escaped.
std::string pointer_child(std::string_view base, std::string_view key);
std::string pointer_child(std::string_view base, std::size_t index);
// Appends "/" and the index to a pointer built in place (one buffer for many paths).
void append_pointer_index(std::string& pointer, std::size_t index);

// Operations are written out as they are given, not kept as objects: a patch
// is built once per admission, on the path of every Pod creation.
class JsonPatch {
public:
    void add(std::string_view path, std::string_view value_json);
    void remove(std::string_view path);
    void replace(std::string_view path, std::string_view value_json);

    // Removes the elements of the array at `array` whose indices are listed
    // in ascending order, from the highest down so that each index still
    // names the element it named in the original.
    void remove_indices(std::string_view array, const std::vector<std::size_t>& ascending) { remove_indices(array, {}, ascending); }
    // The same for the array at parent + "/" + field (a JSON pointer token);
    // the path is built only when there is something to remove.
    void remove_indices(std::string_view parent, std::string_view field, const std::vector<std::size_t>& ascending);

    bool empty() const { return count_ == 0; }
    std::size_t size() const { return count_; }

    // The patch document: a JSON array of operation objects. The rvalue form
    // finishes the text in place and hands it over, without a copy.
    std::string to_json() const&;
    std::string to_json() &&;

private:
    // "[" before the first operation, "," before the others; counts it.
    void open_op();
    void append_op(std::string_view name, std::string_view path, std::string_view value_json);

    // A Pod's delivery is a few KiB of operations: room for it at once, not
    // a doubling per few operations.
    static constexpr std::size_t kReservedBytes = 4096;

    std::string json_;  // "[" and the operations so far, without the closing "]"
    std::string path_;  // remove_indices' array path, its buffer kept from one call to the next
    std::string remove_op_;  // remove_indices' operation text up to the index, likewise
    std::size_t count_ = 0;
};

}  // namespace miw
