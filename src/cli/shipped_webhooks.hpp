// The webhook configurations the project ships (manifests/base/webhooks.yaml),
// built into the binary for the test mode's selection.
#pragma once

namespace miw::cli {

extern const char* const kShippedWebhooks;

}  // namespace miw::cli
