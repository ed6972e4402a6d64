// A Transport that answers from a script and keeps every request it was
// sent, for the authorizer's and the client's tests.
#pragma once

#include "../../../src/server/registry/transport.hpp"

#include "model_image_webhook/registry/keyring.hpp"

#include <functional>
#include <mutex>
#include <string>
#include <vector>

namespace miw::server::test {

class ScriptedTransport : public Transport {
public:
    explicit ScriptedTransport(std::function<HttpResponse(const HttpRequest&)> script) : script_(std::move(script)) {}

    HttpResponse send(const HttpRequest& request, Deadline) const override {
        std::lock_guard lock(mutex_);
        sent.push_back(request);
        return script_(request);
    }

    mutable std::vector<HttpRequest> sent;

private:
    std::function<HttpResponse(const HttpRequest&)> script_;
    mutable std::mutex mutex_;
};

// A node with no credentials at all.
class NoKeys : public Keyring {
public:
    std::vector<RegistryCredential> lookup(std::string_view, std::string_view) const override { return {}; }
};

inline HttpResponse answer(int status, std::string body = {}, std::string content_type = {}) {
    HttpResponse a;
    a.status = status;
    a.body = std::move(body);
    a.content_type = std::move(content_type);
    return a;
}

inline HttpResponse challenge(std::vector<std::string> fields) {
    HttpResponse a = answer(401, R"({"errors":[{"code":"UNAUTHORIZED"}]})", "application/json");
    a.www_authenticate = std::move(fields);
    return a;
}

// The value of a request's header, empty when it has none.
inline std::string header_of(const HttpRequest& r, std::string_view name) {
    for (const auto& [n, v] : r.headers) {
        if (n == name) return v;
    }
    return {};
}

inline bool url_starts(const HttpRequest& r, std::string_view prefix) { return r.url.rfind(prefix, 0) == 0; }

}  // namespace miw::server::test
