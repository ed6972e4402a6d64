#include "router.hpp"

#include "log.hpp"

#include "model_image_webhook/admission_path.hpp"
#include "model_image_webhook/admission_review.hpp"
#include "model_image_webhook/go_duration.hpp"
#include "model_image_webhook/registry/body_references.hpp"

#include <algorithm>
#include <cctype>

namespace miw::server {

namespace {

// The Node source of one request: the API client, bounded by the request's deadline.
class RequestNodes : public NodeSource {
public:
    RequestNodes(const DeadlineNodeSource& api, std::chrono::steady_clock::time_point deadline, Metrics& metrics)
        : api_(api), deadline_(deadline), metrics_(metrics) {}

    NodeLookup lookup(const NodeRef& node) const override {
        NodeLookup found = api_.lookup_until(node, deadline_);
        metrics_.node_lookup(found.status == NodeLookupStatus::found ? "found" : found.status == NodeLookupStatus::not_found ? "not-found" : "unavailable");
        return found;
    }
    std::string origin() const override { return api_.origin(); }
    std::optional<std::vector<std::string>> nodes_holding(std::string_view reference, std::size_t limit) const override {
        return api_.nodes_holding(reference, limit);
    }

private:
    const DeadlineNodeSource& api_;
    std::chrono::steady_clock::time_point deadline_;
    Metrics& metrics_;
};

// The registry source of one request. Planned (a review on the thread that
// read it): the answers told before the review, which never waits; a
// reference the plan did not foresee is not looked up there, but said to be
// unchecked. Else: the cache, and past it a look bounded by the request's
// deadline. Each answer counted.
class RequestRegistry : public RegistrySource {
public:
    RequestRegistry(const RegistryCache& cache, const PullSecrets* pull_secrets, std::chrono::steady_clock::time_point deadline, const RegistryPlan* planned,
                    Metrics& metrics)
        : cache_(cache), pull_secrets_(pull_secrets), deadline_(deadline), planned_(planned), metrics_(metrics) {}

    // With the pull secrets `who` names, read from the API (the plan sends
    // every review that may look so to the pool, where it may wait for them).
    RegistryLookup lookup_for(std::string_view reference, const PullSecretsRef& who) const override {
        if (pull_secrets_ == nullptr || planned_ != nullptr) return lookup(reference);
        const auto start = std::chrono::steady_clock::now();
        // Half the time left, at most: a slow API leaves the registry the rest.
        const auto secrets_deadline = start + (deadline_ - start) / 2;
        PullSecrets::Assembled credentials = pull_secrets_->assemble(who, secrets_deadline);
        RegistryLookup found = look(reference, credentials.credentials, start);
        found.credential_notes = std::move(credentials.notes);
        return found;
    }

    RegistryLookup lookup(std::string_view reference) const override {
        if (planned_ != nullptr) {
            for (const auto& [written, known] : planned_->known) {
                if (written == reference) {
                    metrics_.registry_lookup(known, true, 0);
                    return known;
                }
            }
            if (std::optional<RegistryLookup> known = cache_.cached(reference)) {
                metrics_.registry_lookup(*known, true, 0);
                return std::move(*known);
            }
            RegistryLookup unforeseen;
            unforeseen.failure = RegistryFailure::busy;
            unforeseen.detail = "the reference was not foreseen before the review, which could not wait for a look";
            metrics_.registry_lookup(unforeseen, false, 0);
            return unforeseen;
        }
        return look(reference, PullCredentials{}, std::chrono::steady_clock::now());
    }

private:
    // The cache, and past it a look to the request's deadline, counted with the time since `start`.
    RegistryLookup look(std::string_view reference, const PullCredentials& who, std::chrono::steady_clock::time_point start) const {
        RegistryAnswer answer = cache_.lookup_until(reference, deadline_, who);
        metrics_.registry_lookup(answer.lookup, answer.origin == RegistryAnswerOrigin::cache,
                                 std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
        return std::move(answer.lookup);
    }

    const RegistryCache& cache_;
    const PullSecrets* pull_secrets_;
    std::chrono::steady_clock::time_point deadline_;
    const RegistryPlan* planned_;
    Metrics& metrics_;
};

// The signature source of one request (--signature-policy), as the registry
// source: planned, the kept verdicts told before the review; else the checks,
// fetching to the request's deadline with the credentials the Pod pulls with.
class RequestSignatures : public SignatureSource {
public:
    RequestSignatures(const SignatureChecks& checks, const PullSecrets* pull_secrets, std::chrono::steady_clock::time_point deadline, const RegistryPlan* planned,
                      Metrics& metrics)
        : checks_(checks), pull_secrets_(pull_secrets), deadline_(deadline), planned_(planned), metrics_(metrics) {}

