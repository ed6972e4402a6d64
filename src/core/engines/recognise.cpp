#include "recognise.hpp"

namespace miw {

Invocation recognise_program(const std::vector<Word>& words, std::size_t at) {
    if (at >= words.size()) return {};
    const std::string_view program = basename(words[at].text());
    for (const EngineFamily* family : engine_families()) {
        if (family->program == nullptr) continue;
        if (Invocation run = family->program(words, at, program); run.family != nullptr) return run;
    }
    if (!is_python(program)) return {};
    // Python's options come before -m; the first word that is none is a
    // script (its words, a later -m among them, are the script's), as is
    // -c's command. At most kPythonOptions words of them are read, so that
    // asking each word of a long command line (launched_engine_at) costs its
    // length, whatever -X's values hold.
    constexpr std::size_t kPythonOptions = 32;
    for (std::size_t i = at + 1; i + 1 < words.size() && i <= at + kPythonOptions; ++i) {
        const std::string_view option = words[i].text();
        if (option == "-W" || option == "-X") ++i;  // they take a value
        if (option.size() < 2 || option[0] != '-' || option == "-c") return {};
        if (option != "-m") continue;
        const std::string_view module = words[i + 1].text();
        for (const EngineFamily* family : engine_families()) {
            if (family->python_module == nullptr) continue;
            if (Invocation run = family->python_module(module, i + 2); run.family != nullptr) return run;
        }
        return {};
    }
    return {};
}

Invocation recognise_image(std::string_view image) {
    const std::string_view repository = repository_of(image);
    for (const EngineFamily* family : engine_families()) {
        if (family->image == nullptr) continue;
        if (Invocation run = family->image(image, repository); run.family != nullptr) return run;
    }
    return {};
}

bool runs_engine_in_shell_string(std::string_view text) {
    if (text.find_first_of(" \t\n") == std::string_view::npos || text.find(kModelMountPath) != std::string_view::npos) return false;
    for (const EngineFamily* family : engine_families()) {
        for (std::string_view word : family->shell_words) {
            if (text.find(word) != std::string_view::npos) return true;
        }
    }
    return false;
}

}  // namespace miw
