// ClusterImagePolicy and TrustRoot documents read as policy-controller's CRDs
// define them, every field this product does not implement refused by path.
#include "model_image_webhook/signature_policy.hpp"

#include "json_dom.hpp"

#include "model_image_webhook/manifest_text.hpp"
#include "model_image_webhook/text.hpp"

#include <algorithm>
#include <initializer_list>

namespace miw {

using namespace json;

namespace {

// The members of an object other than those known: each a field refused.
Status only_known(const Value* obj, std::string_view path, std::initializer_list<std::string_view> known, std::initializer_list<std::string_view> unsupported = {}) {
    if (obj == nullptr || obj->IsNull()) return done();
    if (!obj->IsObject()) return fail(std::string(path) + " is not a map");
    for (const auto& m : obj->GetObject()) {
        const std::string_view key = view(m.name);
        if (std::find(unsupported.begin(), unsupported.end(), key) != unsupported.end()) {
            return fail(std::string(path) + "." + std::string(key) + " is not supported by this webhook (it verifies keys and keyless identities of Sigstore signatures)");
        }
        if (std::find(known.begin(), known.end(), key) == known.end()) return fail(std::string(path) + "." + std::string(key) + " is not a field this webhook knows");
    }
    return done();
}

std::string text_at(const Value* obj, std::string_view name) { return std::string(string_or_empty(member(obj, name))); }

Result<std::string> pem_of_base64(const Value* obj, std::string_view name, std::string_view path) {
    const Value* v = member(obj, name);
    if (v == nullptr || !v->IsString()) return fail(std::string(path) + "." + std::string(name) + " is missing");
    std::optional<std::string> pem = base64_decode(view(*v));
    if (!pem || pem->find("-----BEGIN ") == std::string::npos) return fail(std::string(path) + "." + std::string(name) + " is not base64 of PEM");
    return std::move(*pem);
}

Result<PolicyAuthority> read_authority(const Value& a, const std::string& path, std::size_t index) {
    if (Status ok = only_known(&a, path, {"name", "key", "keyless", "ctlog"}, {"static", "source", "attestations", "rfc3161timestamp"}); !ok) return fail(ok.error());
    PolicyAuthority out;
    out.name = text_at(&a, "name");
    if (out.name.empty()) out.name = "authority-" + std::to_string(index);
    const Value* key = member(&a, "key");
    const Value* keyless = member(&a, "keyless");
    if ((key != nullptr) == (keyless != nullptr)) return fail(path + " must have exactly one of key and keyless");
    if (key != nullptr) {
        if (Status ok = only_known(key, path + ".key", {"data", "hashAlgorithm"}, {"kms", "secretRef"}); !ok) return fail(ok.error());
        out.key_pem = text_at(key, "data");
        if (out.key_pem.find("-----BEGIN PUBLIC KEY-----") == std::string::npos) return fail(path + ".key.data is not a PEM public key");
        const std::string algorithm = text_at(key, "hashAlgorithm");
        if (!algorithm.empty() && algorithm != "sha256") return fail(path + ".key.hashAlgorithm " + algorithm + " is not supported (sha256 is)");
    } else {
        out.keyless = true;
        out.ctlog = true;
        if (Status ok = only_known(keyless, path + ".keyless", {"identities", "trustRootRef", "url"}, {"ca-cert", "insecureIgnoreSCT"}); !ok) return fail(ok.error());
        out.trust_root_ref = text_at(keyless, "trustRootRef");
        const Value* identities = member(keyless, "identities");
        if (identities == nullptr || !identities->IsArray() || identities->Empty()) return fail(path + ".keyless.identities names no identity");
        std::size_t i = 0;
        for (const Value& id : identities->GetArray()) {
            const std::string where = path + ".keyless.identities[" + std::to_string(i++) + "]";
            if (Status ok = only_known(&id, where, {"issuer", "subject", "issuerRegExp", "subjectRegExp"}); !ok) return fail(ok.error());
            SignerIdentity s{text_at(&id, "issuer"), text_at(&id, "subject"), text_at(&id, "issuerRegExp"), text_at(&id, "subjectRegExp")};
            if (s.issuer.empty() == s.issuer_regexp.empty()) return fail(where + " must have exactly one of issuer and issuerRegExp");
            if (s.subject.empty() == s.subject_regexp.empty()) return fail(where + " must have exactly one of subject and subjectRegExp");
            out.identities.push_back(std::move(s));
        }
    }
    if (const Value* ctlog = member(&a, "ctlog"); ctlog != nullptr && !ctlog->IsNull()) {
        if (Status ok = only_known(ctlog, path + ".ctlog", {"url", "trustRootRef"}); !ok) return fail(ok.error());
        out.ctlog = true;
        out.ctlog_trust_root_ref = text_at(ctlog, "trustRootRef");
    }
    return out;
}

Result<ImagePolicy> read_image_policy(const Value& doc, const std::string& name) {
    const std::string path = "ClusterImagePolicy " + name + ": spec";
    const Value* spec = member(&doc, "spec");
    if (spec == nullptr || !spec->IsObject()) return fail("ClusterImagePolicy " + name + " has no spec");
    if (Status ok = only_known(spec, path, {"images", "authorities", "mode"}, {"policy", "match"}); !ok) return fail(ok.error());
    ImagePolicy out;
    out.name = name;
    const Value* images = member(spec, "images");
    if (images == nullptr || !images->IsArray() || images->Empty()) return fail(path + ".images names no image glob");
    std::size_t i = 0;
    for (const Value& image : images->GetArray()) {
        const std::string where = path + ".images[" + std::to_string(i++) + "]";
        if (Status ok = only_known(&image, where, {"glob"}, {"regex"}); !ok) return fail(ok.error());
        Result<ImageGlob> glob = ImageGlob::compile(text_at(&image, "glob"));
        if (!glob) return fail(where + ".glob: " + glob.error());
        out.images.push_back(std::move(*glob));
    }
    const Value* authorities = member(spec, "authorities");
    if (authorities == nullptr || !authorities->IsArray() || authorities->Empty()) return fail(path + ".authorities names no authority");
    i = 0;
    for (const Value& a : authorities->GetArray()) {
        Result<PolicyAuthority> authority = read_authority(a, path + ".authorities[" + std::to_string(i) + "]", i);
        ++i;
        if (!authority) return fail(authority.error());
        out.authorities.push_back(std::move(*authority));
    }
    const std::string mode = text_at(spec, "mode");
    if (mode == "warn") out.enforce = false;
    else if (!mode.empty() && mode != "enforce") return fail(path + ".mode " + mode + " is not enforce or warn");
    return out;
}

Result<std::vector<PolicyTrustRoot::Log>> read_logs(const Value* list, const std::string& path) {
    std::vector<PolicyTrustRoot::Log> out;
    if (list == nullptr || list->IsNull()) return out;
    if (!list->IsArray()) return fail(path + " is not a list");
    std::size_t i = 0;
    for (const Value& l : list->GetArray()) {
        const std::string where = path + "[" + std::to_string(i++) + "]";
        if (Status ok = only_known(&l, where, {"baseURL", "hashAlgorithm", "publicKey", "logID"}); !ok) return fail(ok.error());
        PolicyTrustRoot::Log log;
        log.base_url = text_at(&l, "baseURL");
        Result<std::string> pem = pem_of_base64(&l, "publicKey", where);
        if (!pem) return fail(pem.error());
        log.public_key_pem = std::move(*pem);
        if (const std::string id = text_at(&l, "logID"); !id.empty()) {
            // A log id as a TrustRoot writes it: hex, as policy-controller's Go strings hold it.
            std::optional<std::string> raw = hex_decode(id);
            if (!raw) return fail(where + ".logID is not hex");
            log.log_id = std::move(*raw);
        }
        out.push_back(std::move(log));
    }
    return out;
}

Result<std::vector<PolicyTrustRoot::Authority>> read_authorities(const Value* list, const std::string& path) {
    std::vector<PolicyTrustRoot::Authority> out;
    if (list == nullptr || list->IsNull()) return out;
    if (!list->IsArray()) return fail(path + " is not a list");
    std::size_t i = 0;
    for (const Value& a : list->GetArray()) {
        const std::string where = path + "[" + std::to_string(i++) + "]";
        if (Status ok = only_known(&a, where, {"subject", "uri", "certChain"}); !ok) return fail(ok.error());
        Result<std::string> pem = pem_of_base64(&a, "certChain", where);
        if (!pem) return fail(pem.error());
        out.push_back({text_at(&a, "uri"), std::move(*pem)});
    }
    return out;
}

Result<PolicyTrustRoot> read_trust_root(const Value& doc, const std::string& name) {
    const std::string path = "TrustRoot " + name + ": spec";
    const Value* spec = member(&doc, "spec");
    if (Status ok = only_known(spec, path, {"sigstoreKeys"}, {"remote", "repository"}); !ok) return fail(ok.error());
    const Value* keys = member(spec, "sigstoreKeys");
    if (keys == nullptr || !keys->IsObject()) return fail(path + ".sigstoreKeys is missing");
    if (Status ok = only_known(keys, path + ".sigstoreKeys", {"certificateAuthorities", "tLogs", "ctLogs", "timestampAuthorities"}); !ok) return fail(ok.error());
    PolicyTrustRoot out;
    out.name = name;
    auto cas = read_authorities(member(keys, "certificateAuthorities"), path + ".sigstoreKeys.certificateAuthorities");
    if (!cas) return fail(cas.error());
    out.certificate_authorities = std::move(*cas);
    auto tlogs = read_logs(member(keys, "tLogs"), path + ".sigstoreKeys.tLogs");
    if (!tlogs) return fail(tlogs.error());
    out.tlogs = std::move(*tlogs);
    auto ctlogs = read_logs(member(keys, "ctLogs"), path + ".sigstoreKeys.ctLogs");
    if (!ctlogs) return fail(ctlogs.error());
    out.ctlogs = std::move(*ctlogs);
    auto tsas = read_authorities(member(keys, "timestampAuthorities"), path + ".sigstoreKeys.timestampAuthorities");
    if (!tsas) return fail(tsas.error());
    out.timestamp_authorities = std::move(*tsas);
    return out;
}

}  // namespace

Result<SignaturePolicy> read_signature_policy(std::string_view text) {
    YamlLoad loaded = read_manifest_text(text);
    if (!loaded.ok()) return fail("it cannot be read as YAML or JSON: " + loaded.error);
    SignaturePolicy out;
    for (YamlDocument& d : loaded.documents) {
        Document doc;
        if (std::string error = parse_document(d.json, doc); !error.empty()) return fail(error);
        if (!doc.IsObject()) return fail("a document is not a map");
        const std::string kind = text_at(&doc, "kind");
        const std::string api = text_at(&doc, "apiVersion");
        const std::string name = text_at(member(&doc, "metadata"), "name");
        if (name.empty()) return fail("a " + (kind.empty() ? std::string("document") : kind) + " has no metadata.name");
        if (kind == "ClusterImagePolicy") {
            if (api != "policy.sigstore.dev/v1beta1" && api != "policy.sigstore.dev/v1alpha1") return fail("ClusterImagePolicy " + name + ": apiVersion " + api + " is not policy.sigstore.dev/v1beta1");
            Result<ImagePolicy> policy = read_image_policy(doc, name);
            if (!policy) return fail(policy.error());
            out.policies.push_back(std::move(*policy));
        } else if (kind == "TrustRoot") {
            if (api != "policy.sigstore.dev/v1alpha1") return fail("TrustRoot " + name + ": apiVersion " + api + " is not policy.sigstore.dev/v1alpha1");
            Result<PolicyTrustRoot> root = read_trust_root(doc, name);
            if (!root) return fail(root.error());
            if (!out.trust_roots.emplace(name, std::move(*root)).second) return fail("TrustRoot " + name + " is given twice");
        } else {
            return fail("a " + (kind.empty() ? std::string("document without a kind") : kind) + " is neither a ClusterImagePolicy nor a TrustRoot");
        }
    }
    for (const ImagePolicy& p : out.policies) {
        for (const PolicyAuthority& a : p.authorities) {
            for (const std::string* ref : {&a.trust_root_ref, &a.ctlog_trust_root_ref}) {
                if (!ref->empty() && out.trust_roots.count(*ref) == 0) return fail("ClusterImagePolicy " + p.name + ": authority " + a.name + " names TrustRoot " + *ref + ", which the file does not hold");
            }
        }
    }
    return out;
}

}  // namespace miw
