#include "image_policy.hpp"

#include "crypto.hpp"
#include "policy_trust_root.hpp"

#include "model_image_webhook/sigstore/bundle.hpp"
#include "model_image_webhook/sigstore/rekor_entry.hpp"
#include "model_image_webhook/sigstore/simple_signing.hpp"
#include "model_image_webhook/text.hpp"

#include <re2/re2.h>

#include <algorithm>

namespace miw::sigstore {

namespace {

// What a refusal's detail holds at most: the reason of each authority, cut.
constexpr std::size_t kDetailBytes = 240;

// One keyless identity: exact values, or Go regexps (unanchored, as
// regexp.MatchString and so policy-controller and cosign match them).
struct IdentityRule {
    std::string issuer;
    std::string subject;
    std::shared_ptr<const RE2> issuer_pattern;
    std::shared_ptr<const RE2> subject_pattern;

    bool matches(const std::vector<std::string>& sans, const std::string& cert_issuer) const {
        const bool issuer_ok = issuer_pattern ? RE2::PartialMatch(cert_issuer, *issuer_pattern) : cert_issuer == issuer;
        if (!issuer_ok) return false;
        return std::any_of(sans.begin(), sans.end(), [&](const std::string& san) { return subject_pattern ? RE2::PartialMatch(san, *subject_pattern) : san == subject; });
    }
};

Result<std::shared_ptr<const RE2>> compiled(const std::string& pattern, const std::string& where) {
    if (pattern.empty()) return std::shared_ptr<const RE2>();
    RE2::Options options;
    options.set_log_errors(false);
    auto re = std::make_shared<const RE2>(pattern, options);
    if (!re->ok()) return fail(where + ": " + quote_value(pattern, 80) + " is not a regular expression RE2 (Go's syntax) reads: " + re->error());
    return std::shared_ptr<const RE2>(std::move(re));
}

Result<TrustedRoot> root_named(const SignaturePolicy& policy, const std::string& name, const TrustedRoot& default_root) {
    if (name.empty()) return default_root;
    const auto it = policy.trust_roots.find(name);
    if (it == policy.trust_roots.end()) return fail("the TrustRoot " + name + " is not in the policy file");
    return trusted_root_of(it->second);
}

// Why a bundle is not a signature of the image by cosign sign, or empty where it is one.
std::string not_a_signature(const Bundle& bundle) {
    if (!bundle.dsse) return "a message-signature bundle, not cosign's image signature";
    if (bundle.payload_type != "application/vnd.in-toto+json") return "a DSSE envelope of " + bundle.payload_type;
    Result<Statement> statement = read_statement(bundle.payload);
    if (!statement) return statement.error();
    if (statement->predicate_type != kCosignSignPredicate) return "an attestation of " + statement->predicate_type + ", not a signature";
    return {};
}

Result<Verified> verify_simple(const SimpleSignature& s, const ImagePolicyVerifier::Authority& authority, std::int64_t now) {
    std::optional<std::string> signature = base64_decode(s.signature);
    if (!signature) return fail("the .sig signature annotation is not base64");
    Bundle bundle;
    bundle.version = BundleVersion::v0_1;
    bundle.digest_algorithm = "SHA2_256";
    bundle.message_digest = sha256(s.payload);
    bundle.signature = std::move(*signature);
    if (!s.certificate_pem.empty()) {
        std::vector<std::string> leaf = pem_certificates(s.certificate_pem);
        if (leaf.empty()) return fail("the .sig certificate annotation holds no PEM certificate");
        bundle.certificates.push_back(std::move(leaf.front()));
    }
    if (!s.rekor_bundle.empty()) {
        Result<TlogEntry> entry = read_cosign_rekor_bundle(s.rekor_bundle);
        if (!entry) return fail(entry.error());
        bundle.tlog_entries.push_back(std::move(*entry));
    }
    Artifact artifact;
    artifact.has_bytes = true;
    artifact.bytes = s.payload;
    artifact.sha256 = bundle.message_digest;
    return verify_bundle(bundle, authority.root, artifact, authority.signer, now);
}

void add_reason(std::string& detail, const std::string& authority, const std::string& reason) {
    if (detail.size() >= kDetailBytes) return;
    if (!detail.empty()) detail += "; ";
    detail += authority + ": " + reason;
    if (detail.size() > kDetailBytes) detail = printable_line(detail, kDetailBytes);
}

}  // namespace

Result<std::shared_ptr<const ImagePolicyVerifier>> ImagePolicyVerifier::create(const SignaturePolicy& policy, const TrustedRoot& default_root) {
    auto out = std::make_shared<ImagePolicyVerifier>();
    for (const ImagePolicy& p : policy.policies) {
        std::vector<Authority> authorities;
        for (const PolicyAuthority& a : p.authorities) {
            const std::string where = "ClusterImagePolicy " + p.name + ", authority " + a.name;
            Authority made;
            made.name = a.name;
            Result<TrustedRoot> root = root_named(policy, a.keyless ? a.trust_root_ref : a.ctlog_trust_root_ref, default_root);
            if (!root) return fail(where + ": " + root.error());
            made.root = std::move(*root);
            if (!a.keyless) {
                if (Result<PublicKey> key = PublicKey::from_pem(a.key_pem); !key) return fail(where + ": its key.data is " + key.error());
                made.signer.key_pem = a.key_pem;
                made.signer.require_tlog = a.ctlog;
            } else {
                std::vector<IdentityRule> rules;
                for (const SignerIdentity& id : a.identities) {
                    Result<std::shared_ptr<const RE2>> issuer = compiled(id.issuer_regexp, where + " issuerRegExp");
                    if (!issuer) return fail(issuer.error());
                    Result<std::shared_ptr<const RE2>> subject = compiled(id.subject_regexp, where + " subjectRegExp");
                    if (!subject) return fail(subject.error());
                    rules.push_back({id.issuer, id.subject, std::move(*issuer), std::move(*subject)});
                }
                made.signer.identity_matches = [rules = std::move(rules)](const std::vector<std::string>& sans, const std::string& issuer) {
                    return std::any_of(rules.begin(), rules.end(), [&](const IdentityRule& r) { return r.matches(sans, issuer); });
                };
            }
            authorities.push_back(std::move(made));
        }
        out->policies_.push_back(std::move(authorities));
    }
    return std::shared_ptr<const ImagePolicyVerifier>(std::move(out));
}

SignatureOutcome ImagePolicyVerifier::verify(const FoundSignatures& found, std::string_view digest, std::size_t policy, std::int64_t now) const {
    SignatureOutcome out;
    if (policy >= policies_.size()) return out;  // unavailable: no such policy
    std::optional<std::string> raw;
    if (digest.substr(0, 7) == "sha256:") raw = hex_decode(digest.substr(7));
    if (!raw || raw->size() != 32) {
        out.status = SignatureStatus::mismatch;
        out.detail = "only sha256 digests' signatures are verified";
        return out;
    }
    // The candidates: cosign's signatures of this digest, read once for every authority.
    std::vector<Bundle> bundles;
    std::size_t not_signatures = found.other_referrers;
    std::string why_not;
    for (const std::string& text : found.bundles) {
        Result<Bundle> bundle = read_bundle(text);
        std::string reason = bundle ? not_a_signature(*bundle) : bundle.error();
        if (reason.empty()) {
            bundles.push_back(std::move(*bundle));
        } else {
            ++not_signatures;
            if (why_not.empty()) why_not = reason;
        }
    }
    std::vector<const SimpleSignature*> simple;
    for (const SimpleSignature& s : found.simple) {
        Result<std::string> named = simple_signing_digest(s.payload);
        if (named && *named == digest) {
            simple.push_back(&s);
        } else if (why_not.empty()) {
            why_not = named ? "a .sig payload names " + *named : named.error();
        }
    }
    if (bundles.empty() && simple.empty()) {
        out.status = SignatureStatus::unsigned_image;
        out.detail = not_signatures == 0 && found.simple.empty() ? std::string("no sigstore bundle referrer and no .sig tag")
                                                                  : std::to_string(not_signatures + found.simple.size()) + " referrers or .sig layers, none a signature of it: " + why_not;
        out.detail = printable_line(out.detail, kDetailBytes);
        return out;
    }
    Artifact artifact;
    artifact.sha256 = *raw;
    std::string detail;
    for (const Authority& authority : policies_[policy]) {
        std::string first_reason;
        for (const Bundle& bundle : bundles) {
            Result<Verified> ok = verify_bundle(bundle, authority.root, artifact, authority.signer, now);
            if (ok) return {SignatureStatus::verified, {}};
            if (first_reason.empty()) first_reason = ok.error();
        }
        for (const SimpleSignature* s : simple) {
            Result<Verified> ok = verify_simple(*s, authority, now);
            if (ok) return {SignatureStatus::verified, {}};
            if (first_reason.empty()) first_reason = ok.error();
        }
        add_reason(detail, authority.name, first_reason);
    }
    out.status = SignatureStatus::mismatch;
    out.detail = detail.empty() ? "the policy has no authority" : detail;
    return out;
}

}  // namespace miw::sigstore
