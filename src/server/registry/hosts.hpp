// The hosts to ask for a registry, in order, as containerd's RegistryHosts
// gives them: the registry name of a locator says nothing of where to
// connect. The default provider is the flags' (Docker Hub's API host for
// "docker.io", plain HTTP for --registry-insecure); a hosts.toml directory
// is another provider of the same shape.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace miw::server {

enum HostCapability : unsigned { kHostPull = 1u, kHostResolve = 2u, kHostPush = 4u };

struct RegistryHost {
    std::string scheme = "https";  // "https" or "http"
    std::string host;  // "registry-1.docker.io", "127.0.0.1", "::1" (no brackets)
    std::string port;  // empty: the scheme's own
    std::string path_prefix = "/v2";  // what /<repository>/manifests/<digest> is appended to
    unsigned capabilities = kHostPull | kHostResolve;
    std::vector<std::pair<std::string, std::string>> headers;  // sent with every request to this host
    std::vector<std::string> ca_files;  // trusted for this host besides the system's roots and --registry-ca (a hosts.toml's `ca`)
    bool skip_verify = false;  // TLS without verification (a hosts.toml's skip_verify)
    // What the keyring matches credentials by: the image's registry name,
    // for its mirrors as for its own host (the kubelet matches
    // "docker.io/library/qwen", not registry-1.docker.io nor a mirror's
    // name: hosts_dir.cpp cites the code); empty: the authority.
    std::string keyring_name;

    // host[:port], an IPv6 host in brackets: what the Host header and the
    // keyring name, and what challenges and tokens are kept by.
    std::string authority() const;
    // scheme://authority<path_prefix><path>
    std::string url(std::string_view path) const;
};

class RegistryHosts {
public:
    virtual ~RegistryHosts() = default;
    virtual std::vector<RegistryHost> hosts_for(std::string_view registry) const = 0;
};

// The flags' hosts: one per registry, over HTTPS but for the authorities
// (or bare hosts) named in --registry-insecure.
class FlagRegistryHosts : public RegistryHosts {
public:
    explicit FlagRegistryHosts(std::vector<std::string> insecure) : insecure_(std::move(insecure)) {}
    std::vector<RegistryHost> hosts_for(std::string_view registry) const override;
    // Whether plain HTTP may be spoken to this authority (a token realm's too).
    bool insecure(std::string_view authority, std::string_view host) const;

private:
    std::vector<std::string> insecure_;
};

}  // namespace miw::server
