// What else an engine fetches from a hub when a flag names a repository
// rather than a path: a tokenizer or model config the image holds beside the
// weights, a draft model for speculative decoding, LoRA adapters. Warned
// about, not edited: only the first two have a copy in the image, and
// dropping the others changes what is served.
#pragma once

#include "engine.hpp"

namespace miw {

// One pass over the words for the flags of one value, one for LoRA's lists.
void warn_hub_repositories(const EngineCall& call);

}  // namespace miw
