// JSON written as block-style YAML, as kubectl prints objects: strings that
// a YAML reader would take for something else are double-quoted.
#pragma once

#include "model_image_webhook/json_visitor.hpp"

#include <memory>
#include <string>
#include <vector>

namespace miw {

class YamlWriter : public JsonVisitor {
public:
    YamlWriter();
    ~YamlWriter() override;

    void start_object() override;
    void key(std::string_view name) override;
    void end_object() override;
    void start_array() override;
    void end_array() override;
    void string(std::string_view value) override;
    void literal(std::string_view json) override;

    // The document written so far, ending with a newline.
    std::string yaml() const;

    struct Node;  // defined where it is written out

private:
    void add(std::unique_ptr<Node> node);
    std::unique_ptr<Node> root_;
    std::vector<Node*> open_;
    std::string pending_key_;
};

// A string as a YAML scalar: plain where that reads back as the same
// string, else double-quoted.
std::string yaml_scalar(std::string_view value);

}  // namespace miw
