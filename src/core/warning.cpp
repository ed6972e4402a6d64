#include "model_image_webhook/warning.hpp"

#include "model_image_webhook/text.hpp"

#include <algorithm>
#include <numeric>

namespace miw {

namespace {

constexpr std::string_view kCut = "...";

}  // namespace

Warning& Warning::say(std::string_view words) {
    parts_.push_back({Kind::words, std::string(words), words.size()});
    return *this;
}

Warning& Warning::quote(std::string_view value, std::size_t max_bytes) {
    parts_.push_back({Kind::quoted, std::string(utf8_prefix(value, max_bytes)), value.size()});
    return *this;
}

Warning& Warning::bare(std::string_view text, std::size_t max_bytes) {
    parts_.push_back({Kind::bare, std::string(utf8_prefix(text, max_bytes)), text.size()});
    return *this;
}

Warning& Warning::prefix(std::string_view words) {
    parts_.insert(parts_.begin(), Part{Kind::words, std::string(words), words.size()});
    return *this;
}

std::string Warning::text() const {
    // Each part as it is shown whole (a client's part up to its max_bytes).
    std::vector<std::string> shown(parts_.size());
    for (std::size_t i = 0; i < parts_.size(); ++i) {
        const Part& p = parts_[i];
        std::string& out = shown[i];
        switch (p.kind) {
            case Kind::words: out = p.text; break;
            case Kind::quoted:
                out = "\"";
                append_go_escaped(out, p.text);
                out += '"';
                if (p.whole_size > p.text.size()) out += "... (" + std::to_string(p.whole_size) + " bytes)";
                break;
            case Kind::bare:
                append_printable(out, p.text);
                if (p.whole_size > p.text.size()) out += kCut;
                break;
        }
    }
    const auto total = [&] { return std::accumulate(shown.begin(), shown.end(), std::size_t{0}, [](std::size_t n, const std::string& s) { return n + s.size(); }); };
    if (total() > kMaxWarningBytes) {
        // The room the words leave, shared among the client's parts: the
        // shortest keep what they have, the rest share what is left evenly.
        std::size_t room = kMaxWarningBytes;
        std::vector<std::size_t> client;
        for (std::size_t i = 0; i < parts_.size(); ++i) {
            if (parts_[i].kind == Kind::words) room -= std::min(room, shown[i].size());
            else client.push_back(i);
        }
        std::sort(client.begin(), client.end(), [&](std::size_t a, std::size_t b) { return shown[a].size() < shown[b].size(); });
        for (std::size_t k = 0; k < client.size(); ++k) {
            const std::size_t i = client[k];
            const std::size_t share = room / (client.size() - k);
            if (shown[i].size() > share) {
                const Part& p = parts_[i];
                const std::size_t frame = kCut.size() + (p.kind == Kind::quoted ? 2 : 0);
                const std::size_t content = share > frame ? share - frame : 0;
                std::string& out = shown[i];
                out.clear();
                if (p.kind == Kind::quoted) {
                    out = "\"";
                    append_go_escaped(out, p.text, content);
                    out += kCut;
                    out += '"';
                } else {
                    append_printable(out, p.text, content);
                    out += kCut;
                }
            }
            room -= std::min(room, shown[i].size());
        }
    }
    std::string out;
    out.reserve(total());
    for (const std::string& s : shown) out += s;
    // Words alone past the limit (none of the rules' are): cut at the end,
    // and control characters in the words go as the apiserver would drop them.
    return warning_line(out);
}

}  // namespace miw
