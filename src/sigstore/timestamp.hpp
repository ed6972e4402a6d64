// An RFC 3161 timestamp (a TimeStampResp, as Sigstore's timestamp authority
// answers and a bundle keeps it) verified as sigstore-go verifies one: its
// imprint the SHA-256 of the signature it stamps, signed by a timestamp
// authority of the trusted root whose chain was valid at the stamped time,
// and that time inside the authority's validity in the trusted root. No
// OpenSSL in this header.
#pragma once

#include "model_image_webhook/result.hpp"
#include "model_image_webhook/sigstore/trusted_root.hpp"

#include <cstdint>
#include <string>
#include <vector>

namespace miw::sigstore {

// The stamped time, in Unix seconds; or why the timestamp does not verify.
Result<std::int64_t> verify_timestamp(const std::string& der, const std::string& stamped, const std::vector<Authority>& authorities);

}  // namespace miw::sigstore
