// Kubelet credential provider plugins as a keyring (design.md 1.8): the
// plugins of a CredentialProviderConfig whose matchImages match an image are
// run from --image-credential-provider-bin-dir, as the kubelet runs them (a
// CredentialProviderRequest on stdin, the config's args and env on top of
// the webhook's environment), their CredentialProviderResponse read from
// stdout (capped) and kept as its cacheKeyType and cacheDuration say. A run
// is bounded by the lookup's deadline and killed past it; a plugin that
// fails, hangs or answers nonsense gives no credentials and says why. So the
// plugins a cluster's nodes use (ecr-credential-provider, the GCP and Azure
// ones) serve the webhook unchanged. No Boost, no libcurl here.
#pragma once

#include "model_image_webhook/pull_credentials.hpp"
#include "model_image_webhook/registry/kubelet_keyring.hpp"
#include "model_image_webhook/result.hpp"

#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace miw::server {

// A plugin's stdout past this is nonsense: its answer is a few keys.
inline constexpr std::size_t kMaxPluginAnswerBytes = 1u << 20;
// Answers kept per plugin, at most (an Image-keyed plugin keeps one per image).
inline constexpr std::size_t kMaxPluginCacheEntries = 1024;

class CredentialProviders : public Keyring {
public:
    // Fails when a provider's executable is not in bin_dir or cannot be run.
    static Result<std::unique_ptr<CredentialProviders>> create(CredentialProviderConfig config, std::string bin_dir,
                                                               std::chrono::milliseconds default_timeout);

    std::vector<RegistryCredential> lookup(std::string_view registry, std::string_view repository) const override;
    KeyringAnswer lookup_until(std::string_view registry, std::string_view repository, Deadline deadline) const override;

    // Plugin runs so far (each answer kept is not a run).
    std::size_t runs() const;

private:
    struct Kept {
        KubeletKeyring keyring;
        std::chrono::steady_clock::time_point expires;
    };
    struct Plugin {
        CredentialProvider provider;
        std::string path;
        mutable std::timed_mutex running;  // one run at a time: the next asker finds its answer kept
        mutable std::mutex kept_mutex;
        mutable std::map<std::string, Kept, std::less<>> kept;  // by cache key
    };

    CredentialProviders(std::vector<std::unique_ptr<Plugin>> plugins, std::chrono::milliseconds default_timeout)
        : plugins_(std::move(plugins)), default_timeout_(default_timeout) {}
    // The plugin's keyring for an image: kept, or from a run; or why there is none.
    Result<KubeletKeyring> keyring_of(const Plugin& plugin, const std::string& image, Deadline deadline) const;

    std::vector<std::unique_ptr<Plugin>> plugins_;
    std::chrono::milliseconds default_timeout_;
    mutable std::mutex runs_mutex_;
    mutable std::size_t runs_ = 0;
};

// One run of an executable: stdin given, stdout read up to max_out bytes,
// the first line of stderr kept for a reason, killed at the deadline. No shell.
struct PluginRun {
    int exit_code = -1;  // -1: it did not exit by itself (killed at the deadline, or could not start)
    bool timed_out = false;
    bool too_large = false;
    std::string out;
    std::string error;  // what stopped it, or the first line of its stderr
};
PluginRun run_plugin(const std::string& path, const std::vector<std::string>& args, const std::vector<std::pair<std::string, std::string>>& env,
                     const std::string& input, std::size_t max_out, Deadline deadline);

}  // namespace miw::server
