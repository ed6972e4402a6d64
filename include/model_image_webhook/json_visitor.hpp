// A walk over a JSON document, event by event, for writers that must not
// depend on a JSON library (the YAML writer of `test --show-patched`).
#pragma once

#include <string_view>

namespace miw {

class JsonVisitor {
public:
    virtual ~JsonVisitor() = default;
    virtual void start_object() = 0;
    virtual void key(std::string_view name) = 0;
    virtual void end_object() = 0;
    virtual void start_array() = 0;
    virtual void end_array() = 0;
    virtual void string(std::string_view value) = 0;
    // numbers, true, false and null, as their JSON text
    virtual void literal(std::string_view json) = 0;
};

}  // namespace miw
