// A YAML scalar as kubectl reads it: kubectl converts YAML to JSON with go-yaml
// v2, whose resolver follows YAML 1.1 (0755 is octal, yes and on are true,
// 0x1F, 0b101 and 1_000 are numbers; timestamps stay strings). The loader
// resolves with it, and the writer quotes any string it would not give back.
#pragma once

#include "model_image_webhook/result.hpp"

#include <string>
#include <string_view>

namespace miw {

enum class YamlScalarKind { null, boolean, integer, floating, string };

struct YamlScalar {
    YamlScalarKind kind = YamlScalarKind::string;
    std::string json;  // the JSON text: null, true, 493, 1.5, "text"
    // As a mapping key: sigs.k8s.io/yaml turns every key into a string
    // (true, 493, 1.5, null), so `yes: 1` becomes {"true":1}.
    std::string key;
};

// An untagged plain scalar.
Result<YamlScalar> resolve_plain_yaml_scalar(std::string_view text);

// A scalar with an explicit tag ("tag:yaml.org,2002:int", "!foo", ...): the
// standard tags resolve and must fit ("!!int abc" is an error, as it is to
// go-yaml); !!str, !!binary, !!timestamp and unknown tags are strings.
Result<YamlScalar> resolve_tagged_yaml_scalar(std::string_view tag, std::string_view text);

// A quoted or block scalar, or a string in any form: the text itself.
YamlScalar yaml_string_scalar(std::string_view text);

// A JSON number's text as kubectl sends it on (apimachinery's json.Unmarshal:
// an integer that fits int64 as it is, anything else as Go writes a float64,
// so 1e2 and 100.0 are 100); an error where no float64 holds it.
Result<std::string> json_number_as_kubectl_sends(std::string_view text);

// True when `text`, written plain, reads back as this same string.
bool reads_back_as_string(std::string_view text);

}  // namespace miw
