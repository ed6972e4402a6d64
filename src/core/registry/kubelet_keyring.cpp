#include "model_image_webhook/registry/kubelet_keyring.hpp"

#include <fnmatch.h>

#include <algorithm>
#include <functional>

namespace miw {

namespace {

constexpr std::string_view kDefaultRegistryHost = "index.docker.io";

struct SchemelessUrl {
    std::string_view host;  // host[:port]
    std::string_view path;  // "" or "/..."
};

SchemelessUrl parse_schemeless(std::string_view text) {
    SchemelessUrl out;
    const std::size_t slash = text.find('/');
    out.host = text.substr(0, slash);
    if (const std::size_t at = out.host.rfind('@'); at != std::string_view::npos) out.host.remove_prefix(at + 1);
    if (slash != std::string_view::npos) out.path = text.substr(slash);
    // Go's url.Parse leaves the query and fragment out of the path.
    out.path = out.path.substr(0, out.path.find_first_of("?#"));
    return out;
}

// net.SplitHostPort, or the whole as the host: its labels, and its port.
void split_host(std::string_view host, std::vector<std::string_view>& labels, std::string_view& port) {
    port = {};
    if (!host.empty() && host.front() == '[') {
        const std::size_t close = host.find(']');
        if (close != std::string_view::npos && close + 1 < host.size() && host[close + 1] == ':') {
            port = host.substr(close + 2);
            host = host.substr(1, close - 1);
        }
    } else if (const std::size_t colon = host.find(':'); colon != std::string_view::npos && host.find(':', colon + 1) == std::string_view::npos) {
        port = host.substr(colon + 1);
        host = host.substr(0, colon);
    }
    labels.clear();
    for (std::size_t start = 0;;) {
        const std::size_t dot = host.find('.', start);
        labels.push_back(host.substr(start, dot == std::string_view::npos ? std::string_view::npos : dot - start));
        if (dot == std::string_view::npos) break;
        start = dot + 1;
    }
}

// Whether the image pulls from Docker Hub by the look of its name (isDefaultRegistryMatch).
bool is_default_registry_match(std::string_view image) {
    const std::size_t slash = image.find('/');
    const std::string_view first = image.substr(0, slash);
    if (first.empty()) return false;
    if (slash == std::string_view::npos) return true;
    if (first == "docker.io" || first == "index.docker.io") return true;
    return first.find_first_of(".:") == std::string_view::npos;
}

}  // namespace

std::string kubelet_keyring_key(std::string_view location) {
    for (std::string_view scheme : {"https://", "http://"}) {
        if (location.substr(0, scheme.size()) == scheme) {
            location.remove_prefix(scheme.size());
            break;
        }
    }
    const SchemelessUrl url = parse_schemeless(location);
    std::string_view path = url.path;
    if (path.substr(0, 4) == "/v2/" || path.substr(0, 4) == "/v1/") path.remove_prefix(3);
    std::string key(url.host);
    if (!path.empty() && path != "/") key += path;
    return key;
}

bool kubelet_key_matches(std::string_view key, std::string_view image) {
    const SchemelessUrl glob = parse_schemeless(key);
    const SchemelessUrl target = parse_schemeless(image);
    std::vector<std::string_view> glob_labels, target_labels;
    std::string_view glob_port, target_port;
    split_host(glob.host, glob_labels, glob_port);
    split_host(target.host, target_labels, target_port);
    if (glob_port != target_port || glob_labels.size() != target_labels.size()) return false;
    if (target.path.substr(0, glob.path.size()) != glob.path) return false;
    for (std::size_t i = 0; i < glob_labels.size(); ++i) {
        // filepath.Match on one label: '*', '?' and classes, no separator inside a label.
        const std::string pattern(glob_labels[i]);
        const std::string label(target_labels[i]);
        if (fnmatch(pattern.c_str(), label.c_str(), 0) != 0) return false;
    }
    return true;
}

void KubeletKeyring::add(std::string_view location, RegistryCredential credential) {
    std::string key = kubelet_keyring_key(location);
    if (key.empty()) return;
    auto& list = creds_[key];
    list.push_back(std::move(credential));
    if (std::find(index_.begin(), index_.end(), key) == index_.end()) {
        index_.push_back(std::move(key));
        std::sort(index_.begin(), index_.end(), std::greater<>());
    }
}

void KubeletKeyring::add_all(const KubeletKeyring& other) {
    for (const auto& [key, list] : other.creds_) {
        for (const RegistryCredential& credential : list) add(key, credential);
    }
}

std::size_t KubeletKeyring::bytes() const {
    std::size_t total = sizeof(*this);
    for (const auto& [key, list] : creds_) {
        total += 2 * key.size() + 96;  // the key in the map and the index, and the nodes around it
        for (const RegistryCredential& c : list) total += sizeof c + c.username.size() + c.password.size();
    }
    return total;
}

std::vector<RegistryCredential> KubeletKeyring::lookup_image(std::string_view image) const {
    std::vector<RegistryCredential> out;
    for (const std::string& key : index_) {
        if (!kubelet_key_matches(key, image)) continue;
        const auto& found = creds_.find(key)->second;
        out.insert(out.end(), found.begin(), found.end());
    }
    if (out.empty() && is_default_registry_match(image)) {
        if (const auto it = creds_.find(kDefaultRegistryHost); it != creds_.end()) out = it->second;
    }
    return out;
}

std::vector<RegistryCredential> KubeletKeyring::lookup(std::string_view registry, std::string_view repository) const {
    std::string image(registry);
    image += '/';
    image += repository;
    return lookup_image(image);
}

namespace {

void append_new(std::vector<RegistryCredential>& out, std::vector<RegistryCredential>& found) {
    for (RegistryCredential& c : found) {
        const bool held = std::any_of(out.begin(), out.end(), [&](const RegistryCredential& k) { return k.username == c.username && k.password == c.password; });
        if (!held) out.push_back(std::move(c));
    }
}

}  // namespace

std::vector<RegistryCredential> UnionKeyring::lookup(std::string_view registry, std::string_view repository) const {
    std::vector<RegistryCredential> out;
    for (const Keyring* part : parts_) {
        std::vector<RegistryCredential> found = part->lookup(registry, repository);
        append_new(out, found);
    }
    return out;
}

KeyringAnswer UnionKeyring::lookup_until(std::string_view registry, std::string_view repository, Deadline deadline) const {
    KeyringAnswer out;
    for (const Keyring* part : parts_) {
        KeyringAnswer found = part->lookup_until(registry, repository, deadline);
        append_new(out.credentials, found.credentials);
        if (!found.problem.empty()) out.problem += (out.problem.empty() ? "" : "; ") + found.problem;
        if (!found.log_problem.empty()) out.log_problem += (out.log_problem.empty() ? "" : "; ") + found.log_problem;
    }
    return out;
}

}  // namespace miw
