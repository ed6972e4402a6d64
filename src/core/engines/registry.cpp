// The engine families, one row each. A new engine is a file in this
// directory defining its EngineFamily, and a row here (docs/adding-an-engine.md).
#include "engine.hpp"

namespace miw {

extern constinit const EngineFamily kVllm;
extern constinit const EngineFamily kSglang;
extern constinit const EngineFamily kKserveHuggingface;
extern constinit const EngineFamily kTgiTei;
extern constinit const EngineFamily kTrtllm;
extern constinit const EngineFamily kLlamaCpp;
extern constinit const EngineFamily kNim;

namespace {

constexpr const EngineFamily* kFamilies[] = {
    &kVllm, &kSglang, &kKserveHuggingface, &kTgiTei, &kTrtllm, &kLlamaCpp, &kNim,
};

}  // namespace

std::span<const EngineFamily* const> engine_families() { return kFamilies; }

}  // namespace miw
