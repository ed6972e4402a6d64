#include "model_image_webhook/hosts_toml.hpp"

#include <toml++/toml.h>

#include <algorithm>
#include <cctype>

namespace miw {

namespace {

// Go's path.Clean, for the API root: no doubled, trailing or dot segments.
std::string clean_path(std::string_view path) {
    std::vector<std::string_view> parts;
    for (std::size_t start = 0; start <= path.size();) {
        const std::size_t slash = std::min(path.find('/', start), path.size());
        const std::string_view part = path.substr(start, slash - start);
        if (part == "..") {
            if (!parts.empty()) parts.pop_back();
        } else if (!part.empty() && part != ".") {
            parts.push_back(part);
        }
        start = slash + 1;
    }
    std::string out;
    for (std::string_view p : parts) {
        out += '/';
        out += p;
    }
    return out.empty() ? "/" : out;
}

// "https://host:port/path" (a server without a scheme is https) into the entry.
std::optional<std::string> parse_server(std::string server, bool override_path, HostsFileEntry& out) {
    // As containerd: a server without a scheme is https; one with another scheme is refused.
    if (server.find("://") == std::string::npos) server = "https://" + server;
    const std::size_t scheme_end = server.find("://");
    if (scheme_end == std::string::npos) return "\"" + server + "\" is not a URL";
    out.scheme = server.substr(0, scheme_end);
    if (out.scheme != "https" && out.scheme != "http") return "\"" + server + "\" is neither https nor http";
    std::string_view rest = std::string_view(server).substr(scheme_end + 3);
    const std::size_t path_start = rest.find_first_of("/?#");
    std::string_view authority = rest.substr(0, path_start);
    std::string_view path = path_start == std::string_view::npos ? std::string_view() : rest.substr(path_start);
    path = path.substr(0, path.find_first_of("?#"));
    if (authority.empty() || authority.find('@') != std::string_view::npos) return "\"" + server + "\" names no host";
    if (authority.front() == '[') {
        const std::size_t close = authority.find(']');
        if (close == std::string_view::npos) return "\"" + server + "\" has an unclosed IPv6 address";
        out.host = std::string(authority.substr(1, close - 1));
        const std::string_view after = authority.substr(close + 1);
        if (!after.empty() && after.front() != ':') return "\"" + server + "\" has something after its IPv6 address";
        if (!after.empty()) out.port = std::string(after.substr(1));
    } else if (const std::size_t colon = authority.rfind(':'); colon != std::string_view::npos) {
        out.host = std::string(authority.substr(0, colon));
        out.port = std::string(authority.substr(colon + 1));
    } else {
        out.host = std::string(authority);
    }
    if (out.host.empty() || out.host.find_first_of(" \t/\\") != std::string::npos) return "\"" + server + "\" names no usable host";
    if (!std::all_of(out.port.begin(), out.port.end(), [](unsigned char c) { return std::isdigit(c) != 0; }) || out.port.size() > 5) {
        return "\"" + server + "\" has a port that is not a number";
    }
    if (!path.empty()) {
        out.path = clean_path(path);
        if (!override_path && (out.path.size() < 3 || out.path.compare(out.path.size() - 3, 3, "/v2") != 0)) out.path += out.path == "/" ? "v2" : "/v2";
    } else {
        out.path = override_path ? "" : "/v2";
    }
    return std::nullopt;
}

std::string absolute(const std::string& path, std::string_view base) {
    if (!path.empty() && path.front() == '/') return path;
    std::string out(base);
    if (!out.empty() && out.back() != '/') out += '/';
    return out + path;
}

// The settings of one host (a [host."..."] table, or the file's top level).
std::optional<std::string> read_settings(const toml::table& table, std::string_view base_dir, HostsFileEntry& out) {
    if (const toml::node* caps = table.get("capabilities")) {
        const toml::array* list = caps->as_array();
        if (list == nullptr) return std::string("capabilities is not a list");
        if (!list->empty()) {
            out.pull = out.resolve = false;
            for (const toml::node& c : *list) {
                const std::optional<std::string> name = c.value<std::string>();
                if (!name) return std::string("capabilities holds something other than a string");
                std::string lower = *name;
                std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char ch) { return static_cast<char>(std::tolower(ch)); });
                if (lower == "pull") out.pull = true;
                else if (lower == "resolve") out.resolve = true;
                else if (lower != "push") return "unknown capability \"" + *name + "\"";
            }
        }
    }
    if (const toml::node* ca = table.get("ca")) {
        if (const std::optional<std::string> one = ca->value<std::string>()) {
            out.ca_files.push_back(absolute(*one, base_dir));
        } else if (const toml::array* list = ca->as_array()) {
            for (const toml::node& c : *list) {
                const std::optional<std::string> file = c.value<std::string>();
                if (!file) return std::string("ca holds something other than a path");
                out.ca_files.push_back(absolute(*file, base_dir));
            }
        } else {
            return std::string("ca is neither a path nor a list of paths");
        }
    }
    if (const toml::node* skip = table.get("skip_verify")) {
        const std::optional<bool> value = skip->value<bool>();
        if (!value) return std::string("skip_verify is not true or false");
        out.skip_verify = *value;
    }
    if (const toml::node* header = table.get("header")) {
        const toml::table* fields = header->as_table();
        if (fields == nullptr) return std::string("header is not a table");
        for (const auto& [key, value] : *fields) {
            const std::string name(key.str());
            if (const std::optional<std::string> one = value.value<std::string>()) {
                out.headers.emplace_back(name, *one);
            } else if (const toml::array* list = value.as_array()) {
                for (const toml::node& v : *list) {
                    const std::optional<std::string> text = v.value<std::string>();
                    if (!text) return "header \"" + name + "\" holds something other than a string";
                    out.headers.emplace_back(name, *text);
                }
            } else {
                return "header \"" + name + "\" is neither a string nor a list of strings";
            }
        }
    }
    out.client_certificates = table.contains("client");
    return std::nullopt;
}

