#include "pull_secrets.hpp"

#include "credential_identity.hpp"

#include "model_image_webhook/pull_credentials.hpp"
#include "model_image_webhook/text.hpp"

#include <algorithm>
#include <exception>

namespace miw::server {

namespace {

// More than a pod spec names in practice; past it, the rest are not read.
constexpr std::size_t kMaxSecretsPerPull = 16;

constexpr std::string_view kSecrets = "secrets";
constexpr std::string_view kServiceAccounts = "serviceaccounts";

std::string status_words(int status, std::string_view kind) {
    if (status == 403) {
        return "the API answered 403 Forbidden: the webhook's role lacks get on " + std::string(kind) +
               " in this namespace (docs/operations.md, \"Pull secrets\")";
    }
    if (status == 401) return "the API answered 401 Unauthorized: the webhook's service account token was refused";
    return "the API answered " + std::to_string(status);
}

}  // namespace

PullSecrets::Read PullSecrets::fetch(const std::string& kind, std::string_view namespace_name, std::string_view name, Deadline deadline) const {
    Read out;
    if (!is_object_name(namespace_name) || !is_object_name(name)) {
        out.problem = "not a valid object name, so not read";
        return out;
    }
    const std::string path = "/api/v1/namespaces/" + std::string(namespace_name) + "/" + kind + "/" + std::string(name);
    {
        // A few reads at once bound what answers being read can hold, whatever a namespace's Pods name.
        std::unique_lock lock(mutex_);
        if (!read_slot_.wait_until(lock, deadline, [&] { return reading_ < settings_.max_reads; })) {
            out.problem = "unread: the webhook's reads of the API were all taken until the review's deadline";
            out.keep = false;
            out.outcome = "busy";
            return out;
        }
        ++reading_;
        ++reads_;
    }
    // The slot is given back however the GET ends, a throw included.
    struct Slot {
        const PullSecrets& owner;
        ~Slot() {
            {
                std::lock_guard lock(owner.mutex_);
                --owner.reading_;
            }
            owner.read_slot_.notify_one();
        }
    } slot{*this};
    ApiGetAnswer a = get_(path, kMaxSecretAnswerBytes, deadline);
    if (!a.error.empty() || a.status == 0) {
        out.problem = "unreadable: " + (a.error.empty() ? std::string("no answer") : a.error);
        out.keep = false;  // the API's absence, not its answer: asked again next time
        out.outcome = "unreadable";
        return out;
    }
    const bool secret = kind == kSecrets;
    if (a.status == 404) {
        // A Pod's service account exists (the apiserver refuses the Pod
        // otherwise); a template's may not yet: either way, no secrets of its.
        if (secret) out.problem = "not found";
        out.outcome = "not-found";
        return out;
    }
    if (a.status != 200) {
        out.problem = "unreadable: " + status_words(a.status, kind);
        out.keep = a.status == 403;
        out.outcome = a.status == 403 ? "forbidden" : "unreadable";
        return out;
    }
    out.outcome = "invalid";
    if (secret) {
        Result<KubeletKeyring> keyring = read_pull_secret(a.body);
        if (!keyring) {
            out.problem = "not usable as a pull secret: " + keyring.error();
            return out;
        }
        out.identity = holder_identity(*keyring);
        out.bytes = keyring->bytes() + out.identity.size();
        out.keyring = std::make_shared<const KubeletKeyring>(std::move(*keyring));
        out.outcome = "read";
        return out;
    }
    Result<std::vector<std::string>> names = read_service_account_pull_secrets(a.body);
    if (!names) {
        out.problem = "unreadable: " + names.error();
        return out;
    }
    out.names = std::move(*names);
    out.bytes = sizeof out;
    for (const std::string& n : out.names) out.bytes += sizeof n + n.size();
    out.outcome = "read";
    return out;
}

void PullSecrets::keep_locked(const std::string& key, const std::shared_ptr<Entry>& entry) const {
    const auto it = entries_.find(key);
    const bool ours = it != entries_.end() && it->second == entry;
    if (!ours) return;
    if (!entry->read.keep || entry->read.bytes > settings_.max_bytes / 8) {
        entries_.erase(it);
        return;
    }
    bytes_ += entry->read.bytes;
    if (bytes_ <= settings_.max_bytes && entries_.size() <= settings_.max_entries) return;
    // Over a bound: the expired go first, then every answer but those still awaited.
    const auto now = std::chrono::steady_clock::now();
    for (const bool all : {false, true}) {
        for (auto e = entries_.begin(); e != entries_.end();) {
            if (e->second->done && (all || e->second->expires <= now)) {
                bytes_ -= e->second->read.bytes;
                e = entries_.erase(e);
            } else {
                ++e;
            }
        }
        if (bytes_ <= settings_.max_bytes && entries_.size() <= settings_.max_entries) return;
    }
}

PullSecrets::Read PullSecrets::read_object(const std::string& kind, std::string_view namespace_name, std::string_view name, Deadline deadline) const {
    std::string key = kind;
    key += '/';
    key += namespace_name;
    key += '/';
    key += name;
    std::shared_ptr<Entry> entry;
    {
        std::unique_lock lock(mutex_);
        auto it = entries_.find(key);
        if (it != entries_.end() && it->second->done && it->second->expires <= std::chrono::steady_clock::now()) {
            bytes_ -= it->second->read.bytes;
            entries_.erase(it);
            it = entries_.end();
        }
        if (it != entries_.end()) {
            // Kept, or being read for another review: that read serves this one.
            entry = it->second;
            if (!entry->ready.wait_until(lock, deadline, [&] { return entry->done; })) {
                Read late;
                late.problem = "unread: no answer from the API before the review's deadline";
                late.keep = false;
                return late;
            }
            return entry->read;
        }
        entry = std::make_shared<Entry>();
        entries_.emplace(key, entry);
    }
    // Whatever the read does, a throw included, the entry ends with an answer:
    // one left unfinished would hold every later review of it to its deadline.
    Read read;
    try {
        read = fetch(kind, namespace_name, name, deadline);
    } catch (const std::exception& e) {
        read = Read{};
        read.problem = std::string("unread: the read failed inside the webhook: ") + e.what();
        read.keep = false;
    } catch (...) {
        read = Read{};
        read.problem = "unread: the read failed inside the webhook";
        read.keep = false;
    }
    if (observe_ && !read.outcome.empty()) observe_(kind == kSecrets ? "secret" : "serviceaccount", read.outcome);
    std::lock_guard lock(mutex_);
    entry->read = read;
    entry->done = true;
    entry->expires = std::chrono::steady_clock::now() + settings_.ttl;
    keep_locked(key, entry);
    entry->ready.notify_all();
    return read;
}

PullSecrets::Assembled PullSecrets::assemble(const PullSecretsRef& who, Deadline deadline) const {
    Assembled out;
    if (who.namespace_name.empty()) return out;  // an object of no namespace has no secrets to read
    const std::string ns(who.namespace_name);
    std::vector<std::string> names(who.secrets.begin(), who.secrets.end());
    if (names.empty()) {
        const std::string account = who.service_account.empty() ? std::string("default") : std::string(who.service_account);
        Read sa = read_object(std::string(kServiceAccounts), ns, account, deadline);
        if (!sa.problem.empty()) {
            if (log_) log_("serviceaccount " + ns + "/" + account, sa.problem);
            out.notes.push_back("the service account " + quote_value(account) + " of namespace " + ns +
                                " could not be read for its imagePullSecrets: the lookup went on with the node's credentials");
            return out;
        }
        names = std::move(sa.names);
    }
    std::vector<Read> usable;
    std::vector<std::string> read_names;
    for (const std::string& name : names) {
        if (std::find(read_names.begin(), read_names.end(), name) != read_names.end()) continue;
        if (read_names.size() == kMaxSecretsPerPull) {
            out.notes.push_back("only the first " + std::to_string(kMaxSecretsPerPull) + " pull secrets were read");
            break;
        }
        read_names.push_back(name);
        Read secret = read_object(std::string(kSecrets), ns, name, deadline);
        if (!secret.problem.empty()) {
            // One wording whatever the cause (missing, forbidden, of another type): no oracle of a namespace's Secrets.
            if (log_) log_("secret " + ns + "/" + name, secret.problem);
            out.notes.push_back("the Secret " + quote_value(name) + " of namespace " + ns +
                                " could not be used as a pull secret: the kubelet pulls without it, and so did this lookup");
        } else if (secret.keyring && !secret.keyring->empty()) {
            usable.push_back(std::move(secret));
        }
    }
    if (usable.size() == 1) {
        out.credentials.identity = std::move(usable.front().identity);
        out.credentials.keyring = std::move(usable.front().keyring);
    } else if (usable.size() > 1) {
        auto merged = std::make_shared<KubeletKeyring>();
        for (const Read& r : usable) merged->add_all(*r.keyring);
        out.credentials.identity = holder_identity(*merged);
        out.credentials.keyring = std::move(merged);
    }
    return out;
}

std::size_t PullSecrets::api_reads() const {
    std::lock_guard lock(mutex_);
    return reads_;
}

std::size_t PullSecrets::bytes_kept() const {
    std::lock_guard lock(mutex_);
    return bytes_;
}

}  // namespace miw::server
