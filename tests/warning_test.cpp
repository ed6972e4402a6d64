// Warnings fit what the apiserver passes on, and a long client-chosen part
// never costs the advice at the end.
#include "model_image_webhook/warning.hpp"

#include "model_image_webhook/text.hpp"

#include <catch2/catch.hpp>

using namespace miw;

namespace {

bool has_control_character(std::string_view text) {
    for (std::size_t i = 0; i < text.size(); ++i) {
        const auto c = static_cast<unsigned char>(text[i]);
        if (c < 0x20 || c == 0x7f) return true;
        if (c == 0xc2 && i + 1 < text.size() && static_cast<unsigned char>(text[i + 1]) <= 0x9f) return true;
    }
    return false;
}

const std::string kAdvice = "; run the engine in exec form, or point it at /var/lib/gpustack/model";

Warning shell_string_warning(std::string_view container, std::string_view model) {
    return Warning("container ").quote(container, 63).say(": the model ").quote(model, 64).say(
        " in a shell string is not rewritten, so the engine still fetches it from the hub" + kAdvice);
}

}  // namespace

TEST_CASE("a warning that fits is shown whole, as field errors show values", "[warning]") {
    struct Case {
        const char* name;
        Warning warning;
        std::string text;
    };
    const std::vector<Case> cases = {
        {"words only", Warning("envFrom is not inspected"), "envFrom is not inspected"},
        {"a quoted value", Warning("container ").quote("vllm").say(": ok"), "container \"vllm\": ok"},
        {"quotes and backslashes escaped", Warning("v ").quote("a\"b\\c"), "v \"a\\\"b\\\\c\""},
        {"control characters escaped in a quoted value", Warning("v ").quote("a\nb\x01\xc2\x85"), "v \"a\\nb\\x01\\u0085\""},
        {"a value past its max_bytes says its length", Warning("v ").quote(std::string(70, 'a'), 64), "v \"" + std::string(64, 'a') + "\"... (70 bytes)"},
        {"bare text with control characters as spaces", Warning("set ").bare("HF_\tTOKEN"), "set HF_ TOKEN"},
        {"bare text past its max_bytes", Warning("set ").bare("ABCDEFGH", 4), "set ABCD..."},
        {"a prefix goes first", Warning("tag ignored").prefix("spec.source.image.reference: "), "spec.source.image.reference: tag ignored"},
        // kubernetes-sigs/lws docs/examples/vllm/GPU/lws.yaml (opted in): whole, under 256 bytes.
        {"the published LeaderWorkerSet GPU example",
         shell_string_warning("vllm-leader", "meta-llama/Meta-Llama-3.1-405B-Instruct"),
         "container \"vllm-leader\": the model \"meta-llama/Meta-Llama-3.1-405B-Instruct\" in a shell string is not rewritten, so the engine still "
         "fetches it from the hub" + kAdvice},
        {"a shell-string warning with a short model",
         shell_string_warning("vllm-leader", "meta-llama/Llama-3.1-8B"),
         "container \"vllm-leader\": the model \"meta-llama/Llama-3.1-8B\" in a shell string is not rewritten, so the engine still fetches it from the hub" + kAdvice},
    };
    for (const auto& c : cases) {
        DYNAMIC_SECTION(c.name) { CHECK(c.warning.text() == c.text); }
    }
}

TEST_CASE("a warning that would pass the apiserver's limit cuts the client's parts and keeps the advice", "[warning]") {
    struct Case {
        const char* name;
        std::string container;
        std::string model;
    };
    const std::vector<Case> cases = {
        {"the longest container name and a long model", std::string(63, 'c'), std::string(200, 'm')},
        {"escapes in the model", "vllm", std::string(100, '\x01')},
        {"multi-byte characters in the model", std::string(60, 'c'), "модель/" + std::string(20, 'x') + "модельмодель"},
    };
    for (const auto& c : cases) {
        DYNAMIC_SECTION(c.name) {
            const std::string text = shell_string_warning(c.container, c.model).text();
            CHECK(text.size() <= kMaxWarningBytes);
            CHECK_FALSE(has_control_character(text));
            CHECK(text.substr(text.size() - kAdvice.size()) == kAdvice);
            CHECK(utf8_prefix(text, text.size()).size() == text.size());  // no character cut in two
            CHECK_THAT(text, Catch::StartsWith("container \""));
            CHECK_THAT(text, Catch::Contains("...\""));
        }
    }
    SECTION("the shorter part keeps what it has; the longer is cut") {
        const std::string text = shell_string_warning("vllm-leader", std::string(64, 'm')).say(std::string(30, '.')).text();
        CHECK_THAT(text, Catch::StartsWith("container \"vllm-leader\": the model \"mmm"));
        CHECK_THAT(text, Catch::Contains("mmm...\" in a shell string"));
        CHECK(text.size() == kMaxWarningBytes);
    }
    SECTION("a cut never splits an escape") {
        const std::string text = Warning("v ").quote(std::string(300, '"'), 300).text();
        CHECK(text.size() <= kMaxWarningBytes);
        CHECK_THAT(text, Catch::EndsWith("\\\"...\""));
    }
    SECTION("bare text is cut too") {
        const std::string text = Warning("a ").bare(std::string(400, 'x'), 400).say(" is not removed").text();
        CHECK(text.size() <= kMaxWarningBytes);
        CHECK_THAT(text, Catch::EndsWith("x... is not removed"));
    }
    SECTION("words alone past the limit are cut at the end") {
        const std::string text = Warning(std::string(300, 'w')).text();
        CHECK(text.size() == kMaxWarningBytes);
        CHECK_THAT(text, Catch::EndsWith("..."));
    }
}