bool override_path_of(const toml::table& table) { return table["override_path"].value_or(false); }

}  // namespace

Result<HostsFile> read_hosts_toml(std::string_view text, std::string_view base_dir) {
    toml::table root;
    try {
        root = toml::parse(text);
    } catch (const toml::parse_error& e) {
        return fail("not TOML (line " + std::to_string(e.source().begin.line) + ", column " + std::to_string(e.source().begin.column) +
                    "): " + std::string(e.description()));
    }
    HostsFile out;
    if (const toml::node* hosts = root.get("host")) {
        const toml::table* table = hosts->as_table();
        if (table == nullptr) return fail("host is not a table of [host.\"URL\"] tables");
        // toml++ keeps keys sorted; containerd asks hosts in the order the file writes them.
        std::vector<std::pair<const toml::key*, const toml::table*>> ordered;
        for (const auto& [key, value] : *table) {
            const toml::table* host = value.as_table();
            if (host == nullptr) return fail("host \"" + std::string(key.str()) + "\" is not a table");
            ordered.emplace_back(&key, host);
        }
        std::stable_sort(ordered.begin(), ordered.end(), [](const auto& a, const auto& b) {
            const toml::source_position& x = a.first->source().begin;
            const toml::source_position& y = b.first->source().begin;
            return x.line != y.line ? x.line < y.line : x.column < y.column;
        });
        for (const auto& [key, host] : ordered) {
            HostsFileEntry entry;
            const std::string url(key->str());
            if (auto problem = parse_server(url, override_path_of(*host), entry)) return fail("host " + *problem);
            if (auto problem = read_settings(*host, base_dir, entry)) return fail("host \"" + url + "\": " + *problem);
            out.hosts.push_back(std::move(entry));
        }
    }
    HostsFileEntry server;
    const toml::node* named = root.get("server");
    if (named != nullptr) {
        const std::optional<std::string> url = named->value<std::string>();
        if (!url) return fail("server is not a string");
        if (!url->empty()) {
            if (auto problem = parse_server(*url, override_path_of(root), server)) return fail("server " + *problem);
        }
    }
    if (auto problem = read_settings(root, base_dir, server)) return fail(*problem);
    out.hosts.push_back(std::move(server));
    return out;
}

std::vector<std::string> hosts_directories(std::string_view registry) {
    std::vector<std::string> out;
    if (const std::size_t colon = registry.rfind(':'); colon != std::string_view::npos && colon > 0) {
        out.push_back(std::string(registry.substr(0, colon)) + "_" + std::string(registry.substr(colon + 1)) + "_");
    }
    out.emplace_back(registry);
    out.emplace_back("_default");
    return out;
}

}  // namespace miw