    SignatureOutcome verify(std::string_view reference, std::size_t policy, const PullSecretsRef* who) const override {
        SignatureOutcome out = answer(reference, policy, who);
        metrics_.signature_verification(out.status);
        return out;
    }

private:
    SignatureOutcome answer(std::string_view reference, std::size_t policy, const PullSecretsRef* who) const {
        if (planned_ != nullptr) {
            for (const RegistryPlan::KnownSignature& known : planned_->signatures) {
                if (known.reference == reference && known.policy == policy) return known.outcome;
            }
            if (std::optional<SignatureOutcome> kept = checks_.cached(reference, policy)) return std::move(*kept);
            return {SignatureStatus::unavailable, "busy: the reference was not foreseen before the review, which could not wait for its signatures"};
        }
        PullCredentials credentials;
        if (pull_secrets_ != nullptr && who != nullptr) {
            const auto start = std::chrono::steady_clock::now();
            credentials = pull_secrets_->assemble(*who, start + (deadline_ - start) / 2).credentials;
        }
        return checks_.check(reference, policy, credentials, deadline_).outcome;
    }

    const SignatureChecks& checks_;
    const PullSecrets* pull_secrets_;
    std::chrono::steady_clock::time_point deadline_;
    const RegistryPlan* planned_;
    Metrics& metrics_;
};

std::string_view path_of(std::string_view target) { return target.substr(0, target.find('?')); }


}  // namespace

std::string_view origin_form(std::string_view target) {
    for (std::string_view scheme : {"https://", "http://"}) {
        if (target.size() < scheme.size() || !std::equal(scheme.begin(), scheme.end(), target.begin(), [](char a, char b) {
                return a == std::tolower(static_cast<unsigned char>(b));
            })) {
            continue;
        }
        const std::size_t slash = target.find_first_of("/?", scheme.size());
        if (slash == std::string_view::npos) return "/";
        return target.substr(slash);
    }
    return target;
}

namespace {

bool is_json(std::string_view content_type) {
    std::string_view media = content_type.substr(0, content_type.find(';'));
    while (!media.empty() && media.back() == ' ') media.remove_suffix(1);
    constexpr std::string_view kJson = "application/json";
    return media.size() == kJson.size() && std::equal(media.begin(), media.end(), kJson.begin(), [](char a, char b) {
               return std::tolower(static_cast<unsigned char>(a)) == b;
           });
}

HttpAnswer plain(int status, std::string body, std::string allow = {}) {
    HttpAnswer a;
    a.status = status;
    a.body = std::move(body);
    a.allow = std::move(allow);
    return a;
}

HttpAnswer admit(ServerState& state, const AdmissionPath& at, std::string_view target, std::string& body, std::chrono::steady_clock::time_point received,
                 const RegistryPlan* planned) {
    const auto policy = state.policy.get();
    const Endpoint endpoint = at.endpoint;
    ReviewContext context{endpoint, *policy, nullptr};
    context.enforcement = at.mode(state.enforcement);
    context.memory = state.review_memory;
    context.artifacts = state.artifacts;
    context.body_bytes_held = body.size();  // as the session counted it, from the Content-Length
    // Leave a tenth of the apiserver's timeout for the answer to travel back.
    const auto timeout = request_timeout(target);
    auto budget = state.node_lookup_timeout;
    if (timeout) budget = std::min(budget, *timeout * 9 / 10);
    std::optional<RequestNodes> nodes;
    if (state.nodes != nullptr) {
        nodes.emplace(*state.nodes, received + budget, state.metrics);
        context.nodes = &*nodes;
    }
    auto registry_budget = state.registry_timeout;
    if (timeout) registry_budget = std::min(registry_budget, *timeout * 9 / 10);
    std::optional<RequestRegistry> registry;
    if (state.registry != nullptr && policy->registry_check != RegistryCheck::off) {
        registry.emplace(*state.registry, state.pull_secrets, received + registry_budget, planned, state.metrics);
        context.registry = &*registry;
    }
    std::optional<RequestSignatures> signatures;
    if (state.signatures != nullptr && policy->signature_policy != nullptr) {
        signatures.emplace(*state.signatures, state.pull_secrets, received + registry_budget, planned, state.metrics);
        context.signatures = &*signatures;
    }
    ReviewResult result = review(body, context);
    // From the complete body: time queued for the Node-lookup pool counts too.
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - received).count();
    const std::string_view verdict = to_string(result.outcome);
    state.metrics.observe_review(to_string(endpoint), result.kind, result.operation, verdict, seconds);
    if (result.outcome == ReviewOutcome::denied || result.outcome == ReviewOutcome::would_deny) state.metrics.observe_findings(result.rules, verdict);
    Log::instance().info("admission", {{"uid", result.uid},
                                       {"endpoint", to_string(endpoint)},
                                       {"kind", result.kind},
                                       {"namespace", result.namespace_name},
                                       {"name", result.name},
                                       {"operation", result.operation},
                                       {"dryRun", result.dry_run},
                                       {"verdict", verdict},
                                       {"enforcement", to_string(context.enforcement)},
                                       {"rule", result.rules},
                                       {"patched", !result.patch.empty()},
                                       {"latencyMs", seconds * 1000.0}});
    HttpAnswer a;
    a.status = result.http_status;
    a.content_type = result.content_type;
    a.body = std::move(result.body);
    return a;
}

}  // namespace

std::optional<std::chrono::milliseconds> parse_duration(std::string_view value) {
    const std::optional<std::chrono::nanoseconds> d = parse_go_duration(value);
    if (!d || d->count() < 0) return std::nullopt;  // no wait is negative
    return std::chrono::duration_cast<std::chrono::milliseconds>(*d);
}

std::optional<std::chrono::milliseconds> request_timeout(std::string_view target) {
    const std::size_t query = target.find('?');
    if (query == std::string_view::npos) return std::nullopt;
    std::string_view rest = target.substr(query + 1);
    while (!rest.empty()) {
        const std::size_t amp = rest.find('&');
        const std::string_view pair = rest.substr(0, amp);
        rest = amp == std::string_view::npos ? std::string_view() : rest.substr(amp + 1);
        if (pair.substr(0, 8) == "timeout=") return parse_duration(pair.substr(8));
    }
    return std::nullopt;
}

HttpAnswer route(ServerState& state, Port port, std::string_view method, std::string_view target, std::string_view content_type, std::string& body,
                 std::chrono::steady_clock::time_point received, const RegistryPlan* planned) {
    target = origin_form(target);
    const std::string_view path = path_of(target);
    const bool get = method == "GET" || method == "HEAD";
    HttpAnswer answer;
    const AdmissionPath* admission = port == Port::admission ? find_admission_path(path) : nullptr;
    if (admission != nullptr) {
        if (method != "POST") answer = plain(405, "use POST with an AdmissionReview\n", "POST");
        else if (!is_json(content_type)) answer = plain(415, "Content-Type must be application/json\n");
        else {
            // Whatever fails inside one review (it may run on the pool, where an
            // exception would end the process) is that request's 500, not the server's end.
            try {
                return admit(state, *admission, target, body, received, planned);
            } catch (const std::exception& e) {
                Log::instance().error("review failed", {{"reason", e.what()}});
                answer = plain(500, std::string("the webhook failed answering this review (") + e.what() + "); retry\n");
            }
        }
    } else if (path == "/healthz" || path == "/readyz" || path == "/metrics") {
        if (!get) {
            answer = plain(405, "use GET\n", "GET, HEAD");
        } else if (path == "/healthz") {
            answer = plain(200, "ok\n");
        } else if (path == "/readyz") {
            if (state.ready()) answer = plain(200, "ok\n");
            else if (state.draining) answer = plain(503, "shutting down\n");
            else if (!state.certificate_loaded) answer = plain(503, "no serving certificate loaded\n");
            else answer = plain(503, "the apiserver version is not known yet, or not readable (see the log)\n");
        } else {
            answer = plain(200, state.metrics.render());
            answer.content_type = "text/plain; version=0.0.4; charset=utf-8";
        }
    } else {
        answer = plain(404, "not found: the webhook serves POST /validate and /mutate (also under /warn/ and /audit/), and GET /healthz, /readyz and /metrics\n");
    }
    state.metrics.observe_http(answer.status);
    return answer;
}

RegistryPlan plan_registry_lookups(const ServerState& state, Port port, std::string_view target, std::string_view body) {
    RegistryPlan plan;
    const auto policy = state.policy.get();
    const bool registry_on = state.registry != nullptr && policy->registry_check != RegistryCheck::off;
    const SignaturePolicy* signature_policy = state.signatures != nullptr ? policy->signature_policy.get() : nullptr;
    if (port != Port::admission || (!registry_on && signature_policy == nullptr)) return plan;
    if (find_admission_path(path_of(origin_form(target))) == nullptr) return plan;
    thread_local std::vector<std::string> artifact_images;  // kept: no allocation once warm
    const BodyReferences found = references_in_body(body, state.artifacts, artifact_images);
    if (!found.complete) {
        plan.needs_look = true;
        return plan;
    }
    // Whose credentials a look is made with is read from the API: that may wait.
    if (state.pull_secrets != nullptr && !found.references.empty()) {
        plan.needs_look = true;
        return plan;
    }
    const auto must_wait = [&plan] {
        plan.needs_look = true;
        plan.known.clear();
        plan.signatures.clear();
        return plan;
    };
    if (registry_on) plan.known.reserve(found.references.size());
    for (std::string_view reference : found.references) {
        if (registry_on) {
            std::optional<RegistryLookup> known = state.registry->cached(reference);
            if (!known) return must_wait();
            plan.known.emplace_back(std::string(reference), std::move(*known));
        }
        if (signature_policy == nullptr) continue;
        for (const std::size_t index : matching_policies(*signature_policy, reference)) {
            std::optional<SignatureOutcome> kept = state.signatures->cached(reference, index);
            if (!kept) return must_wait();
            plan.signatures.push_back({std::string(reference), index, std::move(*kept)});
        }
    }
    return plan;
}

}  // namespace miw::server
