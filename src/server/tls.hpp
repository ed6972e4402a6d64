// The serving TLS context, re-read when its files change: new connections
// get the new certificate, open ones finish on the one they started with. A
// pair that does not load leaves the previous one serving.
#pragma once

#include "metrics.hpp"

#include "model_image_webhook/result.hpp"

#include <boost/asio/ssl/context.hpp>

#include <memory>
#include <mutex>
#include <string>

namespace miw::server {

struct TlsFiles {
    std::string cert;  // PEM chain, leaf first
    std::string key;
    std::string client_ca;  // empty: no client certificates asked for
};

class TlsContextProvider {
public:
    TlsContextProvider(TlsFiles files, Metrics& metrics) : files_(std::move(files)), metrics_(metrics) {}

    // The first load: a failure when the files do not make a serving context.
    Status load();

    // Re-reads the files; loads them when their contents changed. Reports a
    // pair that fails once, until the files change again.
    void poll();

    std::shared_ptr<boost::asio::ssl::context> current() const;

private:
    struct Contents {
        std::string cert, key, client_ca;
        bool operator==(const Contents& o) const { return cert == o.cert && key == o.key && client_ca == o.client_ca; }
    };
    Result<Contents> read_files() const;
    Status install(const Contents& contents);

    TlsFiles files_;
    Metrics& metrics_;
    mutable std::mutex mutex_;
    std::shared_ptr<boost::asio::ssl::context> current_;
    Contents loaded_;
    Contents last_failed_;
};

}  // namespace miw::server
