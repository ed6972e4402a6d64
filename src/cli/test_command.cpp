// `model-image-webhook test PATH... | -`: every object in the manifests goes
// through the webhook's own review() path, as `kubectl apply` would send it.
#include "commands.hpp"
#include "input.hpp"
#include "node_file.hpp"
#include "policy_options.hpp"
#include "registry_options.hpp"
#include "signature_options.hpp"
#include "shipped_webhooks.hpp"
#include "test_report.hpp"

#include "model_image_webhook/admission_review.hpp"
#include "model_image_webhook/api_answers.hpp"
#include "model_image_webhook/json_patch.hpp"
#include "model_image_webhook/manifest.hpp"
#include "model_image_webhook/pod_spec.hpp"
#include "model_image_webhook/rule_scope.hpp"
#include "model_image_webhook/manifest_text.hpp"

#include <algorithm>
#include <filesystem>
#include <map>
#include <iostream>

namespace miw::cli {

namespace {

namespace fs = std::filesystem;

int usage_error(const std::string& message) { return cli::usage_error("test", message); }

bool manifest_extension(const fs::path& path) {
    std::string ext = path.extension().string();
    std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return ext == ".yaml" || ext == ".yml" || ext == ".json";
}

// The files behind the arguments: directories are walked (sorted, hidden
// entries passed over), "-" is standard input.
std::vector<std::string> input_files(const std::vector<std::string>& args, std::vector<std::string>& errors) {
    std::vector<std::string> files;
    for (const auto& arg : args) {
        if (arg == "-") {
            files.push_back(arg);
            continue;
        }
        std::error_code ec;
        const fs::file_status status = fs::status(arg, ec);
        if (ec || !fs::exists(status)) {
            errors.push_back(arg + ": no such file or directory");
            continue;
        }
        if (!fs::is_directory(status)) {
            files.push_back(arg);
            continue;
        }
        std::vector<std::string> found;
        fs::recursive_directory_iterator it(arg, fs::directory_options::skip_permission_denied, ec), end;
        for (; !ec && it != end; it.increment(ec)) {
            const std::string name = it->path().filename().string();
            if (!name.empty() && name[0] == '.') {
                if (it->is_directory()) it.disable_recursion_pending();
                continue;
            }
            if (it->is_regular_file() && manifest_extension(it->path())) found.push_back(it->path().string());
        }
        if (ec) errors.push_back(arg + ": " + ec.message());
        std::sort(found.begin(), found.end());
        files.insert(files.end(), found.begin(), found.end());
    }
    return files;
}

// Files that hold no manifests by their role: kustomize's, Helm's, and
// templates still holding {{ }} actions. The reason, or empty.
std::string not_a_manifest(const std::string& path, std::string_view text) {
    if (path == "-") return {};
    const fs::path p(path);
    const std::string name = p.filename().string();
    if (name == "kustomization.yaml" || name == "kustomization.yml" || name == "Kustomization") {
        return "a kustomization, not a manifest: check what `kubectl kustomize` renders from it instead";
    }
    if (name == "Chart.yaml" || name == "Chart.yml") return "a Helm chart's description, not a manifest";
    if (name.rfind("values", 0) == 0 && (p.extension() == ".yaml" || p.extension() == ".yml")) {
        return "Helm values, not a manifest: check what `helm template` renders instead";
    }
    for (const auto& part : p.parent_path()) {
        if (part == "templates" && text.find("{{") != std::string_view::npos) {
            return "a Helm template ({{ }} actions): check what `helm template` renders instead";
        }
    }
    return {};
}

// Kinds Kubernetes 1.35 no longer serves at an apiVersion people still
// write, and the one it serves instead.
std::string served_instead(std::string_view api_version, std::string_view kind) {
    struct Gone {
        std::string_view api_version;
        std::string_view kind;
        std::string_view served;
    };
    static constexpr Gone kGone[] = {
        {"extensions/v1beta1", "Deployment", "apps/v1"},   {"extensions/v1beta1", "DaemonSet", "apps/v1"},
        {"extensions/v1beta1", "ReplicaSet", "apps/v1"},   {"extensions/v1beta1", "Ingress", "networking.k8s.io/v1"},
        {"extensions/v1beta1", "NetworkPolicy", "networking.k8s.io/v1"},
        {"apps/v1beta1", "Deployment", "apps/v1"},         {"apps/v1beta1", "StatefulSet", "apps/v1"},
        {"apps/v1beta2", "Deployment", "apps/v1"},         {"apps/v1beta2", "StatefulSet", "apps/v1"},
        {"apps/v1beta2", "DaemonSet", "apps/v1"},          {"apps/v1beta2", "ReplicaSet", "apps/v1"},
        {"batch/v1beta1", "CronJob", "batch/v1"},          {"batch/v2alpha1", "CronJob", "batch/v1"},
        {"policy/v1beta1", "PodDisruptionBudget", "policy/v1"},
        {"networking.k8s.io/v1beta1", "Ingress", "networking.k8s.io/v1"},
        {"autoscaling/v2beta1", "HorizontalPodAutoscaler", "autoscaling/v2"},
        {"autoscaling/v2beta2", "HorizontalPodAutoscaler", "autoscaling/v2"},
        {"rbac.authorization.k8s.io/v1beta1", "ClusterRole", "rbac.authorization.k8s.io/v1"},
        {"rbac.authorization.k8s.io/v1beta1", "Role", "rbac.authorization.k8s.io/v1"},
        {"admissionregistration.k8s.io/v1beta1", "MutatingWebhookConfiguration", "admissionregistration.k8s.io/v1"},
        {"admissionregistration.k8s.io/v1beta1", "ValidatingWebhookConfiguration", "admissionregistration.k8s.io/v1"},
        {"apiextensions.k8s.io/v1beta1", "CustomResourceDefinition", "apiextensions.k8s.io/v1"},
    };
    for (const Gone& g : kGone) {
        if (g.api_version == api_version && g.kind == kind) return std::string(g.served);
    }
    return {};
}

struct LoadedObject {
    std::string file;
    std::size_t line = 0;
    ManifestObject object;
};

void load_file(const std::string& path, std::vector<LoadedObject>& out, std::vector<std::string>& errors, std::vector<std::string>& notes) {
    const std::string shown = path == "-" ? "(stdin)" : path;
    const Result<std::string> text = read_input(path);
    if (!text) {
        errors.push_back(shown + ": " + text.error());
        return;
    }
    if (std::string why = not_a_manifest(path, *text); !why.empty()) {
        notes.push_back(shown + ": skipped: " + why);
        return;
    }
    YamlLoad load = read_manifest_text(*text);
    if (!load.ok()) {
        errors.push_back(shown + ":" + std::to_string(load.error_line) + ": " + load.error);
        return;
    }
    for (auto& doc : load.documents) {
        const std::vector<std::size_t> item_lines = doc.item_lines;
        Result<std::vector<ManifestObject>> objects = read_manifest_objects(doc.json);
        if (!objects) {
            errors.push_back(shown + ":" + std::to_string(doc.line) + ": " + objects.error());
            continue;
        }
        for (auto& object : *objects) {
            const std::size_t line = object.from_list && object.item < item_lines.size() ? item_lines[object.item] : doc.line;
            out.push_back({shown, line, std::move(object)});
        }
    }
}

std::string admission_review(const ManifestObject& o, std::size_t n) {
    return "{\"apiVersion\":\"admission.k8s.io/v1\",\"kind\":\"AdmissionReview\",\"request\":{\"uid\":\"model-image-webhook-test-" + std::to_string(n) +
           "\",\"kind\":{\"group\":" + json_string(o.group) + ",\"version\":" + json_string(o.version) + ",\"kind\":" + json_string(o.kind) +
           "},\"name\":" + json_string(o.name) + ",\"namespace\":" + json_string(o.namespace_name) +
           ",\"operation\":\"CREATE\",\"userInfo\":{\"username\":\"model-image-webhook-test\"},\"object\":" + o.json + ",\"oldObject\":null,\"dryRun\":true}}";
}

// The plural a webhook rule names a kind by, from the rule scopes.
std::string_view resource_of(Endpoint endpoint, const GroupVersionKind& kind) {
    for (const RuleScope& s : rule_scopes()) {
        if (s.endpoint == endpoint && s.group == kind.group && s.kind == kind.kind && s.resource.find('/') == std::string_view::npos) return s.resource;
    }
    return {};
}

class Evaluator {
public:
    Evaluator(const PolicyConfig& policy, Enforcement enforcement, const NodeSource& nodes, const ArtifactSource& artifacts, const RegistrySource* registry,
              const SignatureSource* signatures,
              const std::vector<WebhookEntry>& webhooks, const std::map<std::string, std::map<std::string, std::string>>& namespace_labels)
        : policy_(policy), enforcement_(enforcement), nodes_(nodes), artifacts_(artifacts), registry_(registry), signatures_(signatures), webhooks_(webhooks),
          namespace_labels_(namespace_labels) {}

