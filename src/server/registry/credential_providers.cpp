#include "credential_providers.hpp"

#include "model_image_webhook/text.hpp"

#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

extern char** environ;

namespace miw::server {

namespace {

// A plugin's words in a warning: its first line, printable and short;
// plugins write their errors there, never a credential they could not get.
std::string first_line_shown(std::string_view text, std::size_t limit = 160) {
    text = text.substr(0, text.find('\n'));
    std::string out;
    if (append_printable(out, text, limit) < text.size()) out += "...";
    return out;
}

// A write to a pipe whose reader is gone (a plugin that exits without reading
// its stdin) is EPIPE here, never the SIGPIPE that would end the process:
// the signal is blocked on this thread for the write and a pending one taken.
ssize_t write_without_sigpipe(int fd, const char* data, std::size_t size) {
    sigset_t pipe_only, before;
    sigemptyset(&pipe_only);
    sigaddset(&pipe_only, SIGPIPE);
    pthread_sigmask(SIG_BLOCK, &pipe_only, &before);
    const ssize_t w = ::write(fd, data, size);
    if (w < 0 && errno == EPIPE) {
        const timespec now{0, 0};
        while (sigtimedwait(&pipe_only, nullptr, &now) == SIGPIPE) {
        }
        errno = EPIPE;
    }
    pthread_sigmask(SIG_SETMASK, &before, nullptr);
    return w;
}

struct Fd {
    int fd = -1;
    ~Fd() { close(); }
    void close() {
        if (fd >= 0) ::close(fd);
        fd = -1;
    }
};

}  // namespace

PluginRun run_plugin(const std::string& path, const std::vector<std::string>& args, const std::vector<std::pair<std::string, std::string>>& env,
                     const std::string& input, std::size_t max_out, Deadline deadline) {
    PluginRun run;
    int in_pipe[2], out_pipe[2], err_pipe[2];
    // Close-on-exec: a plugin started meanwhile on another thread inherits none of these.
    if (pipe2(in_pipe, O_CLOEXEC) != 0) {
        run.error = std::string("cannot make a pipe: ") + std::strerror(errno);
        return run;
    }
    Fd in_read{in_pipe[0]}, in_write{in_pipe[1]};
    if (pipe2(out_pipe, O_CLOEXEC) != 0) {
        run.error = std::string("cannot make a pipe: ") + std::strerror(errno);
        return run;
    }
    Fd out_read{out_pipe[0]}, out_write{out_pipe[1]};
    if (pipe2(err_pipe, O_CLOEXEC) != 0) {
        run.error = std::string("cannot make a pipe: ") + std::strerror(errno);
        return run;
    }
    Fd err_read{err_pipe[0]}, err_write{err_pipe[1]};

    // The webhook's environment, then the config's (a name given twice: the config's).
    std::vector<std::string> env_strings;
    for (char** e = environ; e != nullptr && *e != nullptr; ++e) {
        const std::string_view entry(*e);
        const std::string_view name = entry.substr(0, entry.find('='));
        if (std::none_of(env.begin(), env.end(), [&](const auto& kv) { return kv.first == name; })) env_strings.emplace_back(entry);
    }
    for (const auto& [name, value] : env) env_strings.push_back(name + "=" + value);
    std::vector<char*> envp;
    for (std::string& e : env_strings) envp.push_back(e.data());
    envp.push_back(nullptr);
    std::vector<std::string> argv_strings{path};
    argv_strings.insert(argv_strings.end(), args.begin(), args.end());
    std::vector<char*> argv;
    for (std::string& a : argv_strings) argv.push_back(a.data());
    argv.push_back(nullptr);

    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, in_read.fd, 0);
    posix_spawn_file_actions_adddup2(&actions, out_write.fd, 1);
    posix_spawn_file_actions_adddup2(&actions, err_write.fd, 2);
    // Nothing else of the webhook's: a descriptor opened without close-on-exec
    // (a library's, a registry or API connection) is not the plugin's to hold.
    posix_spawn_file_actions_addclosefrom_np(&actions, 3);
    // Its own process group: a plugin that starts children of its own has them killed with it.
    posix_spawnattr_t attributes;
    posix_spawnattr_init(&attributes);
    posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
    posix_spawnattr_setpgroup(&attributes, 0);
    sigset_t none, all;
    sigemptyset(&none);
    sigfillset(&all);
    posix_spawnattr_setsigmask(&attributes, &none);
    posix_spawnattr_setsigdefault(&attributes, &all);
    pid_t pid = -1;
    const int spawned = posix_spawn(&pid, path.c_str(), &actions, &attributes, argv.data(), envp.data());
    posix_spawn_file_actions_destroy(&actions);
    posix_spawnattr_destroy(&attributes);
    in_read.close();
    out_write.close();
    err_write.close();
    if (spawned != 0) {
        run.error = "cannot be started: " + std::string(std::strerror(spawned));
        return run;
    }

