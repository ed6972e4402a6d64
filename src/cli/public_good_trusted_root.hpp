// The Sigstore public-good trusted root shipped with the binary (a dated copy:
// scripts/refresh-trusted-root.sh renews it from @sigstore/tuf's seeds).
#pragma once

namespace miw::cli {

extern const char* const kPublicGoodTrustedRoot;

}  // namespace miw::cli
