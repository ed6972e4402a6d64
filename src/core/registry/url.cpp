#include "model_image_webhook/registry/url.hpp"

#include "model_image_webhook/registry/locator.hpp"

#include <algorithm>

namespace miw {

std::optional<Url> parse_url(std::string_view text) {
    Url out;
    if (text.rfind("https://", 0) == 0) {
        text.remove_prefix(8);
    } else if (text.rfind("http://", 0) == 0) {
        out.tls = false;
        text.remove_prefix(7);
    } else {
        return std::nullopt;
    }
    const std::size_t slash = text.find_first_of("/?#");
    out.authority = std::string(text.substr(0, slash));
    out.path_and_query = slash == std::string_view::npos ? "/" : std::string(text.substr(slash));
    if (const std::size_t hash = out.path_and_query.find('#'); hash != std::string::npos) out.path_and_query.erase(hash);
    if (out.path_and_query.empty() || out.path_and_query.front() == '?') out.path_and_query.insert(0, "/");
    if (out.authority.empty() || out.authority.find_first_of("@ ") != std::string::npos) return std::nullopt;
    std::optional<HostPort> split = split_authority(out.authority);
    if (!split) return std::nullopt;
    out.host = std::move(split->host);
    out.port = std::move(split->port);
    if (out.port.empty()) out.port = out.tls ? "443" : "80";
    if (out.host.empty() || out.port.find_first_not_of("0123456789") != std::string::npos) return std::nullopt;
    return out;
}

std::string redact_url(std::string_view text, std::size_t limit) {
    std::string_view scheme;
    const auto scheme_char = [](char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '+' || c == '-' || c == '.'; };
    if (const std::size_t s = text.find("://"); s != std::string_view::npos && s > 0 && s < 16 &&
                                                 std::all_of(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(s), scheme_char)) {
        scheme = text.substr(0, s + 3);
        text.remove_prefix(s + 3);
    }
    const std::size_t end_of_authority = text.find_first_of("/?#");
    std::string_view authority = text.substr(0, end_of_authority);
    if (const std::size_t at = authority.rfind('@'); at != std::string_view::npos) authority.remove_prefix(at + 1);
    std::string_view rest = end_of_authority == std::string_view::npos ? std::string_view() : text.substr(end_of_authority);
    const std::size_t query = rest.find_first_of("?#");
    const bool had_query = query != std::string_view::npos;
    std::string_view path = rest.substr(0, query);
    std::string out(scheme);
    out += authority;
    if (path.size() > limit) {
        out += path.substr(0, limit);
        out += "...";
    } else {
        out += path;
    }
    if (had_query) out += "?...";
    return out;
}

}  // namespace miw
