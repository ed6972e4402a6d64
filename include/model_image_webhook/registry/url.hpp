// The absolute URLs a registry hands out: a Bearer challenge's token realm,
// which the webhook calls, and a redirect's Location, which it only reports.
// A Location is often a presigned object-store URL whose query carries a
// signature, so what is reported of one never holds its query or userinfo.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace miw {

struct Url {
    bool tls = true;  // https
    std::string host;  // without brackets for IPv6
    std::string port;  // the scheme's own when the URL names none
    std::string authority;  // host[:port] as written
    std::string path_and_query;  // "/" at least
};

// http:// and https:// only; nullopt for anything else, or userinfo in the authority.
std::optional<Url> parse_url(std::string_view text);

// scheme://authority/path with the query and fragment replaced by "?..." and
// userinfo dropped; at most `limit` bytes of the path.
std::string redact_url(std::string_view text, std::size_t limit = 160);

}  // namespace miw
