// The engines' download environment (design.md 1.2 rule 4): the variables
// that point an engine at a hub or a proxy, removed from every container.
#pragma once

#include <string_view>

namespace miw {

// HF_* and MODELSCOPE_*, HUGGING_FACE_HUB_TOKEN, HUGGINGFACE_HUB_CACHE,
// TRANSFORMERS_CACHE, VLLM_USE_MODELSCOPE, SGLANG_USE_MODELSCOPE and the
// proxy variables, in any letter case.
bool is_download_env(std::string_view name);

}  // namespace miw
