// cosign's legacy signatures (`sha256-HEX.sig`, cosign v2 and before): each
// layer a simple-signing payload signed by a key or a Fulcio certificate,
// with the Rekor entry that logged it beside (the `dev.sigstore.cosign/bundle`
// annotation). Read by src/codec/sigstore_simple_signing.cpp; no JSON
// library here.
#pragma once

#include "model_image_webhook/result.hpp"
#include "model_image_webhook/sigstore/bundle.hpp"

#include <string>

namespace miw::sigstore {

// The digest a simple-signing payload signs:
// critical.image.docker-manifest-digest, its keys compared as Go's JSON
// decoder compares them (an exact match first, else case-insensitively).
Result<std::string> simple_signing_digest(std::string payload);

// The `dev.sigstore.cosign/bundle` annotation: {"SignedEntryTimestamp",
// "Payload": {"body", "integratedTime", "logIndex", "logID"}} as the log
// entry a bundle holds, its kind and version read from the body.
Result<TlogEntry> read_cosign_rekor_bundle(std::string text);

}  // namespace miw::sigstore
