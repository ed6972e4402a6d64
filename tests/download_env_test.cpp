// The engines' download environment: which variable names are removed.
#include "model_image_webhook/download_env.hpp"

#include <catch2/catch.hpp>

#include <utility>
#include <vector>

using namespace miw;

TEST_CASE("the download environment is matched by name, in any letter case", "[download_env]") {
    const std::vector<std::pair<const char*, bool>> names = {
        {"HF_TOKEN", true}, {"hf_home", true},     {"Hf_Endpoint", true}, {"HTTP_PROXY", true},  {"https_proxy", true}, {"No_Proxy", true},
        {"ALL_PROXY", true}, {"HF", false},        {"HFTOKEN", false},    {"MY_HF_TOKEN", false}, {"PROXY", false},     {"HTTP_PROXY_X", false},
        {"", false},         {"no_proxy", true},  {"XO_PROXY", false},  {"vllm_use_modelscope", true}, {"Hugging_Face_Hub_Token", true},
        {"modelscope_cache", true}, {"MODELSCOPE", false}, {"TRANSFORMERS_CACHEX", false}, {"HTTPS_PROXX", false},
        {"HF_A_NAME_LONGER_THAN_SIXTY_FOUR_CHARACTERS_STILL_STARTS_WITH_HF_", true}, {"ALL_PROXY_A_NAME_LONGER_THAN_SIXTY_FOUR_CHARACTERS_IS_NOT_ALL_PRO", false},
    };
    for (const auto& [name, removed] : names) {
        DYNAMIC_SECTION("\"" << name << "\"") { CHECK(is_download_env(name) == removed); }
    }
}
