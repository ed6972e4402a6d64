// Any bytes as a manifest file, read as kubectl reads it (JSON documents,
// then YAML): the readers answer with documents or an error, never a crash
// or a hang; and every document read, written back as YAML (as
// --show-patched writes it), reads back to the same JSON.
#include "model_image_webhook/manifest.hpp"
#include "model_image_webhook/manifest_text.hpp"
#include "model_image_webhook/yaml_loader.hpp"
#include "model_image_webhook/yaml_writer.hpp"

#include <cstdint>
#include <cstdlib>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    miw::YamlLoad load = miw::read_manifest_text(std::string_view(reinterpret_cast<const char*>(data), size));
    if (!load.ok() && !load.documents.empty()) std::abort();
    for (auto& doc : load.documents) {
        const std::string json = doc.json;
        miw::YamlWriter writer;
        if (!miw::visit_json(json, writer)) std::abort();  // the loader wrote JSON the codec cannot read
        const miw::YamlLoad back = miw::load_yaml(writer.yaml());
        if (!back.ok() || back.documents.size() != 1 || back.documents[0].json != json) std::abort();  // written, it reads back otherwise
        (void)miw::read_manifest_objects(doc.json);
    }
    return 0;
}