    fcntl(in_write.fd, F_SETFL, O_NONBLOCK);
    std::size_t written = 0;
    std::string err;
    bool out_open = true, err_open = true;
    while (out_open || err_open) {
        const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now()).count();
        if (left <= 0) {
            run.timed_out = true;
            break;
        }
        pollfd fds[3];
        nfds_t n = 0;
        if (out_open) fds[n++] = {out_read.fd, POLLIN, 0};
        if (err_open) fds[n++] = {err_read.fd, POLLIN, 0};
        if (in_write.fd >= 0) fds[n++] = {in_write.fd, POLLOUT, 0};
        const int ready = ::poll(fds, n, static_cast<int>(std::min<long long>(left, 1000)));
        if (ready < 0 && errno != EINTR) break;
        for (nfds_t i = 0; i < n; ++i) {
            if (fds[i].revents == 0) continue;
            if (fds[i].fd == in_write.fd) {
                const ssize_t w = write_without_sigpipe(in_write.fd, input.data() + written, input.size() - written);
                if (w > 0) written += static_cast<std::size_t>(w);
                if (w < 0 && errno != EAGAIN) in_write.close();  // it does not read its stdin: its business
                else if (written == input.size()) in_write.close();
                continue;
            }
            char buffer[16384];
            const ssize_t r = ::read(fds[i].fd, buffer, sizeof buffer);
            if (r <= 0) {
                (fds[i].fd == out_read.fd ? out_open : err_open) = false;
                continue;
            }
            if (fds[i].fd == out_read.fd) {
                if (run.out.size() + static_cast<std::size_t>(r) > max_out) {
                    run.too_large = true;
                    out_open = err_open = false;
                    break;
                }
                run.out.append(buffer, static_cast<std::size_t>(r));
            } else if (err.size() < 4096) {
                err.append(buffer, static_cast<std::size_t>(std::min<ssize_t>(r, 4096)));
            }
        }
    }
    in_write.close();
    int status = 0;
    if (run.timed_out || run.too_large || waitpid(pid, &status, WNOHANG) == 0) {
        // Done reading, or out of time: it gets no more; the whole group goes.
        if (run.timed_out || run.too_large) kill(-pid, SIGKILL);
        // A plugin that closed its output but lingers gets until the deadline, then the same.
        while (waitpid(pid, &status, WNOHANG) == 0) {
            if (std::chrono::steady_clock::now() >= deadline) {
                run.timed_out = true;
                kill(-pid, SIGKILL);
                waitpid(pid, &status, 0);
                break;
            }
            usleep(5000);
        }
    }
    if (!run.timed_out && !run.too_large && WIFEXITED(status)) run.exit_code = WEXITSTATUS(status);
    if (run.timed_out) run.error = "it did not answer within the time allowed and was stopped";
    else if (run.too_large) run.error = "it wrote more than " + std::to_string(max_out) + " bytes";
    else if (run.exit_code != 0) run.error = "it exited with " + (run.exit_code < 0 ? std::string("a signal") : std::to_string(run.exit_code)) +
                                              (err.empty() ? std::string() : ": " + first_line_shown(err));
    return run;
}

