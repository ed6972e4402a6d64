#include "model_image_webhook/manifest_text.hpp"

#include "model_image_webhook/yaml_scalar.hpp"

#include <rapidjson/memorystream.h>
#include <rapidjson/reader.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <algorithm>
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

namespace miw {

namespace {

// Lines of offsets asked in increasing order, counted once over the text.
class LineCounter {
public:
    explicit LineCounter(std::string_view text) : text_(text) {}
    std::size_t line_of(std::size_t offset) {
        offset = std::min(offset, text_.size());
        if (offset < at_) {  // asked out of order: count again from the start
            at_ = 0;
            line_ = 1;
        }
        line_ += static_cast<std::size_t>(std::count(text_.begin() + static_cast<std::ptrdiff_t>(at_), text_.begin() + static_cast<std::ptrdiff_t>(offset), '\n'));
        at_ = offset;
        return line_;
    }

private:
    std::string_view text_;
    std::size_t at_ = 0;
    std::size_t line_ = 1;
};

// A member an object repeats a key of, before its last: Go's decoder keeps
// the last value of a key, so the earlier ones are left out of the copy.
// Objects are counted in the order they open; members from 0 in each.
struct EarlierDuplicate {
    std::size_t object;
    std::size_t member;
    auto operator<=>(const EarlierDuplicate&) const = default;
};

// Copies one JSON document as compact JSON, each number as kubectl sends it
// on (100, not 1e2 or 100.0), and notes where it and, for a List, each of
// its items start. A first copy also notes the members that repeat a key;
// where there are any, a second copy is made that leaves them out.
class DocumentCopy : public rapidjson::BaseReaderHandler<rapidjson::UTF8<>, DocumentCopy> {
public:
    DocumentCopy(const rapidjson::MemoryStream& stream, std::size_t base, std::vector<EarlierDuplicate> left_out = {})
        : stream_(stream), base_(base), writer_(buffer_), left_out_(std::move(left_out)) {}

    bool Null() { return scalar() || (value(), writer_.Null()); }
    bool Bool(bool b) { return scalar() || (value(), writer_.Bool(b)); }
    bool RawNumber(const char* text, rapidjson::SizeType length, bool) {
        if (scalar()) return true;
        value();
        Result<std::string> sent = json_number_as_kubectl_sends(std::string_view(text, length));
        if (!sent) {
            error_ = sent.error();
            error_at_ = where();
            return false;
        }
        return writer_.RawValue(sent->data(), sent->size(), rapidjson::kNumberType);
    }
    bool String(const char* text, rapidjson::SizeType length, bool) {
        if (scalar()) return true;
        value();
        const std::string_view s = go_string(text, length);
        return writer_.String(s.data(), static_cast<rapidjson::SizeType>(s.size()));
    }
    bool StartObject() {
        objects_.push_back({opened_++, 0, {}});
        if (skipping_ > 0) return ++skipping_, true;
        if (depth_ == 0) start_ = where(true);
        value(true);
        ++depth_;
        return writer_.StartObject();
    }
    bool Key(const char* text, rapidjson::SizeType length, bool) {
        const std::string_view s = go_string(text, length);
        Frame& f = objects_.back();
        const std::size_t member = f.members++;
        if (skipping_ > 0) return true;
        if (left_out_.empty()) f.keys.emplace_back(s);  // the first copy: note the keys
        if (std::binary_search(left_out_.begin(), left_out_.end(), EarlierDuplicate{f.ordinal, member})) {
            skipping_ = 1;  // this member's value is left out, however deep
            return true;
        }
        if (depth_ == 1) items_key_ = s == "items";
        return writer_.Key(s.data(), static_cast<rapidjson::SizeType>(s.size()));
    }
    bool EndObject(rapidjson::SizeType) {
        note_duplicates(objects_.back());
        objects_.pop_back();
        if (skipping_ > 0) return end_skipped();
        --depth_;
        return writer_.EndObject();
    }
    bool StartArray() {
        if (skipping_ > 0) return ++skipping_, true;
        const bool items = depth_ == 1 && items_key_;
        value(true);
        ++depth_;
        if (items) in_items_ = true;
        return writer_.StartArray();
    }
    bool EndArray(rapidjson::SizeType) {
        if (skipping_ > 0) return end_skipped();
        --depth_;
        if (depth_ == 1) in_items_ = false;
        return writer_.EndArray();
    }

    // The members the first copy found repeating a key (sorted): where any,
    // the document is copied again without them.
    std::vector<EarlierDuplicate> earlier_duplicates() {
        std::sort(duplicates_.begin(), duplicates_.end());
        return duplicates_;
    }

    std::string json() const { return std::string(buffer_.GetString(), buffer_.GetSize()); }
    std::size_t start() const { return start_; }
    const std::vector<std::size_t>& item_starts() const { return item_starts_; }
    // A number no float64 holds: what stopped the copy, and where.
    const std::string& error() const { return error_; }
    std::size_t error_at() const { return error_at_; }

private:
    // A string as Go decodes it: RapidJSON takes a lone low surrogate escape
    // ("\\ude80" after no high one) for a code point and writes it as bytes
    // that are not UTF-8; Go reads it as U+FFFD, which this writes instead.
    static bool surrogate_at(std::string_view t, std::size_t i) {
        return i + 2 < t.size() && static_cast<unsigned char>(t[i]) == 0xED && static_cast<unsigned char>(t[i + 1]) >= 0xA0;
    }
    std::string_view go_string(const char* text, rapidjson::SizeType length) {
        const std::string_view s(text, length);
        std::size_t i = s.find('\xED');
        while (i != std::string_view::npos && !surrogate_at(s, i)) i = s.find('\xED', i + 1);
        if (i == std::string_view::npos) return s;
        repaired_.assign(s.substr(0, i));
        while (i < s.size()) {
            if (surrogate_at(s, i)) {
                repaired_ += "\xEF\xBF\xBD";
                i += 3;
            } else {
                repaired_ += s[i++];
            }
        }
        return repaired_;
    }

