#include "config_files.hpp"

#include "model_image_webhook/registry_answers.hpp"

#include <dirent.h>
#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>

namespace miw::server {

namespace {

constexpr int kMaxDepth = 3;

void print_stat(std::string& out, const std::string& path, const struct stat& st) {
    out += path;
    out += ' ';
    out += std::to_string(st.st_dev) + ':' + std::to_string(st.st_ino) + ':' + std::to_string(st.st_size) + ':' + std::to_string(st.st_mtim.tv_sec) + '.' +
           std::to_string(st.st_mtim.tv_nsec);
    out += '\n';
}

void print_path(std::string& out, const std::string& path, int depth) {
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0) {
        out += path + " absent\n";
        return;
    }
    print_stat(out, path, st);
    // A link's own target too: a `..data` swap may keep the target's inode (a hard-linked copy).
    struct stat link {};
    if (::lstat(path.c_str(), &link) == 0 && S_ISLNK(link.st_mode)) {
        char target[4096];
        const ssize_t n = ::readlink(path.c_str(), target, sizeof target);
        if (n > 0) out += "-> " + std::string(target, static_cast<std::size_t>(n)) + '\n';
    }
    if (!S_ISDIR(st.st_mode) || depth >= kMaxDepth) return;
    for (const std::string& name : names_in(path).value_or(std::vector<std::string>())) print_path(out, path + "/" + name, depth + 1);
}

}  // namespace

std::optional<std::vector<std::string>> names_in(const std::string& dir) {
    DIR* d = ::opendir(dir.c_str());
    if (d == nullptr) return std::nullopt;
    std::vector<std::string> out;
    while (const dirent* e = ::readdir(d)) {
        const std::string name = e->d_name;
        if (name != "." && name != "..") out.push_back(name);
    }
    ::closedir(d);
    std::sort(out.begin(), out.end());
    return out;
}

Result<std::string> read_config_file(const std::string& path) {
    std::FILE* file = std::fopen(path.c_str(), "rb");
    if (file == nullptr) return fail("cannot read " + path + ": " + std::strerror(errno));
    std::string out;
    char chunk[65536];
    std::size_t n = 0;
    while ((n = std::fread(chunk, 1, sizeof chunk, file)) > 0) {
        if (out.size() + n > kMaxConfigFileBytes) {
            std::fclose(file);
            return fail("cannot read " + path + ": it is larger than " + std::to_string(kMaxConfigFileBytes >> 20) + " MiB");
        }
        out.append(chunk, n);
    }
    const bool failed = std::ferror(file) != 0;
    const int read_errno = errno;
    std::fclose(file);
    if (failed) return fail("cannot read " + path + ": " + std::strerror(read_errno));
    return out;
}

Result<KubeletKeyring> read_auth_file(const std::string& path) {
    Result<std::string> text = read_config_file(path);
    if (!text) return fail("--registry-auth: " + text.error());
    Result<KubeletKeyring> credentials = read_docker_config(*text);
    if (!credentials) return fail("--registry-auth " + path + ": " + credentials.error());
    return credentials;
}

Result<CredentialProviderConfig> read_provider_config_file(const std::string& path) {
    Result<std::string> text = read_config_file(path);
    if (!text) return fail("--image-credential-provider-config: " + text.error());
    Result<CredentialProviderConfig> config = read_credential_provider_config(*text);
    if (!config) return fail("--image-credential-provider-config " + path + ": " + config.error());
    return config;
}

std::string files_fingerprint(const std::vector<std::string>& paths) {
    std::string out;
    for (const std::string& path : paths) {
        if (!path.empty()) print_path(out, path, 0);
    }
    return out;
}

}  // namespace miw::server
