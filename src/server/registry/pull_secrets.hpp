// A Pod's pull secrets, read as the kubelet reads them (design.md 1.8): the
// pod spec's imagePullSecrets, or where it names none its service account's,
// each Secret GET by name in the object's own namespace (never listed, never
// watched) and made one keyring, tried before the node's credentials. What
// the API answered is kept for a few seconds, bounded in entries and bytes,
// and one read serves every review that asks for the same object meanwhile.
// A secret that is missing, forbidden, unreadable or of another type is one
// and the same note naming it, as the kubelet makes it an event and pulls
// without it: a tenant without get on secrets learns nothing of whether a
// Secret exists or what it holds. Why it could not be used goes to the
// operator's log.
// No Boost here: the API is asked through ApiGet.
#pragma once

#include "model_image_webhook/registry/keyring.hpp"
#include "model_image_webhook/registry/kubelet_keyring.hpp"
#include "model_image_webhook/registry/source.hpp"

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace miw::server {

// An API GET's answer: status 0 and error set when none came.
struct ApiGetAnswer {
    int status = 0;
    std::string body;
    std::string error;
};
using ApiGet = std::function<ApiGetAnswer(const std::string& path, std::size_t max_body, Deadline deadline)>;
// Told of each read's outcome: kind "secret" or "serviceaccount"; result
// read, not-found, forbidden, invalid, unreadable or busy (for the metrics).
using ReadObserver = std::function<void(std::string_view kind, std::string_view result)>;
// Told why an object could not be used, for the operator's log only: what
// (kind, namespace/name) and why.
using ReadProblemLog = std::function<void(std::string_view what, std::string_view why)>;

// A registry Secret is a few hundred bytes to a few KiB; one over this is
// not read (the memory budget counts it, docs/operations.md).
inline constexpr std::size_t kMaxSecretAnswerBytes = 256u << 10;

struct PullSecretSettings {
    std::chrono::milliseconds ttl{10000};  // how long an answer of the API is kept
    std::size_t max_entries = 4096;
    std::size_t max_bytes = 4u << 20;  // the keyrings kept, about; one larger than an eighth of it is used, not kept
    std::size_t max_reads = 4;  // GETs in flight at once; past it a read waits, until its review's deadline
};

class PullSecrets {
public:
    PullSecrets(ApiGet get, PullSecretSettings settings = {}, ReadObserver observe = {}, ReadProblemLog log = {})
        : get_(std::move(get)), settings_(settings), observe_(std::move(observe)), log_(std::move(log)) {}

    struct Assembled {
        PullCredentials credentials;  // empty identity: no credentials beyond the node's
        std::vector<std::string> notes;  // what was missing or unreadable, each naming it
    };
    // The credentials `who` pulls with, read by `deadline`.
    Assembled assemble(const PullSecretsRef& who, Deadline deadline) const;

    // GETs sent to the API so far.
    std::size_t api_reads() const;
    // The bytes the kept answers take, about.
    std::size_t bytes_kept() const;

private:
    // One object as read: a Secret's keyring, or a ServiceAccount's secret
    // names; or why neither.
    struct Read {
        std::shared_ptr<const KubeletKeyring> keyring;
        std::string identity;  // the keyring's
        std::vector<std::string> names;
        std::string problem;  // empty: read (a ServiceAccount not found reads as no names)
        bool keep = true;  // an answer of the API, not a failure to reach it
        std::string_view outcome;  // for the observer: read, not-found, forbidden, invalid, unreadable, busy; empty: the API was not asked
        std::size_t bytes = 0;
    };
    struct Entry {
        bool done = false;
        Read read;
        std::chrono::steady_clock::time_point expires;
        std::condition_variable ready;
    };

    Read read_object(const std::string& kind, std::string_view namespace_name, std::string_view name, Deadline deadline) const;
    Read fetch(const std::string& kind, std::string_view namespace_name, std::string_view name, Deadline deadline) const;
    void keep_locked(const std::string& key, const std::shared_ptr<Entry>& entry) const;

    ApiGet get_;
    PullSecretSettings settings_;
    ReadObserver observe_;
    ReadProblemLog log_;
    mutable std::mutex mutex_;
    mutable std::map<std::string, std::shared_ptr<Entry>, std::less<>> entries_;
    mutable std::size_t bytes_ = 0;
    mutable std::size_t reads_ = 0;
    mutable std::size_t reading_ = 0;  // GETs in flight
    mutable std::condition_variable read_slot_;
};

}  // namespace miw::server
