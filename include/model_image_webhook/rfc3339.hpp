// An RFC 3339 time as protobuf's JSON writes a Timestamp
// ("2021-10-07T13:56:59Z", "2022-04-13T20:06:15.000Z", "...+01:00"), as Unix
// seconds (a fraction dropped); nullopt for anything else.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace miw {

std::optional<std::int64_t> parse_rfc3339(std::string_view text);

}  // namespace miw
