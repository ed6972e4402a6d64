// `model-image-webhook review [FILE|-]`: one AdmissionReview in, the answer
// `serve` would give out on stdout.
#include "commands.hpp"
#include "input.hpp"
#include "node_file.hpp"
#include "policy_options.hpp"
#include "registry_options.hpp"
#include "signature_options.hpp"

#include "model_image_webhook/admission_review.hpp"

#include <iostream>

namespace miw::cli {

namespace {

int usage_error(const std::string& message) { return cli::usage_error("review", message); }

}  // namespace

int run_review(int argc, char** argv) {
    cxxopts::Options options("model-image-webhook review", "Answer one AdmissionReview as the server would; the response goes to stdout.");
    options.positional_help("[FILE|-]");
    options.add_options()
        ("endpoint", "validate or mutate: the path the apiserver would call", cxxopts::value<std::string>()->default_value("validate"))
        ("nodes", "Node objects (JSON or YAML: a Node, a List, or several documents) for the check of Pods pinned to a node",
         cxxopts::value<std::string>())
        ("artifacts", "ModelArtifact objects (JSON or YAML) that workloads name with gpustack.ai/model-artifact", cxxopts::value<std::string>())
        ("h,help", "show this help")
        ("input", "AdmissionReview JSON file, or - for stdin", cxxopts::value<std::vector<std::string>>());
    add_policy_options(options);
    options.parse_positional({"input"});

    const auto command_line = parse_command_line(options, argc, argv);
    if (!command_line) return usage_error(command_line.error());
    const cxxopts::ParseResult& parsed = *command_line;
    if (parsed.count("help")) {
        std::cout << options.help() << "\nExit status: 0 allowed, 1 denied, 2 input or usage error. A denial that --enforcement warn or audit admits exits 0.\n";
        return kExitAllowed;
    }
    std::vector<std::string> inputs;
    if (parsed.count("input")) inputs = parsed["input"].as<std::vector<std::string>>();
    if (inputs.size() > 1) return usage_error("takes one input file, got " + std::to_string(inputs.size()));
    const auto endpoint = parse_endpoint(parsed["endpoint"].as<std::string>());
    if (!endpoint) return usage_error("--endpoint must be validate or mutate");
    const auto policy = policy_from_options(parsed, parsed["kube-version"].as<std::string>());
    if (!policy) return usage_error(policy.error());
    const auto enforcement = enforcement_from_options(parsed);
    if (!enforcement) return usage_error(enforcement.error());

    StaticNodeSource nodes("no --nodes file");
    if (parsed.count("nodes")) {
        const std::string path = parsed["nodes"].as<std::string>();
        nodes = StaticNodeSource("--nodes " + path);
        if (const Status loaded = load_node_file(path, nodes); !loaded) return usage_error(loaded.error());
    }

    StaticArtifactSource artifacts("no --artifacts file");
    if (parsed.count("artifacts")) {
        const std::string path = parsed["artifacts"].as<std::string>();
        artifacts.set_origin("--artifacts " + path);
        if (const Status loaded = load_artifact_file(path, artifacts); !loaded) return usage_error(loaded.error());
    }

    const auto signing = signature_setup_from_options(parsed);
    if (!signing) return usage_error(signing.error());
    const auto registry = offline_registry_lookups(parsed, signing->policy != nullptr);
    if (!registry) return usage_error(registry.error());
    const OfflineSignatures signatures = offline_signatures(*signing, registry->get());

    Result<std::string> input = read_input(inputs.empty() ? "-" : inputs.front());
    if (!input) return usage_error(input.error());
    std::string& body = *input;

    ReviewContext context{*endpoint, *policy, &nodes};
    context.policy.signature_policy = signing->policy;
    context.signatures = signatures.source.get();
    context.artifacts = &artifacts;
    context.enforcement = *enforcement;
    if (*registry) context.registry = &(*registry)->source();
    const ReviewResult result = review(body, context);
    if (result.outcome == ReviewOutcome::unreadable) {
        std::cerr << "model-image-webhook review: " << result.error << "\n";
        return kExitInputError;
    }
    std::cout << result.body << "\n";
    switch (result.outcome) {
        case ReviewOutcome::allowed:
        case ReviewOutcome::would_deny: return kExitAllowed;
        case ReviewOutcome::denied: return kExitDenied;
        default:
            std::cerr << "model-image-webhook review: " << result.error << "\n";
            return kExitInputError;
    }
}

}  // namespace miw::cli
