// Any bytes as a manifest file: the YAML loader and the object reader answer
// with documents or an error, never a crash.
#include "model_image_webhook/manifest.hpp"
#include "model_image_webhook/yaml_loader.hpp"

#include <cstdint>
#include <cstdlib>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    miw::YamlLoad load = miw::load_yaml(std::string_view(reinterpret_cast<const char*>(data), size));
    if (!load.ok() && !load.documents.empty()) std::abort();
    for (auto& doc : load.documents) {
        (void)miw::read_manifest_objects(doc.json);
    }
    return 0;
}
