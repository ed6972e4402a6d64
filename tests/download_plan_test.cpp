// The download flags and steps, and env's hub and proxy variables, out of every container's command line.
#include "engines/engine_test_support.hpp"

using namespace miw;
using namespace miw::test;

TEST_CASE("a download step that set a token or a proxy is told it runs without them", "[download_plan]") {
    struct Case {
        const char* name;
        std::vector<EnvVarView> env;
        bool loses;
    };
    const std::vector<Case> cases = {
        {"a token from a Secret", {{"HF_TOKEN", false, {}}}, true},
        {"a proxy", {{"PYTHONUNBUFFERED", true, "1"}, {"https_proxy", true, "http://p:3128"}}, true},
        {"nothing the delivery removes", {{"PYTHONUNBUFFERED", true, "1"}}, false},
        {"no env", {}, false},
    };
    for (const auto& c : cases) {
        DYNAMIC_SECTION(c.name) {
            CommandLineContainer container("fetch", {"huggingface-cli", "download"}, {"Qwen/Q"});
            container.view.env = c.env;
            const ArgvEdits edits = plan_argv_edits(container.view, false);
            REQUIRE(edits.warnings.size() == 1);
            CHECK(edits.warnings[0] ==
                  std::string("container \"fetch\": huggingface-cli download still fetches from the hub") +
                      (c.loses ? ", now without its hub and proxy variables (a gated or proxied download fails)" : "") +
                      "; the model image holds the weights: drop the step");
        }
    }
}

TEST_CASE("env's hub and proxy variables leave every container's command line, as they leave its env", "[download_plan]") {
    struct Case {
        const char* name;
        std::vector<std::string> command;
        std::vector<std::string> args;
        std::vector<std::string> after;  // command then args, once edited
        const char* warning;  // the one warning's start, or empty
    };
    const std::vector<Case> cases = {
        {"a download step given a token and a proxy by env", {"env", "HF_TOKEN=hf_secret", "https_proxy=http://p:3128", "LANG=C"},
         {"huggingface-cli", "download", "Qwen/Q"}, {"env", "LANG=C", "huggingface-cli", "download", "Qwen/Q"},
         "container \"fetch\": huggingface-cli download still fetches from the hub, now without its hub and proxy variables"},
        {"behind tini, env's options first", {"tini", "--", "env", "-i", "HF_HUB_OFFLINE=1", "./serve.sh"}, {}, {"tini", "--", "env", "-i", "./serve.sh"}, ""},
        {"words after the command are its own", {"env", "LANG=C", "./run.sh"}, {"HF_TOKEN=x"}, {"env", "LANG=C", "./run.sh", "HF_TOKEN=x"}, ""},
        {"with no command, the words are the entrypoint's", {}, {"env", "HF_TOKEN=x", "run"}, {"env", "HF_TOKEN=x", "run"}, ""},
    };
    for (const auto& c : cases) {
        DYNAMIC_SECTION(c.name) {
            CommandLineContainer container("fetch", c.command, c.args);
            const ArgvEdits edits = plan_argv_edits(container.view, false);
            CHECK(applied(c.command, c.args, edits) == c.after);
            check_single_warning(edits, c.warning);
            // The values are never worded into a warning.
            for (const auto& w : edits.warnings) CHECK(w.find("hf_secret") == std::string::npos);
        }
    }
}