Result<std::unique_ptr<CredentialProviders>> CredentialProviders::create(CredentialProviderConfig config, std::string bin_dir,
                                                                         std::chrono::milliseconds default_timeout) {
    if (bin_dir.empty()) return fail("--image-credential-provider-bin-dir is required with --image-credential-provider-config");
    std::vector<std::unique_ptr<Plugin>> plugins;
    for (CredentialProvider& p : config.providers) {
        auto plugin = std::make_unique<Plugin>();
        plugin->path = bin_dir + "/" + p.name;
        struct stat st {};
        if (::stat(plugin->path.c_str(), &st) != 0 || !S_ISREG(st.st_mode) || ::access(plugin->path.c_str(), X_OK) != 0) {
            return fail("credential provider \"" + p.name + "\": " + plugin->path + " is not an executable file");
        }
        plugin->provider = std::move(p);
        plugins.push_back(std::move(plugin));
    }
    return std::unique_ptr<CredentialProviders>(new CredentialProviders(std::move(plugins), default_timeout));
}

Result<KubeletKeyring> CredentialProviders::keyring_of(const Plugin& plugin, const std::string& image, Deadline deadline) const {
    const auto kept_for = [&]() -> std::optional<KubeletKeyring> {
        std::lock_guard lock(plugin.kept_mutex);
        const auto now = std::chrono::steady_clock::now();
        // Any key type: what the last answer said it is kept by.
        using Key = CredentialProviderResponse::CacheKey;
        for (const Key type : {Key::image, Key::registry, Key::global}) {
            const std::string key = provider_cache_key(type, image);
            if (const auto it = plugin.kept.find(key); it != plugin.kept.end() && it->second.expires > now) return it->second.keyring;
        }
        return std::nullopt;
    };
    if (auto kept = kept_for()) return std::move(*kept);
    std::unique_lock running(plugin.running, std::defer_lock);
    if (!running.try_lock_until(deadline)) return fail("credential provider " + plugin.provider.name + " was busy until the deadline");
    if (auto kept = kept_for()) return std::move(*kept);  // answered while this one waited
    {
        std::lock_guard lock(runs_mutex_);
        ++runs_;
    }
    const std::string request = R"({"apiVersion":"credentialprovider.kubelet.k8s.io/v1","kind":"CredentialProviderRequest","image":")" + image + R"("})";
    PluginRun run = run_plugin(plugin.path, plugin.provider.args, plugin.provider.env, request, kMaxPluginAnswerBytes, deadline);
    const std::string who = "credential provider " + plugin.provider.name;
    if (!run.error.empty()) return fail(who + ": " + run.error);
    Result<CredentialProviderResponse> response = read_credential_provider_response(run.out);
    if (!response) return fail(who + ": " + response.error());
    KubeletKeyring keyring;
    for (auto& [key, credential] : response->auth) keyring.add(key, std::move(credential));
    const auto duration = response->cache_duration.value_or(plugin.provider.default_cache_duration);
    if (duration.count() > 0) {
        std::lock_guard lock(plugin.kept_mutex);
        if (plugin.kept.size() >= kMaxPluginCacheEntries) plugin.kept.clear();
        plugin.kept[provider_cache_key(response->cache_key_type, image)] = Kept{keyring, std::chrono::steady_clock::now() + duration};
    }
    return keyring;
}

KeyringAnswer CredentialProviders::lookup_until(std::string_view registry, std::string_view repository, Deadline deadline) const {
    const std::string image = std::string(registry) + "/" + std::string(repository);
    KeyringAnswer out;
    // As the kubelet combines them: every matching plugin's credentials, an earlier plugin's first.
    for (const auto& plugin : plugins_) {
        if (!provider_matches(plugin->provider, image)) continue;
        Result<KubeletKeyring> keyring = keyring_of(*plugin, image, deadline);
        if (!keyring) {
            // Its words (its stderr, what it printed) go to the log; a tenant reads which plugin gave nothing.
            out.problem += (out.problem.empty() ? "" : "; ") + ("the credential provider " + plugin->provider.name + " gave no credentials");
            out.log_problem += (out.log_problem.empty() ? "" : "; ") + keyring.error();
            continue;
        }
        for (RegistryCredential& c : keyring->lookup_image(image)) out.credentials.push_back(std::move(c));
    }
    return out;
}

std::vector<RegistryCredential> CredentialProviders::lookup(std::string_view registry, std::string_view repository) const {
    return lookup_until(registry, repository, std::chrono::steady_clock::now() + default_timeout_).credentials;
}

std::size_t CredentialProviders::runs() const {
    std::lock_guard lock(runs_mutex_);
    return runs_;
}

}  // namespace miw::server
