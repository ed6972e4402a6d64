// The Transport of registry lookups on libcurl (design.md 1.6): connections
// kept alive on a few reused easy handles, DNS and TLS sessions shared
// between them, HTTPS_PROXY / NO_PROXY honoured as every Go client and
// containerd honour them, deadlines as CURLOPT_TIMEOUT_MS, every answer
// capped while it is read, TLS always verified (the system's roots plus
// --registry-ca), no redirect followed, http and https only. No libcurl in
// this header.
#pragma once

#include "transport.hpp"

#include "model_image_webhook/result.hpp"

#include <memory>
#include <string>

namespace miw::server {

class CurlTransport : public Transport {
public:
    // ca_file: --registry-ca, added to the system's roots. Fails when it cannot be loaded.
    static Result<std::unique_ptr<CurlTransport>> create(const std::string& ca_file);
    ~CurlTransport() override;

    HttpResponse send(const HttpRequest& request, Deadline deadline) const override;

private:
    struct Impl;
    explicit CurlTransport(std::unique_ptr<Impl> impl);
    std::unique_ptr<Impl> impl_;
};

}  // namespace miw::server
