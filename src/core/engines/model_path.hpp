// The model argument that becomes the mount, shared by the engines that take
// one by path or repository and a --served-model-name beside it (vLLM,
// SGLang, NVIDIA Dynamo's TensorRT-LLM worker); and the warning for an engine
// started with no model.
#pragma once

#include "engine.hpp"

#include <initializer_list>
#include <string>
#include <string_view>

namespace miw {

// The model argument (positional where the engine takes one, else the first
// of `flags`) becomes the mount, the old one kept as --served-model-name;
// with none, warn_no_model with `no_model_advice`.
void plan_model_path(const EngineCall& call, std::initializer_list<std::string_view> flags, std::string_view no_model_advice);

// An engine started with no model on its command line loads the one its
// --config file names (where `config_names_it`), or a default of its own, or
// does not start: nothing here can point it at the mount without guessing the
// name clients call it by, so the warning says what to write (`advice`).
void warn_no_model(const EngineCall& call, std::string_view advice, bool config_names_it = true);

// The name clients call the model by, from its old argument. A "$(NAME)" the
// kubelet expands from the container's env cannot expand once the delivery
// removes NAME (HF_MODEL_ID, say): its value is written out instead, the last
// definition's, as the kubelet takes it.
std::string served_name(std::string_view model, const ContainerView& c);

}  // namespace miw
