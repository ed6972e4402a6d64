// A duration as Go's time.ParseDuration reads it: what the apiserver writes
// in ?timeout=, what a credential provider writes in cacheDuration (a
// metav1.Duration), and what the command line takes. One reader for all of
// them, so that "1.5h", "2m30s", "500us" and "0" mean here what they mean to
// the kubelet and the apiserver.
#pragma once

#include <chrono>
#include <optional>
#include <string_view>

namespace miw {

// [-+]?([0-9]*(\.[0-9]*)?(ns|us|µs|μs|ms|s|m|h))+, or "0"; nullopt for
// anything else, and for a value past what an int64 of nanoseconds holds
// (Go refuses it as overflow). A fraction beyond nanoseconds is truncated.
std::optional<std::chrono::nanoseconds> parse_go_duration(std::string_view text);

}  // namespace miw
