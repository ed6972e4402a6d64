// The hosts of a registry as a containerd config_path directory gives them
// (--registry-hosts-dir, design.md 1.9): DIR/HOST[:PORT]/hosts.toml (the
// directory "host_port_" first where there is a port), else
// DIR/_default/hosts.toml; [host."URL"] entries in file order, then the
// server. A directory without a hosts.toml lends its *.crt files to the
// registry's own host, as Docker's certs.d layout does. A registry the
// directory does not name is asked as the flags say. A file that cannot be
// read or parsed fails the load, naming it (at start, the start stops; on a
// reload, the last good directory stays: lookups.hpp).
#pragma once

#include "hosts.hpp"

#include "model_image_webhook/hosts_toml.hpp"
#include "model_image_webhook/result.hpp"

#include <map>
#include <memory>
#include <string>
#include <vector>

namespace miw::server {

class HostsDirectory : public RegistryHosts {
public:
    static Result<std::unique_ptr<HostsDirectory>> load(const std::string& dir, FlagRegistryHosts fallback);

    std::vector<RegistryHost> hosts_for(std::string_view registry) const override;
    // Whether plain HTTP may be spoken to this authority: the flags allow it,
    // or a hosts.toml names it with http://.
    bool insecure(std::string_view authority, std::string_view host) const;
    // "DIR/NAME: URL" of every host whose certificate is not verified, for the start-up log.
    std::vector<std::string> unverified() const { return unverified_; }
    // "DIR/NAME: ..." of what the webhook reads but does not do (client certificates).
    std::vector<std::string> notes() const { return notes_; }
    std::size_t directories() const { return dirs_.size(); }
    // Every CA file a host names, wherever it is: what a reload watches besides the directory.
    const std::vector<std::string>& ca_files() const { return ca_files_; }

private:
    explicit HostsDirectory(FlagRegistryHosts fallback) : fallback_(std::move(fallback)) {}

    FlagRegistryHosts fallback_;
    std::map<std::string, std::vector<HostsFileEntry>, std::less<>> dirs_;  // by directory name
    std::vector<std::string> plain_authorities_;
    std::vector<std::string> unverified_;
    std::vector<std::string> notes_;
    std::vector<std::string> ca_files_;
};

}  // namespace miw::server
