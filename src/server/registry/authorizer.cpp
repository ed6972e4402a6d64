#include "authorizer.hpp"

#include "credential_identity.hpp"

#include "model_image_webhook/registry/kubelet_keyring.hpp"
#include "model_image_webhook/registry/token_lifetime.hpp"
#include "model_image_webhook/registry/url.hpp"
#include "model_image_webhook/registry_answers.hpp"
#include "model_image_webhook/text.hpp"

#include <algorithm>

namespace miw::server {

namespace {

constexpr std::size_t kMaxKept = 1000;

std::string host_key(const RegistryHost& host) { return host.scheme + "://" + host.authority(); }

std::string basic_of(const RegistryCredential& credential) { return "Basic " + base64_encode(credential.username + ":" + credential.password); }

HttpRequest with_authorization(HttpRequest request, const std::string& authorization) {
    if (!authorization.empty()) request.headers.emplace_back("Authorization", authorization);
    return request;
}

}  // namespace

std::vector<std::string> token_scopes(std::string_view challenge_scope, std::string_view repository) {
    std::vector<std::string> scopes{"repository:" + std::string(repository) + ":pull"};
    while (!challenge_scope.empty()) {
        const std::size_t space = challenge_scope.find(' ');
        if (space != 0) scopes.emplace_back(challenge_scope.substr(0, space));
        if (space == std::string_view::npos) break;
        challenge_scope.remove_prefix(space + 1);
    }
    std::sort(scopes.begin(), scopes.end());
    scopes.erase(std::unique(scopes.begin(), scopes.end()), scopes.end());
    return scopes;
}

std::string Authorizer::token_key(const AuthChallenge& challenge, const RegistryHost& host, const std::vector<std::string>& scopes,
                                  const RegistryCredential* credential) const {
    std::string key = host_key(host);
    for (std::string_view part : {challenge.param("realm"), challenge.param("service")}) {
        key += '\n';
        key += part;
    }
    for (const std::string& scope : scopes) {
        key += '\n';
        key += scope;
    }
    key += '\n';
    if (credential != nullptr) key += credential_identity(*credential);
    return key;
}

Result<std::string> Authorizer::token_for(const AuthChallenge& challenge, const RegistryHost& host, std::string_view repository,
                                          const RegistryCredential* credential, bool fresh, Deadline deadline, RegistryFailure& failure) const {
    const std::vector<std::string> scopes = token_scopes(challenge.param("scope"), repository);
    const std::string key = token_key(challenge, host, scopes, credential);
    {
        std::lock_guard lock(mutex_);
        if (const auto it = tokens_.find(key); it != tokens_.end()) {
            if (!fresh && it->second.expires > std::chrono::steady_clock::now()) return it->second.value;
            tokens_.erase(it);  // expired, or refused by the registry
        }
    }
    const std::string realm(challenge.param("realm"));
    const std::string service(challenge.param("service"));
    const std::optional<Url> url = parse_url(realm);
    failure = RegistryFailure::bad_answer;
    if (!url) return fail("the registry's Bearer challenge names no usable realm");
    if (!url->tls && !plain_http_ok_(url->authority, url->host)) {
        failure = RegistryFailure::tls;
        return fail("the token realm " + url->authority + " is plain HTTP and not in --registry-insecure");
    }
    HttpRequest request;
    request.url = realm.substr(0, realm.find('#'));
    request.url += realm.find('?') == std::string::npos ? '?' : '&';
    if (!service.empty()) request.url += "service=" + percent_encode(service) + "&";
    for (std::size_t i = 0; i < scopes.size(); ++i) request.url += (i == 0 ? "scope=" : "&scope=") + percent_encode(scopes[i]);
    request.headers.emplace_back("Accept", "application/json");
    if (credential != nullptr) request.headers.emplace_back("Authorization", basic_of(*credential));
    request.max_body = kMaxTokenAnswerBytes;
    // With the host's TLS settings, as containerd asks a realm with the host's client.
    request.ca_files = host.ca_files;
    request.skip_verify = host.skip_verify;
    HttpResponse a = transport_.send(request, deadline);
    if (a.failure != RegistryFailure::none) {
        failure = a.failure;
        return fail("token server: " + a.error);
    }
    if (a.status != 200) {
        failure = failure_for_status(a.status);
        return fail("the token server " + url->authority + " answered " + std::to_string(a.status) +
                    (a.status == 401 || a.status == 403 ? ": check the credentials for it" : ""));
    }
    Result<RegistryToken> token = read_registry_token(a.body);
    if (!token) return fail(token.error());
    std::lock_guard lock(mutex_);
    if (tokens_.size() >= kMaxKept) tokens_.clear();
    tokens_[key] = Token{token->token, std::chrono::steady_clock::now() + token_reuse_for(token->expires_in_seconds)};
    failure = RegistryFailure::none;
    return std::move(token->token);
}

Result<std::string> Authorizer::authorization_for(const AuthChallenge& challenge, const RegistryHost& host, std::string_view repository,
                                                  const RegistryCredential* credential, bool fresh, Deadline deadline, RegistryFailure& failure) const {
    if (challenge.scheme == "bearer") {
        Result<std::string> token = token_for(challenge, host, repository, credential, fresh, deadline, failure);
        if (!token) return fail(token.error());
        return "Bearer " + *token;
    }
    failure = RegistryFailure::unauthorized;
    if (challenge.scheme == "basic") {
        if (credential == nullptr) return fail("the registry asks for Basic credentials and none are configured for " + host.authority());
        return basic_of(*credential);
    }
    return fail("the registry asks for " + challenge.scheme + " authentication, which the webhook does not speak");
}

HttpResponse Authorizer::attempt(const RegistryHost& host, std::string_view repository, const RegistryCredential* credential, const HttpRequest& request,
                                 Deadline deadline) const {
    const std::string key = host_key(host);
    std::optional<AuthChallenge> known;
    {
        std::lock_guard lock(mutex_);
        if (const auto it = challenges_.find(key); it != challenges_.end()) known = it->second;
    }
    std::string sent;
    if (known) {
        RegistryFailure ignored = RegistryFailure::none;
        if (Result<std::string> a = authorization_for(*known, host, repository, credential, false, deadline, ignored)) sent = std::move(*a);
    }
    HttpResponse answer = transport_.send(with_authorization(request, sent), deadline);
    if (answer.failure == RegistryFailure::none && answer.status == 403) {
        answer.failure = RegistryFailure::unauthorized;
        answer.error = "the registry refused the credentials for " + host.authority() + " (403)";
    }
    if (answer.failure != RegistryFailure::none || answer.status != 401) return answer;

    // Every WWW-Authenticate field: a Bearer challenge may come after another.
    std::vector<AuthChallenge> offered;
    for (const std::string& field : answer.www_authenticate) {
        Result<std::vector<AuthChallenge>> parsed = parse_www_authenticate(field);
        if (parsed) offered.insert(offered.end(), parsed->begin(), parsed->end());
    }
    if (offered.empty()) {
        answer.failure = RegistryFailure::unauthorized;
        answer.error = "401 without a readable WWW-Authenticate challenge";
        return answer;
    }
    const auto by_scheme = [&](std::string_view scheme) {
        return std::find_if(offered.begin(), offered.end(), [&](const AuthChallenge& c) { return c.scheme == scheme; });
    };
    auto chosen = by_scheme("bearer");  // what registries mean their clients to use
    if (chosen == offered.end()) chosen = by_scheme("basic");
    if (chosen == offered.end()) chosen = offered.begin();
    {
        std::lock_guard lock(mutex_);
        if (challenges_.size() >= kMaxKept) challenges_.clear();
        challenges_[key] = *chosen;
    }
    // A token sent and refused is dropped: a fresh one is asked for.
    RegistryFailure failure = RegistryFailure::none;
    Result<std::string> fresh = authorization_for(*chosen, host, repository, credential, true, deadline, failure);
    if (!fresh) {
        answer.failure = failure;
        answer.error = fresh.error();
        return answer;
    }
    if (*fresh == sent) {
        answer.failure = RegistryFailure::unauthorized;
        answer.error = "the registry refused the credentials for " + host.authority();
        return answer;
    }
    answer = transport_.send(with_authorization(request, *fresh), deadline);
    if (answer.failure == RegistryFailure::none && (answer.status == 401 || answer.status == 403)) {
        answer.failure = RegistryFailure::unauthorized;
        answer.error = "the registry refused the credentials for " + host.authority() + " (" + std::to_string(answer.status) + ")";
    }
    return answer;
}

HttpResponse Authorizer::send(const RegistryHost& host, std::string_view repository, HttpRequest request, const Keyring* first, Deadline deadline) const {
    for (const auto& [name, value] : host.headers) request.headers.emplace_back(name, value);
    request.ca_files = host.ca_files;
    request.skip_verify = host.skip_verify;
    // Matched by the registry's name where this is the registry's own host, as the kubelet matches an image.
    const std::string keyring_name = host.keyring_name.empty() ? host.authority() : host.keyring_name;
    // The Pod's pull secrets before the node's keyring, as the kubelet unions them.
    const KeyringAnswer keys = first != nullptr ? UnionKeyring({first, &keyring_}).lookup_until(keyring_name, repository, deadline)
                                                : keyring_.lookup_until(keyring_name, repository, deadline);
    HttpResponse answer;
    if (keys.credentials.empty()) {
        answer = attempt(host, repository, nullptr, request, deadline);
    } else {
        // Each credential until one is answered, as the kubelet's pull loop
        // tries each (pkg/kubelet/kuberuntime/kuberuntime_image.go, PullImage):
        // a 404 to one credential may be a registry hiding the repository
        // from it, so it is told only where every credential was told so.
        std::optional<HttpResponse> refused;
        std::size_t tried = 0;
        for (const RegistryCredential& credential : keys.credentials) {
            answer = attempt(host, repository, &credential, request, deadline);
            ++tried;
            if (answer.failure == RegistryFailure::none && answer.status >= 200 && answer.status < 300) return answer;
            const bool unknown = answer.failure == RegistryFailure::none && answer.status == 404;
            if (!unknown && !refused) refused = answer;
            if (std::chrono::steady_clock::now() >= deadline) break;
        }
        if (refused) {
            answer = std::move(*refused);
        } else if (tried < keys.credentials.size()) {
            // Every credential tried said 404, and the deadline came before the rest: nothing certain.
            answer.failure = RegistryFailure::timeout;
            answer.error = "the deadline came after " + std::to_string(tried) + " of " + std::to_string(keys.credentials.size()) +
                           " credentials for " + host.authority() + " were told 404";
            answer.incomplete = true;
        }
    }
    const bool answered = answer.failure == RegistryFailure::none && answer.status >= 200 && answer.status < 300;
    if (!answered && !keys.problem.empty()) {
        // A source of credentials could not answer: the one it would have
        // given was not tried, so a refusal or a 404 says nothing certain.
        if (answer.failure == RegistryFailure::none) {
            answer.failure = RegistryFailure::unauthorized;
            answer.error = host.authority() + " answered " + std::to_string(answer.status) + " without every credential tried";
        }
        answer.error = keys.problem + "; " + answer.error;
        answer.log_error = keys.log_problem;
        answer.incomplete = true;
    }
    return answer;
}

std::size_t Authorizer::tokens_kept() const {
    std::lock_guard lock(mutex_);
    return tokens_.size();
}

}  // namespace miw::server
