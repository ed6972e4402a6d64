#include "checkpoint.hpp"

#include "model_image_webhook/text.hpp"

#include <charconv>

namespace miw::sigstore {

namespace {

constexpr std::string_view kSignaturePrefix = "\xE2\x80\x94 ";  // an em dash and a space

}  // namespace

Result<Checkpoint> read_checkpoint(std::string_view envelope) {
    const std::size_t blank = envelope.find("\n\n");
    if (blank == std::string_view::npos) return fail("the checkpoint has no blank line before its signatures");
    Checkpoint out;
    out.signed_text = std::string(envelope.substr(0, blank + 1));
    std::string_view body = envelope.substr(0, blank + 1);
    const auto line = [&]() -> std::string_view {
        const std::size_t end = body.find('\n');
        const std::string_view l = body.substr(0, end);
        body.remove_prefix(end == std::string_view::npos ? body.size() : end + 1);
        return l;
    };
    out.origin = std::string(line());
    if (out.origin.empty()) return fail("the checkpoint names no origin");
    const std::string_view size = line();
    const auto [end, ec] = std::from_chars(size.data(), size.data() + size.size(), out.size);
    if (size.empty() || ec != std::errc() || end != size.data() + size.size()) return fail("the checkpoint's tree size is not a number");
    const std::optional<std::string> root = base64_decode(line());
    if (!root || root->size() != 32) return fail("the checkpoint's root hash is not 32 bytes of base64");
    out.root_hash = *root;
    std::string_view signatures = envelope.substr(blank + 2);
    while (!signatures.empty()) {
        const std::size_t end_of_line = signatures.find('\n');
        std::string_view l = signatures.substr(0, end_of_line);
        signatures.remove_prefix(end_of_line == std::string_view::npos ? signatures.size() : end_of_line + 1);
        if (l.empty()) continue;
        if (l.substr(0, kSignaturePrefix.size()) != kSignaturePrefix) return fail("a checkpoint signature line does not begin with an em dash");
        l.remove_prefix(kSignaturePrefix.size());
        const std::size_t space = l.rfind(' ');
        if (space == std::string_view::npos) return fail("a checkpoint signature line has no signature");
        const std::optional<std::string> raw = base64_decode(l.substr(space + 1));
        if (!raw || raw->size() < 5) return fail("a checkpoint signature is not base64 of a key hash and a signature");
        out.signatures.push_back({std::string(l.substr(0, space)), raw->substr(0, 4), raw->substr(4)});
    }
    if (out.signatures.empty()) return fail("the checkpoint is not signed");
    return out;
}

namespace {

// C2SP signed-note: SHA-256(name || 0x0A || 0x01 || the Ed25519 key's 32 bytes).
std::string ed25519_key_hash(const PublicKey& key, std::string_view name) {
    const std::string der = key.der();
    if (der.size() < 32) return {};
    return sha256(std::string(name) + "\n\x01" + der.substr(der.size() - 32));
}

}  // namespace

std::string derived_log_id(const PublicKey& key, std::string_view base_url) {
    if (!key.is_ed25519()) return sha256(key.der());
    std::string_view host = base_url;
    if (const std::size_t scheme = host.find("://"); scheme != std::string_view::npos) host.remove_prefix(scheme + 3);
    return ed25519_key_hash(key, host.substr(0, host.find('/')));
}

bool checkpoint_signed_by(const Checkpoint& checkpoint, const PublicKey& key, const std::string& log_id) {
    std::string hint = log_id.substr(0, 4);
    if (key.is_ed25519()) {
        hint = ed25519_key_hash(key, checkpoint.origin).substr(0, 4);
        if (hint.empty()) return false;
    }
    for (const NoteSignature& s : checkpoint.signatures) {
        if (s.key_hash != hint || (key.is_ed25519() && s.name != checkpoint.origin)) continue;
        if (key.verifies(checkpoint.signed_text, s.signature)) return true;
    }
    return false;
}

}  // namespace miw::sigstore