    // Runs one object through the endpoints the webhook configurations would
    // send it to; a failure when the object cannot be read.
    Status evaluate(ManifestObject object, ObjectResult& r) {
        if (object.group.empty() && object.kind == "Node") return skip(r, "a Node: used for the check of Pods pinned to it");
        // The endpoints whose rules cover the object (applies()), each only if
        // a webhook configuration sends it there: its rules, namespaceSelector
        // (on the namespace's labels, kubernetes.io/metadata.name among them)
        // and objectSelector. The node check's matchConditions (an image
        // volume, which an opted-in Pod has by the time validation sees it)
        // are CEL, written out here.
        const GroupVersionKind kind{object.group, object.version, object.kind};
        const std::string ns = object.namespace_name.empty() ? "default" : object.namespace_name;
        std::map<std::string, std::string> ns_labels{{"kubernetes.io/metadata.name", ns}};
        if (const auto it = namespace_labels_.find(ns); it != namespace_labels_.end()) ns_labels.insert(it->second.begin(), it->second.end());
        std::vector<std::pair<Endpoint, Enforcement>> endpoints;
        bool covered = false;
        std::string why_not;
        for (Endpoint endpoint : {Endpoint::mutate, Endpoint::validate}) {
            const RuleSet rules = applies(endpoint, kind, Operation::create, "");
            if (rules == RuleSet::none) continue;
            covered = true;
            const Selection selection = select(webhooks_, endpoint, enforcement_, object.group, object.version,
                                               resource_of(endpoint, kind), ns_labels, object.labels);
            if (!selection.sent) {
                if (why_not.empty()) why_not = selection.why_not.empty() ? "no webhook configuration sends it" : selection.why_not;
                continue;
            }
            if (rules == RuleSet::pinned_pod && !(object.mounts_image_volume || object.opted_in)) continue;
            endpoints.emplace_back(endpoint, selection.mode);
        }
        if (endpoints.empty() && covered) {
            // Not sent itself, but a template that opts in makes Pods that are:
            // the workload is judged as they will be.
            if (Result<ManifestObject> pod = pod_of_template(object); pod && pod->opted_in) {
                const Status judged = evaluate(std::move(*pod), r);
                const std::string note = "judged as the Pods it creates: its pod template carries the label " + std::string(kOptInLabel) +
                                         ": image, so each of its Pods goes through the webhook when it is created";
                if (r.verdict == TestVerdict::denied) r.message = "its Pods will be refused: " + r.message;
                if (r.verdict == TestVerdict::would_deny) r.message = "its Pods would be refused: " + r.message;
                r.warnings.insert(r.warnings.begin(), note);
                return judged;
            }
            return skip(r, why_not.empty() ? "it mounts no image volume, so the node check is not called" : why_not);
        }
        if (endpoints.empty()) return skip(r, object.kind + " is not sent to the webhook");
        r.verdict = TestVerdict::allowed;
        for (const auto& [endpoint, mode] : endpoints) {
            r.endpoints.push_back(std::string(to_string(endpoint)));
            std::string body = admission_review(object, ++count_);
            ReviewContext context{endpoint, policy_, &nodes_};
            context.artifacts = &artifacts_;
            context.registry = registry_;
            context.signatures = signatures_;
            context.enforcement = mode;
            const ReviewResult result = review(body, context);
            // The findings of a softened denial are reported as the finding
            // itself (rule and message), not again as warnings.
            const std::size_t own_warnings = result.warnings.size() - result.softened_warnings;
            for (std::size_t i = 0; i < own_warnings; ++i) {
                const std::string& w = result.warnings[i];
                if (std::find(r.warnings.begin(), r.warnings.end(), w) == r.warnings.end()) r.warnings.push_back(w);
            }
            if (result.outcome == ReviewOutcome::denied) {
                r.verdict = TestVerdict::denied;
                r.rule = result.rules;
                r.message = result.message;
                return done();
            }
            if (result.outcome == ReviewOutcome::would_deny) {
                // Admitted unchanged: a mutation that would be denied has no
                // patch, and the later endpoints still see the object.
                if (r.verdict != TestVerdict::would_deny) {
                    r.verdict = TestVerdict::would_deny;
                    r.enforcement = std::string(to_string(mode));
                    r.rule = result.rules;
                    r.message = result.message;
                }
                continue;
            }
            if (result.outcome != ReviewOutcome::allowed) {
                return fail("the webhook cannot read this object: " + result.error);
            }
            if (!result.patch.empty()) {
                r.patch = result.patch;
                Result<std::string> patched = apply_json_patch(object.json, result.patch);
                if (!patched) return fail("the webhook's patch does not apply: " + patched.error());
                object.json = *patched;
                r.patched = std::move(*patched);
            }
        }
        return done();
    }

private:
    static Status skip(ObjectResult& r, std::string why) {
        r.verdict = TestVerdict::skipped;
        r.message = std::move(why);
        return done();
    }

