// Requests to a registry host with the credentials it asks for, as
// containerd's docker authorizer sends them: the host's last challenge
// answered at once, else after its 401 (every WWW-Authenticate field read,
// Bearer preferred); Bearer tokens fetched from the challenge's realm and
// kept for their lifetime; the keyring's credentials tried in order. What is
// kept (challenges, tokens) is keyed by the host actually contacted and the
// credential's identity, so nothing one host or one credential earned is
// sent to another. Over any Transport: its state machine is unit-tested
// against a scripted one. No Boost, no libcurl here.
#pragma once

#include "hosts.hpp"
#include "transport.hpp"

#include "model_image_webhook/registry/keyring.hpp"
#include "model_image_webhook/registry/challenge.hpp"

#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <string>

namespace miw::server {

inline constexpr std::size_t kMaxTokenAnswerBytes = 1u << 20;

// The scopes a token is asked for, as containerd's GenerateTokenOptions and
// GetTokenScopes make them (core/remotes/docker/auth/fetch.go,
// scope.go): pull on the repository asked for, and every scope the
// challenge names (a Harbor proxy cache behind override_path names
// "repository:PROJECT/...:pull"), sorted, each once.
std::vector<std::string> token_scopes(std::string_view challenge_scope, std::string_view repository);

class Authorizer {
public:
    // plain_http_ok: whether a token realm on plain HTTP may be asked (its authority, its host).
    Authorizer(const Transport& transport, const Keyring& keyring, std::function<bool(std::string_view, std::string_view)> plain_http_ok)
        : transport_(transport), keyring_(keyring), plain_http_ok_(std::move(plain_http_ok)) {}

    // `request` (its url on `host`) for pulling from `repository`, with the
    // credentials of `first` (a Pod's pull secrets; may be null) tried
    // before the keyring's, as the kubelet unions them. Every credential is
    // tried until one is answered 2xx, moving on after any failure as the
    // kubelet's pull loop does (a registry may hide a repository from a
    // wrong credential with a 404); a 404 comes back only where every
    // credential was answered 404. A 401 or 403 that no credential overcame
    // comes back as failure unauthorized.
    HttpResponse send(const RegistryHost& host, std::string_view repository, HttpRequest request, const Keyring* first, Deadline deadline) const;
    HttpResponse send(const RegistryHost& host, std::string_view repository, HttpRequest request, Deadline deadline) const {
        return send(host, repository, std::move(request), nullptr, deadline);
    }

    // How many tokens are kept (bounded).
    std::size_t tokens_kept() const;

private:
    struct Token {
        std::string value;
        std::chrono::steady_clock::time_point expires;
    };
    HttpResponse attempt(const RegistryHost& host, std::string_view repository, const RegistryCredential* credential, const HttpRequest& request,
                         Deadline deadline) const;
    // The Authorization a challenge calls for (a token kept, unless `fresh`), or why there is none.
    Result<std::string> authorization_for(const AuthChallenge& challenge, const RegistryHost& host, std::string_view repository,
                                          const RegistryCredential* credential, bool fresh, Deadline deadline, RegistryFailure& failure) const;
    Result<std::string> token_for(const AuthChallenge& challenge, const RegistryHost& host, std::string_view repository,
                                  const RegistryCredential* credential, bool fresh, Deadline deadline, RegistryFailure& failure) const;
    std::string token_key(const AuthChallenge& challenge, const RegistryHost& host, const std::vector<std::string>& scopes,
                          const RegistryCredential* credential) const;

    const Transport& transport_;
    const Keyring& keyring_;
    std::function<bool(std::string_view, std::string_view)> plain_http_ok_;
    mutable std::mutex mutex_;
    mutable std::map<std::string, AuthChallenge, std::less<>> challenges_;  // by scheme://authority of the host contacted
    mutable std::map<std::string, Token, std::less<>> tokens_;  // by host, realm, service, scopes and credential identity
};

}  // namespace miw::server
