// A Kubernetes resource quantity ("104854512Ki", "100Gi", "1.5T", "5e9"), as
// a Node's status.capacity writes one, read as a number of bytes.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace miw {

// The quantity in whole units, rounded up as resource.Quantity.Value() does;
// nullopt for text that is no quantity, a negative one, or one past 2^64.
std::optional<std::uint64_t> parse_quantity(std::string_view text);

}  // namespace miw
