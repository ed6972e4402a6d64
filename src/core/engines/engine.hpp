// An engine family, as the rest of the planning sees it (design.md 1.2): how
// it is recognised (its programs, its Python modules, its images, its words in
// a shell string), and how its model argument is planned. Every family is one
// file in this directory and one row of the table in engines/registry.cpp;
// docs/rules.md ("Engines") lists the same table, and a test holds them to it.
#pragma once

#include "../argv_plan.hpp"

#include <cstddef>
#include <span>
#include <string_view>
#include <vector>

namespace miw {

struct EngineFamily;

// An engine found on a command line.
struct Invocation {
    const EngineFamily* family = nullptr;  // null: no engine recognised
    unsigned char form = 0;  // which of the family's programs, in the family's own numbering
    std::size_t after = 0;  // the first word after the engine's own words
    bool positional_model = false;  // vllm serve and sglang serve take the model as their first argument
    bool forwarded = false;  // started by a shell script's "$@" (shell_forwarding.hpp)
};

// What an engine's planning reads and writes.
struct EngineCall {
    const std::vector<Word>& words;
    const Invocation& run;
    const ContainerView& container;
    ArgvEdits& edits;
};

struct EngineFamily {
    // As docs/rules.md names it in its engines table.
    std::string_view name;
    // The engine the program at words[at] starts (`program`: its file name),
    // or none (a null family).
    Invocation (*program)(const std::vector<Word>& words, std::size_t at, std::string_view program);
    // The engine `python -m module` starts, its own words ending before
    // words[after]; null where the family has no module.
    Invocation (*python_module)(std::string_view module, std::size_t after);
    // The engine an image's entrypoint starts (a container with no command);
    // `repository` is the image's without tag or digest. Null for none.
    Invocation (*image)(std::string_view image, std::string_view repository);
    // The words a script writes to start it ("vllm serve"): a shell string
    // holding one is warned about, as it cannot be edited.
    std::span<const std::string_view> shell_words;
    // The model argument's edits and warnings.
    void (*plan)(const EngineCall& call);
    // Its flags may name hub repositories (a tokenizer, a draft model, LoRA
    // adapters), warned about after plan (hub_repositories.cpp).
    bool reads_hub_repositories;
};

// Every family, in the table's order.
std::span<const EngineFamily* const> engine_families();

// An engine found: this family, in one of its forms.
inline Invocation found(const EngineFamily& family, std::size_t after, bool positional_model = false, unsigned char form = 0) {
    return Invocation{&family, form, after, positional_model, false};
}

}  // namespace miw
