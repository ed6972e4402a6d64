#include "hosts_dir.hpp"

#include "config_files.hpp"

#include <sys/stat.h>

#include <algorithm>
#include <fstream>
#include <sstream>

namespace miw::server {

namespace {

constexpr std::size_t kMaxHostsFileBytes = 1u << 20;

bool is_directory(const std::string& path) {
    struct stat st {};
    return ::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

enum class Read { ok, missing, failed };

Read read_file(const std::string& path, std::string& out) {
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0) return Read::missing;
    if (!S_ISREG(st.st_mode) || static_cast<std::size_t>(st.st_size) > kMaxHostsFileBytes) return Read::failed;
    std::ifstream in(path, std::ios::binary);
    if (!in) return Read::failed;
    std::ostringstream text;
    text << in.rdbuf();
    out = text.str();
    return Read::ok;
}

// A directory without hosts.toml: its *.crt files are CAs of the registry's own host.
HostsFileEntry certs_d_entry(const std::string& dir, const std::vector<std::string>& names) {
    HostsFileEntry entry;
    for (const std::string& n : names) {
        if (n.size() > 4 && n.compare(n.size() - 4, 4, ".crt") == 0) entry.ca_files.push_back(dir + "/" + n);
    }
    return entry;
}

}  // namespace

Result<std::unique_ptr<HostsDirectory>> HostsDirectory::load(const std::string& dir, FlagRegistryHosts fallback) {
    const auto names = names_in(dir);
    if (!names) return fail("--registry-hosts-dir " + dir + " cannot be read: name containerd's config_path directory (DIR/HOST/hosts.toml)");
    std::unique_ptr<HostsDirectory> out(new HostsDirectory(std::move(fallback)));
    for (const std::string& name : *names) {
        const std::string sub = dir + "/" + name;
        if (!is_directory(sub)) continue;
        std::string text;
        const std::string file = sub + "/hosts.toml";
        const Read read = read_file(file, text);
        if (read == Read::failed) return fail("--registry-hosts-dir: " + file + " cannot be read (a regular file of at most 1 MiB)");
        std::vector<HostsFileEntry> entries;
        if (read == Read::missing) {
            entries.push_back(certs_d_entry(sub, names_in(sub).value_or(std::vector<std::string>())));
        } else {
            Result<HostsFile> parsed = read_hosts_toml(text, sub);
            if (!parsed) return fail("--registry-hosts-dir: " + file + ": " + parsed.error());
            entries = std::move(parsed->hosts);
        }
        for (const HostsFileEntry& e : entries) {
            const std::string where = sub + ": " + (e.host.empty() ? std::string("the registry's own host") : e.scheme + "://" + e.host + (e.port.empty() ? "" : ":" + e.port));
            if (e.skip_verify.value_or(false)) out->unverified_.push_back(where);
            if (e.client_certificates) out->notes_.push_back(where + ": client certificates are not presented by the webhook");
            if (e.scheme == "http") {
                RegistryHost h;
                h.host = e.host;
                h.port = e.port;
                out->plain_authorities_.push_back(h.authority());
            }
            for (const std::string& ca : e.ca_files) {
                std::string ignored;
                if (read_file(ca, ignored) != Read::ok) return fail("--registry-hosts-dir: " + where + ": its ca " + ca + " cannot be read");
                out->ca_files_.push_back(ca);
            }
        }
        out->dirs_.emplace(name, std::move(entries));
    }
    return out;
}

bool HostsDirectory::insecure(std::string_view authority, std::string_view host) const {
    return fallback_.insecure(authority, host) || std::find(plain_authorities_.begin(), plain_authorities_.end(), authority) != plain_authorities_.end();
}

std::vector<RegistryHost> HostsDirectory::hosts_for(std::string_view registry) const {
    const std::vector<HostsFileEntry>* entries = nullptr;
    for (const std::string& name : hosts_directories(registry)) {
        if (const auto it = dirs_.find(name); it != dirs_.end()) {
            entries = &it->second;
            break;
        }
    }
    std::vector<RegistryHost> own_host = fallback_.hosts_for(registry);
    if (entries == nullptr) return own_host;
    std::vector<RegistryHost> out;
    for (const HostsFileEntry& e : *entries) {
        RegistryHost h;
        if (e.host.empty()) {
            // No server set: the registry itself, as the flags reach it.
            if (own_host.empty()) continue;
            h = own_host.front();
        } else {
            h.scheme = e.scheme;
            h.host = e.host;
            h.port = e.port;
            h.path_prefix = e.path;
        }
        // Every host, mirror or server, is sent the credentials the image's
        // own name selects, as the node sends them: the kubelet matches its
        // keyring against the image (pkg/credentialprovider/keyring.go,
        // BasicDockerKeyring.Lookup) and hands each match to the CRI with no
        // ServerAddress (Add sets none; kuberuntime_image.go PullImage copies
        // it), and containerd's ParseAuth gives a credential without a
        // ServerAddress to every host it contacts
        // (internal/cri/server/images/image_pull.go; the same credentials
        // function serves each host of hosts.toml, core/remotes/docker/config/hosts.go).
        // A credential keyed by a mirror's name is for images named after
        // the mirror, and is not sent to it for another registry's image.
        h.keyring_name = std::string(registry);
        h.capabilities = (e.pull ? kHostPull : 0u) | (e.resolve ? kHostResolve : 0u);
        h.ca_files = e.ca_files;
        h.skip_verify = e.skip_verify.value_or(false);
        h.headers = e.headers;
        out.push_back(std::move(h));
    }
    return out;
}

}  // namespace miw::server
