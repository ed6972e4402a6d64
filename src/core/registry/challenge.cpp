#include "model_image_webhook/registry/challenge.hpp"

#include <algorithm>
#include <cctype>

namespace miw {

std::string_view AuthChallenge::param(std::string_view name) const {
    for (const auto& [key, value] : params) {
        if (key == name) return value;
    }
    return {};
}

namespace {

bool is_tchar(char c) {
    return std::isalnum(static_cast<unsigned char>(c)) != 0 || std::string_view("!#$%&'*+-.^_`|~").find(c) != std::string_view::npos;
}

std::string lower(std::string_view text) {
    std::string out(text);
    std::transform(out.begin(), out.end(), out.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return out;
}

// A cursor over the header; every read either advances or reports failure.
class Reader {
public:
    explicit Reader(std::string_view text) : text_(text) {}

    bool at_end() const { return pos_ >= text_.size(); }
    char peek() const { return at_end() ? '\0' : text_[pos_]; }
    std::size_t pos() const { return pos_; }
    void skip_spaces() {
        while (!at_end() && (text_[pos_] == ' ' || text_[pos_] == '\t')) ++pos_;
    }
    // Spaces and empty list elements (RFC 7230 7: "a, , b" is a list of two).
    void skip_separators() {
        while (!at_end() && (text_[pos_] == ' ' || text_[pos_] == '\t' || text_[pos_] == ',')) ++pos_;
    }
    std::string_view token() {
        const std::size_t start = pos_;
        while (!at_end() && is_tchar(text_[pos_])) ++pos_;
        return text_.substr(start, pos_ - start);
    }
    void rewind(std::size_t to) { pos_ = to; }
    bool take(char c) {
        if (peek() != c) return false;
        ++pos_;
        return true;
    }
    // After the opening quote: the unescaped text up to the closing one.
    Result<std::string> quoted_rest() {
        std::string out;
        while (!at_end()) {
            const char c = text_[pos_++];
            if (c == '"') return out;
            if (c == '\\') {
                if (at_end()) break;
                out += text_[pos_++];
            } else if (static_cast<unsigned char>(c) < 0x20 && c != '\t') {
                return fail("a control character inside a quoted value of the WWW-Authenticate header");
            } else {
                out += c;
            }
        }
        return fail("a quoted value of the WWW-Authenticate header is not closed");
    }

private:
    std::string_view text_;
    std::size_t pos_ = 0;
};

}  // namespace

Result<std::vector<AuthChallenge>> parse_www_authenticate(std::string_view header) {
    if (header.size() > kMaxChallengeHeaderBytes) return fail("the WWW-Authenticate header is longer than " + std::to_string(kMaxChallengeHeaderBytes) + " bytes");
    std::vector<AuthChallenge> out;
    Reader r(header);
    r.skip_separators();
    while (!r.at_end()) {
        const std::string_view scheme = r.token();
        if (scheme.empty()) return fail("the WWW-Authenticate header has no scheme at byte " + std::to_string(r.pos() + 1));
        AuthChallenge challenge{lower(scheme), {}};
        r.skip_spaces();
        // Its parameters, up to the next scheme: a token not followed by '='.
        while (!r.at_end()) {
            const std::size_t start = r.pos();
            const std::string_view name = r.token();
            if (name.empty()) {
                if (r.peek() == ',') {
                    r.skip_separators();
                    continue;
                }
                return fail("the WWW-Authenticate header has an unexpected character at byte " + std::to_string(r.pos() + 1));
            }
            r.skip_spaces();
            if (!r.take('=')) {
                r.rewind(start);  // a new challenge's scheme
                break;
            }
            r.skip_spaces();
            std::string value;
            if (r.take('"')) {
                Result<std::string> quoted = r.quoted_rest();
                if (!quoted) return fail(quoted.error());
                value = std::move(*quoted);
            } else {
                const std::string_view plain = r.token();
                // token68 ("Basic dXNlcjpwYXNz==") carries no parameters to keep.
                if (plain.empty() && (r.at_end() || r.peek() == '=' || r.peek() == ',')) {
                    while (r.take('=')) {
                    }
                    r.skip_separators();
                    continue;
                }
                if (plain.empty()) return fail("the WWW-Authenticate parameter \"" + std::string(name) + "\" has no value");
                value = std::string(plain);
            }
            challenge.params.emplace_back(lower(name), std::move(value));
            r.skip_spaces();
            if (!r.at_end() && r.peek() != ',') return fail("the WWW-Authenticate header has an unexpected character at byte " + std::to_string(r.pos() + 1));
            r.skip_separators();
        }
        out.push_back(std::move(challenge));
        r.skip_separators();
    }
    if (out.empty()) return fail("the WWW-Authenticate header holds no challenge");
    return out;
}

}  // namespace miw
