// The webhook server: owns its listeners, I/O threads, TLS contexts and their
// reload, the Kubernetes API client and the version refresh, and drains on
// SIGTERM. Boost stays behind the pointer, out of the command's way.
#pragma once

#include "serve_config.hpp"

#include "model_image_webhook/result.hpp"

#include <memory>

namespace miw::server {

class Server {
public:
    explicit Server(ServeConfig config);
    ~Server();
    Server(const Server&) = delete;
    Server& operator=(const Server&) = delete;

    // Loads the certificate and binds the addresses; a failure says why it
    // cannot (start-up errors, before anything is served).
    Status start();

    // Serves until SIGTERM or SIGINT has drained the connections; the exit code.
    int run();

private:
    class Impl;
    std::unique_ptr<Impl> impl_;
};

}  // namespace miw::server
