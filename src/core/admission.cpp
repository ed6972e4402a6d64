#include "model_image_webhook/admission.hpp"

namespace miw {

std::optional<Operation> parse_operation(std::string_view text) {
    if (text == "CREATE") return Operation::create;
    if (text == "UPDATE") return Operation::update;
    if (text == "DELETE") return Operation::remove;
    if (text == "CONNECT") return Operation::connect;
    return std::nullopt;
}

std::string_view to_string(Operation op) {
    switch (op) {
        case Operation::create: return "CREATE";
        case Operation::update: return "UPDATE";
        case Operation::remove: return "DELETE";
        case Operation::connect: return "CONNECT";
    }
    return "CREATE";
}

std::optional<Endpoint> parse_endpoint(std::string_view text) {
    if (text == "validate") return Endpoint::validate;
    if (text == "mutate") return Endpoint::mutate;
    return std::nullopt;
}

std::string_view to_string(Endpoint endpoint) { return endpoint == Endpoint::mutate ? "mutate" : "validate"; }

std::string_view to_string(JsonType type) {
    switch (type) {
        case JsonType::absent: return "absent";
        case JsonType::null: return "null";
        case JsonType::boolean: return "a boolean";
        case JsonType::number: return "a number";
        case JsonType::string: return "a string";
        case JsonType::array: return "an array";
        case JsonType::object: return "an object";
    }
    return "absent";
}

bool is_model_artifact(const GroupVersionKind& kind) { return kind.group == kArtifactGroup && kind.kind == kArtifactKind; }

std::optional<DigestAlgorithms> parse_digest_algorithms(std::string_view text) {
    DigestAlgorithms out{false, false};
    std::size_t start = 0;
    while (start <= text.size()) {
        const std::size_t comma = text.find(',', start);
        const std::string_view item = text.substr(start, comma == std::string_view::npos ? text.npos : comma - start);
        if (item == "sha256") out.sha256 = true;
        else if (item == "sha512") out.sha512 = true;
        else return std::nullopt;
        if (comma == std::string_view::npos) break;
        start = comma + 1;
    }
    return out;
}

std::optional<RuntimeFloor> parse_runtime_floor(std::string_view text) {
    const std::size_t equals = text.find('=');
    if (equals == std::string_view::npos || equals == 0) return std::nullopt;
    const std::string_view runtime = text.substr(0, equals);
    for (char c : runtime) {
        if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '.' || c == '_')) return std::nullopt;
    }
    const auto version = parse_kube_version(text.substr(equals + 1));
    if (!version) return std::nullopt;
    return RuntimeFloor{std::string(runtime), *version};
}

void PolicyConfig::set_runtime_floor(RuntimeFloor floor) {
    for (auto& f : runtime_floors) {
        if (f.runtime == floor.runtime) {
            f.floor = floor.floor;
            return;
        }
    }
    runtime_floors.push_back(std::move(floor));
}

ApiserverVersion ApiserverVersion::from_text(std::string_view text) {
    return ApiserverVersion{std::string(text), parse_kube_version(text)};
}

}  // namespace miw