    struct Frame {
        std::size_t ordinal;
        std::size_t members;
        std::vector<std::string> keys;  // the first copy's
    };
    // A scalar inside a left-out value: nothing is written; one that is the
    // whole left-out value ends it.
    bool scalar() {
        if (skipping_ == 0) return false;
        if (skipping_ == 1) skipping_ = 0;
        return true;
    }
    bool end_skipped() {
        if (--skipping_ == 1) skipping_ = 0;  // the left-out container closed
        return true;
    }
    void note_duplicates(const Frame& f) {
        if (f.keys.size() < 2) return;
        std::vector<std::size_t> order(f.keys.size());
        for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
        std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return f.keys[a] < f.keys[b]; });
        for (std::size_t i = 0; i + 1 < order.size(); ++i) {
            if (f.keys[order[i]] == f.keys[order[i + 1]]) duplicates_.push_back({f.ordinal, order[i]});
        }
    }

    // The offset in the whole text of the token at hand: RapidJSON's
    // iterative parser calls StartObject and StartArray before it takes the
    // bracket, and the others after their token, so the stream stands on the
    // one and just past the other.
    std::size_t where(bool container = false) const {
        const std::size_t at = stream_.Tell();
        return base_ + (container || at == 0 ? at : at - 1);
    }
    // Every value: an item of the List's items starts here, and a member's
    // value of the document's own object is past its key (StartArray reads
    // whether that key was "items" before this).
    void value(bool container = false) {
        if (in_items_ && depth_ == 2) item_starts_.push_back(where(container));
        if (depth_ == 1) items_key_ = false;
    }

    const rapidjson::MemoryStream& stream_;
    std::size_t base_;
    rapidjson::StringBuffer buffer_;
    rapidjson::Writer<rapidjson::StringBuffer> writer_;
    int depth_ = 0;
    bool items_key_ = false;
    bool in_items_ = false;
    std::size_t start_ = 0;
    std::vector<std::size_t> item_starts_;
    std::string error_;
    std::size_t error_at_ = 0;
    std::string repaired_;  // go_string's copy, when it changed one
    std::vector<EarlierDuplicate> left_out_;  // sorted: the second copy's
    std::vector<EarlierDuplicate> duplicates_;  // found by the first
    std::vector<Frame> objects_;  // the objects open, innermost last
    std::size_t opened_ = 0;  // objects opened so far
    int skipping_ = 0;  // inside a left-out value: 1 + the containers open in it
};

std::size_t skip_space(std::string_view text, std::size_t at) {
    while (at < text.size() && (text[at] == ' ' || text[at] == '\t' || text[at] == '\n' || text[at] == '\r')) ++at;
    return at;
}

constexpr unsigned kJsonFlags =
    rapidjson::kParseStopWhenDoneFlag | rapidjson::kParseValidateEncodingFlag | rapidjson::kParseNumbersAsStringsFlag | rapidjson::kParseIterativeFlag;

}  // namespace

YamlLoad read_manifest_text(std::string_view text) {
    YamlLoad out;
    LineCounter lines(text);
    std::size_t at = skip_space(text, 0);
    // JSON documents while the text goes on with '{'.
    while (at < text.size() && text[at] == '{') {
        rapidjson::MemoryStream stream(text.data() + at, text.size() - at);
        std::optional<DocumentCopy> copy(std::in_place, stream, at);
        rapidjson::Reader reader;
        if (reader.Parse<kJsonFlags>(stream, *copy).IsError()) {
            if (copy->error().empty()) break;  // not JSON from here: the rest is YAML
            out.documents.clear();  // an error, no documents: as load_yaml answers
            out.error = copy->error();
            out.error_line = lines.line_of(copy->error_at());
            return out;
        }
        if (std::vector<EarlierDuplicate> duplicates = copy->earlier_duplicates(); !duplicates.empty()) {
            // The same text read again, the same way, leaving those members out.
            rapidjson::MemoryStream again(text.data() + at, text.size() - at);
            copy.emplace(again, at, std::move(duplicates));
            rapidjson::Reader second;
            second.Parse<kJsonFlags>(again, *copy);  // it read as JSON once: it does again, to the same end
        }
        YamlDocument doc;
        doc.line = lines.line_of(copy->start());
        doc.json = copy->json();
        for (std::size_t item : copy->item_starts()) doc.item_lines.push_back(lines.line_of(item));
        out.documents.push_back(std::move(doc));
        at = skip_space(text, at + stream.Tell());
    }
    if (at >= text.size()) return out;
    YamlLoad rest = load_yaml(text.substr(at));
    // The rest's lines count from where it starts in the text.
    const std::size_t before = lines.line_of(at) - 1;
    for (YamlDocument& doc : rest.documents) {
        doc.line += before;
        for (std::size_t& line : doc.item_lines) line += before;
        out.documents.push_back(std::move(doc));
    }
    if (!rest.ok()) {
        out.documents.clear();
        out.error = std::move(rest.error);
        if (rest.error_line > 0) out.error_line = rest.error_line + before;
    }
    return out;
}

}  // namespace miw
