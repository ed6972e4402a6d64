#include "policy_trust_root.hpp"

#include "checkpoint.hpp"
#include "crypto.hpp"

namespace miw::sigstore {

namespace {

Result<std::vector<std::string>> chain_of(const std::string& pem, const std::string& where) {
    std::vector<std::string> out = pem_certificates(pem);
    if (out.empty()) return fail(where + "'s certChain holds no PEM certificate");
    return out;
}

Result<std::vector<LogKey>> logs_of(const std::vector<PolicyTrustRoot::Log>& logs, const std::string& where) {
    std::vector<LogKey> out;
    for (const PolicyTrustRoot::Log& l : logs) {
        Result<PublicKey> key = PublicKey::from_pem(l.public_key_pem);
        if (!key) return fail(where + " " + l.base_url + ": its publicKey is " + key.error());
        LogKey log;
        log.base_url = l.base_url;
        log.key = key->der();
        log.log_id = l.log_id.empty() ? derived_log_id(*key, l.base_url) : l.log_id;
        out.push_back(std::move(log));
    }
    return out;
}

Result<std::vector<Authority>> authorities_of(const std::vector<PolicyTrustRoot::Authority>& list, const std::string& where) {
    std::vector<Authority> out;
    for (const PolicyTrustRoot::Authority& a : list) {
        Result<std::vector<std::string>> chain = chain_of(a.cert_chain_pem, where + " " + a.uri);
        if (!chain) return fail(chain.error());
        out.push_back({a.uri, std::move(*chain), Validity{}});
    }
    return out;
}

}  // namespace

Result<TrustedRoot> trusted_root_of(const PolicyTrustRoot& root) {
    const std::string where = "TrustRoot " + root.name + ":";
    TrustedRoot out;
    auto tlogs = logs_of(root.tlogs, where + " tLogs");
    if (!tlogs) return fail(tlogs.error());
    out.tlogs = std::move(*tlogs);
    auto ctlogs = logs_of(root.ctlogs, where + " ctLogs");
    if (!ctlogs) return fail(ctlogs.error());
    out.ctlogs = std::move(*ctlogs);
    auto cas = authorities_of(root.certificate_authorities, where + " certificateAuthorities");
    if (!cas) return fail(cas.error());
    out.certificate_authorities = std::move(*cas);
    auto tsas = authorities_of(root.timestamp_authorities, where + " timestampAuthorities");
    if (!tsas) return fail(tsas.error());
    out.timestamp_authorities = std::move(*tsas);
    return out;
}

}  // namespace miw::sigstore