    const PolicyConfig& policy_;
    Enforcement enforcement_;  // of /validate and /mutate; the /warn/ and /audit/ webhooks force theirs
    const NodeSource& nodes_;
    const ArtifactSource& artifacts_;
    const RegistrySource* registry_;  // null: --registry-check off
    const SignatureSource* signatures_;  // null: no --signature-policy
    const std::vector<WebhookEntry>& webhooks_;
    const std::map<std::string, std::map<std::string, std::string>>& namespace_labels_;
    std::size_t count_ = 0;
};

}  // namespace

int run_test(int argc, char** argv) {
    cxxopts::Options options("model-image-webhook test", "Check manifests with the webhook's own decisions, as kubectl apply would meet them.");
    options.positional_help("PATH... | -");
    options.add_options()
        ("o,output", "text, json, junit or sarif", cxxopts::value<std::string>()->default_value("text"))
        ("show-patched", "print each mutated object after its patch (YAML in text output)")
        ("nodes", "Node objects (JSON or YAML) for the check of Pods pinned to a node, besides the Nodes among the inputs", cxxopts::value<std::string>())
        ("artifacts", "ModelArtifact objects (JSON or YAML) that workloads name with gpustack.ai/model-artifact, besides those among the inputs",
         cxxopts::value<std::string>())
        ("webhook-config", "the Validating/MutatingWebhookConfigurations to select objects by (default: the shipped manifests/base/webhooks.yaml)",
         cxxopts::value<std::string>())
        ("h,help", "show this help")
        ("paths", "files, directories (recursive: .yaml, .yml, .json) or - for stdin", cxxopts::value<std::vector<std::string>>());
    add_policy_options(options, "");
    options.parse_positional({"paths"});
    const auto command_line = parse_command_line(options, argc, argv);
    if (!command_line) return usage_error(command_line.error());
    const cxxopts::ParseResult& parsed = *command_line;
    if (parsed.count("help")) {
        std::cout << options.help() << "\nExit status: 0 all allowed (denials softened by --enforcement warn or audit, or by a namespace's mode, included), 1 any denied, "
                     "2 an input or usage error.\n";
        return kExitAllowed;
    }
    const std::string output = parsed["output"].as<std::string>();
    if (output != "text" && output != "json" && output != "junit" && output != "sarif") return usage_error("--output must be text, json, junit or sarif");
    if (!parsed.count("paths")) return usage_error("name the manifests to check (files, directories, or - for stdin)");

    TestReport report;
    const std::string kube = parsed["kube-version"].as<std::string>();
    report.kube_version_assumed = kube.empty();
    report.kube_version = kube.empty() ? kDefaultOfflineKubeVersion : kube;
    auto policy_config = policy_from_options(parsed, report.kube_version);
    if (!policy_config) return usage_error(policy_config.error());
    const auto signing = signature_setup_from_options(parsed);
    if (!signing) return usage_error(signing.error());
    policy_config->signature_policy = signing->policy;
    const PolicyConfig& policy = *policy_config;
    const auto enforcement = enforcement_from_options(parsed);
    if (!enforcement) return usage_error(enforcement.error());

    StaticNodeSource nodes("the Nodes among the inputs");
    if (parsed.count("nodes")) {
        nodes = StaticNodeSource("the Nodes among the inputs and --nodes " + parsed["nodes"].as<std::string>());
        if (const Status loaded = load_node_file(parsed["nodes"].as<std::string>(), nodes); !loaded) return usage_error(loaded.error());
    }

    StaticArtifactSource artifacts("the ModelArtifacts among the inputs");
    if (parsed.count("artifacts")) {
        artifacts.set_origin("the ModelArtifacts among the inputs and --artifacts " + parsed["artifacts"].as<std::string>());
        if (const Status loaded = load_artifact_file(parsed["artifacts"].as<std::string>(), artifacts); !loaded) return usage_error(loaded.error());
    }

    std::vector<LoadedObject> objects;
    for (const auto& file : input_files(parsed["paths"].as<std::vector<std::string>>(), report.input_errors)) load_file(file, objects, report.input_errors, report.notes);
    for (auto& loaded : objects) {
        const bool node = loaded.object.group.empty() && loaded.object.kind == "Node";
        const bool artifact = loaded.object.group == "worker.gpustack.ai" && loaded.object.kind == "ModelArtifact";
        if (!node && !artifact) continue;
        std::string json = loaded.object.json;
        if (const Status added = node ? add_nodes_from_json(json, nodes) : add_artifacts_from_json(json, artifacts); !added) {
            report.input_errors.push_back(loaded.file + ":" + std::to_string(loaded.line) + ": " + added.error());
        }
    }

    const std::string config_text = parsed.count("webhook-config") ? std::string() : std::string(kShippedWebhooks);
    std::vector<WebhookEntry> webhooks;
    {
        Result<std::string> text = parsed.count("webhook-config") ? read_input(parsed["webhook-config"].as<std::string>()) : Result<std::string>(config_text);
        if (!text) return usage_error("--webhook-config: " + text.error());
        YamlLoad load = read_manifest_text(*text);
        if (!load.ok()) return usage_error("the webhook configurations: line " + std::to_string(load.error_line) + ": " + load.error);
        for (auto& doc : load.documents) {
            Result<std::vector<WebhookEntry>> entries = read_webhook_configuration(doc.json);
            if (!entries) return usage_error("the webhook configurations: " + entries.error());
            webhooks.insert(webhooks.end(), entries->begin(), entries->end());
        }
        if (webhooks.empty()) return usage_error("--webhook-config holds no ValidatingWebhookConfiguration or MutatingWebhookConfiguration");
    }
    std::map<std::string, std::map<std::string, std::string>> namespace_labels;
    for (const auto& loaded : objects) {
        if (loaded.object.group.empty() && loaded.object.kind == "Namespace") namespace_labels[loaded.object.name] = loaded.object.labels;
    }
    const auto registry = offline_registry_lookups(parsed, signing->policy != nullptr);
    if (!registry) return usage_error(registry.error());
    const OfflineSignatures signatures = offline_signatures(*signing, registry->get());
    Evaluator evaluator(policy, *enforcement, nodes, artifacts, *registry ? &(*registry)->source() : nullptr, signatures.source.get(), webhooks, namespace_labels);
    for (auto& loaded : objects) {
        ObjectResult r;
        r.file = loaded.file;
        r.line = loaded.line;
        r.api_version = loaded.object.api_version;
        r.kind = loaded.object.kind;
        r.namespace_name = loaded.object.namespace_name;
        r.name = loaded.object.name.empty() && !loaded.object.generate_name.empty() ? loaded.object.generate_name + "*" : loaded.object.name;
        if (std::string served = served_instead(loaded.object.api_version, loaded.object.kind); !served.empty()) {
            report.input_errors.push_back(r.file + ":" + std::to_string(r.line) + ": " + r.kind + " " + r.name + ": " + loaded.object.api_version +
                                          " is not served by Kubernetes 1.35: write apiVersion: " + served);
            continue;
        }
        if (const Status evaluated = evaluator.evaluate(std::move(loaded.object), r); !evaluated) {
            report.input_errors.push_back(r.file + ":" + std::to_string(r.line) + ": " + r.kind + " " + r.name + ": " + evaluated.error());
            continue;
        }
        report.objects.push_back(std::move(r));
    }

    const bool show_patched = parsed.count("show-patched") > 0;
    if (output == "json") std::cout << render_json(report, show_patched);
    else if (output == "junit") std::cout << render_junit(report);
    else if (output == "sarif") std::cout << render_sarif(report);
    else std::cout << render_text(report, show_patched);
    for (const auto& e : report.input_errors) {
        if (output != "text") std::cerr << "model-image-webhook test: " << e << "\n";
    }
    if (!report.input_errors.empty()) return kExitInputError;
    const bool denied = std::any_of(report.objects.begin(), report.objects.end(), [](const ObjectResult& r) { return r.verdict == TestVerdict::denied; });
    return denied ? kExitDenied : kExitAllowed;
}

}  // namespace miw::cli
