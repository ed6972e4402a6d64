// A warning as the apiserver passes it on: at most kMaxWarningBytes, no
// control characters (design.md section 3). Every warning the rules give is
// built here, from the product's own words and the parts a client chose (a
// container's name, a model, a flag's value), so the limit holds by
// construction and a long name never costs the advice at the end.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace miw {

class Warning {
public:
    Warning() = default;
    explicit Warning(std::string_view words) { say(words); }

    // The product's own words (printable, never a client's): never cut.
    Warning& say(std::string_view words);
    // A client's value, quoted as Go's %q quotes it; first shown up to
    // max_bytes of it (longer: "... (N bytes)" after the quotes, as field
    // errors show values), then cut further where the warning needs room.
    Warning& quote(std::string_view value, std::size_t max_bytes = 128);
    // A client's text shown as it is (a variable's name, a command, a
    // message): control characters become spaces; cut like a quoted value.
    Warning& bare(std::string_view text, std::size_t max_bytes = 128);
    // Words put before everything said so far (the field a warning is about).
    Warning& prefix(std::string_view words);

    // The warning's text: whole where it fits kMaxWarningBytes; else the
    // client's parts are cut, each ending "...", the longest the most, until
    // it does, and the product's words stay whole.
    std::string text() const&;
    std::string text() &&;

private:
    enum class Kind : unsigned char { quoted, bare };
    // A client's part: where its rendering stands in text_, and its text
    // (its first max_bytes), to render it again shorter.
    struct ClientPart {
        Kind kind;
        std::size_t begin, end;
        std::string source;
    };
    std::string fitted() const;

    std::string text_;  // everything, each part shown whole
    std::vector<ClientPart> parts_;
};

}  // namespace miw
