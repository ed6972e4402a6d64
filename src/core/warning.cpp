#include "model_image_webhook/warning.hpp"

#include "model_image_webhook/text.hpp"

#include <algorithm>

namespace miw {

namespace {

constexpr std::string_view kCut = "...";

}  // namespace

Warning& Warning::say(std::string_view words) {
    if (text_.empty()) text_.reserve(kMaxWarningBytes);  // one allocation for what nearly every warning becomes
    text_ += words;
    return *this;
}

Warning& Warning::quote(std::string_view value, std::size_t max_bytes) {
    const std::string_view shown = utf8_prefix(value, max_bytes);
    if (text_.empty()) text_.reserve(kMaxWarningBytes);
    const std::size_t begin = text_.size();
    text_ += '"';
    append_go_escaped(text_, shown);
    text_ += '"';
    if (shown.size() < value.size()) (text_ += "... (") += std::to_string(value.size()) + " bytes)";
    parts_.push_back({Kind::quoted, begin, text_.size(), std::string(shown)});
    return *this;
}

Warning& Warning::bare(std::string_view text, std::size_t max_bytes) {
    const std::string_view shown = utf8_prefix(text, max_bytes);
    if (text_.empty()) text_.reserve(kMaxWarningBytes);
    const std::size_t begin = text_.size();
    append_printable(text_, shown);
    if (shown.size() < text.size()) text_ += kCut;
    parts_.push_back({Kind::bare, begin, text_.size(), std::string(shown)});
    return *this;
}

Warning& Warning::prefix(std::string_view words) {
    text_.insert(0, words);
    for (ClientPart& p : parts_) {
        p.begin += words.size();
        p.end += words.size();
    }
    return *this;
}

std::string Warning::text() const& { return text_.size() <= kMaxWarningBytes ? text_ : fitted(); }

std::string Warning::text() && { return text_.size() <= kMaxWarningBytes ? std::move(text_) : fitted(); }

std::string Warning::fitted() const {
    // The room the words leave, shared among the client's parts: the
    // shortest keep what they have, the rest share what is left evenly.
    std::size_t words = text_.size();
    for (const ClientPart& p : parts_) words -= p.end - p.begin;
    std::size_t room = kMaxWarningBytes - std::min(words, kMaxWarningBytes);
    std::vector<std::size_t> order(parts_.size());
    for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
    const auto size = [&](std::size_t i) { return parts_[i].end - parts_[i].begin; };
    std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return size(a) < size(b); });
    std::vector<std::string> shown(parts_.size());
    for (std::size_t k = 0; k < order.size(); ++k) {
        const std::size_t i = order[k];
        const ClientPart& p = parts_[i];
        const std::size_t share = room / (order.size() - k);
        if (size(i) <= share) {
            shown[i] = text_.substr(p.begin, size(i));
        } else {
            const std::size_t frame = kCut.size() + (p.kind == Kind::quoted ? 2 : 0);
            const std::size_t content = share > frame ? share - frame : 0;
            if (p.kind == Kind::quoted) {
                shown[i] = "\"";
                append_go_escaped(shown[i], p.source, content);
                (shown[i] += kCut) += '"';
            } else {
                append_printable(shown[i], p.source, content);
                shown[i] += kCut;
            }
        }
        room -= std::min(room, shown[i].size());
    }
    std::string out;
    out.reserve(kMaxWarningBytes);
    std::size_t at = 0;
    for (std::size_t i = 0; i < parts_.size(); ++i) {
        out.append(text_, at, parts_[i].begin - at);
        out += shown[i];
        at = parts_[i].end;
    }
    out.append(text_, at, std::string_view::npos);
    // Words alone past the limit (none of the rules' are) are cut at the end.
    return warning_line(out);
}

}  // namespace miw
