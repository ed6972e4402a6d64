// Any bytes as a Kubernetes or containerd version.
#include "model_image_webhook/kube_version.hpp"
#include "model_image_webhook/policy_node.hpp"

#include <cstdint>
#include <cstdlib>
#include <string>

// The regression replay's expectations: "MAJOR.MINOR", or "unreadable".
std::string miw_fuzz_answer(std::string_view input) {
    const auto v = miw::parse_kube_version(input);
    return v ? std::to_string(v->major) + "." + std::to_string(v->minor) : std::string("unreadable");
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string text(reinterpret_cast<const char*>(data), size);
    const auto v = miw::parse_kube_version(text);
    if (v && (v->major < 0 || v->minor < 0)) std::abort();
    const std::size_t half = size / 2;
    static const miw::PolicyConfig defaults;
    (void)miw::node_floor_problem({text.substr(0, half), text.substr(half)}, defaults.runtime_floors);
    (void)miw::parse_runtime_floor(text);
    return 0;
}
