#include "json_dom.hpp"

#include "compact_json_reader.hpp"
#include "model_image_webhook/text.hpp"

#include <algorithm>
#include <cstdlib>
#include <memory>

namespace miw::json {

namespace {

struct ThreadStackBlock {
    std::unique_ptr<char[]> bytes;
    bool in_use = false;
};

ThreadStackBlock& thread_stack_block() {
    thread_local ThreadStackBlock block;
    return block;
}

}  // namespace

void* WorkStackAllocator::Malloc(std::size_t size) {
    if (size == 0) return nullptr;
    ThreadStackBlock& block = thread_stack_block();
    if (!block.in_use && size <= kBlockBytes) {
        if (!block.bytes) block.bytes.reset(new char[kBlockBytes]);
        block.in_use = true;
        return block.bytes.get();
    }
    return std::malloc(size);
}

void* WorkStackAllocator::Realloc(void* old_block, std::size_t old_size, std::size_t new_size) {
    if (old_block == nullptr) return Malloc(new_size);
    if (new_size == 0) {
        Free(old_block);
        return nullptr;
    }
    ThreadStackBlock& block = thread_stack_block();
    if (old_block != block.bytes.get()) return std::realloc(old_block, new_size);
    if (new_size <= kBlockBytes) return old_block;
    void* grown = std::malloc(new_size);
    if (grown == nullptr) return nullptr;
    std::memcpy(grown, old_block, std::min(old_size, new_size));
    block.in_use = false;
    return grown;
}

void WorkStackAllocator::Free(void* old_block) {
    if (old_block == nullptr) return;
    ThreadStackBlock& block = thread_stack_block();
    if (old_block == block.bytes.get()) block.in_use = false;
    else std::free(old_block);
}

namespace {

const char* const kOverBudget = "it holds more JSON values than the memory at hand can read now";

// Where the first escaped low surrogate without a high one before it is, in
// text that parsed as JSON (so every backslash is in a string, its escapes in
// step from the string's start); npos where there is none. RapidJSON 1.1
// refuses a high surrogate left alone but writes a low one out as the three
// bytes of no character, invalid UTF-8 the rules would then read and a patch
// carry; later RapidJSON refuses both, and so does this reader.
std::size_t unpaired_low_surrogate(std::string_view text) {
    for (std::size_t i = text.find('\\'); i != std::string_view::npos && i + 1 < text.size(); i = text.find('\\', i)) {
        // The code unit of a \uXXXX escape, or -1 for any other.
        const long unit = text[i + 1] == 'u' && i + 6 <= text.size() ? compact_json::hex4(text.data() + i + 2) : -1;
        if (unit >= 0xDC00 && unit <= 0xDFFF) return i;
        // A high surrogate parsed, so the low one after it is its pair.
        i += unit >= 0xD800 && unit <= 0xDBFF ? 12 : unit >= 0 ? 6 : 2;
    }
    return std::string_view::npos;
}

}  // namespace

// The text gets kReviewBodySlack NULs more while it is parsed, for two reasons:
// RapidJSON's UTF-8 validation takes the tail bytes of a multi-byte sequence
// before it judges them (a lead byte at the very end would read, and write
// back in situ, up to three bytes past the terminator; a NUL is never a valid
// tail byte, so the parse fails where it should), and its SSE2 string scan
// loads 16 aligned bytes at a time. Every read stays inside the text.
//
// Parses text in place into doc; an error message, or empty.
std::string parse_document(std::string& text, Document& doc, JsonReader reader_choice, UnreadValues unread, ParseMemory* memory) {
    const std::size_t length = text.size();
    // No need to look at the bytes first: the compact reader declines what it
    // does not take (an escape, a byte outside printable ASCII) where it meets it.
    if (reader_choice == JsonReader::compact_first) {
        DepthLimitedBuilder compact_builder(doc, unread == UnreadValues::skipped, memory);
        bool read = false;
        auto generate = [&](Document&) {
            read = read_compact_json<kMaxJsonDepth>(text, compact_builder) == CompactRead::parsed;
            return read;
        };
        doc.Populate(generate);
        if (read) return {};
        if (compact_builder.over_budget()) return kOverBudget;
        // Declined: the text is as it came, and RapidJSON reads it and words any
        // error. What the first read took stays taken, and the second goes on
        // from the free part it left (ParseMemory::free_values): its values are
        // in the arena until the review ends.
    }
    const bool printable = is_printable_ascii(text);
    const std::size_t lone_surrogate = unpaired_low_surrogate(text);
    text.append(kReviewBodySlack, '\0');
    DepthLimitedBuilder builder(doc, false, memory);
    rapidjson::InsituStringStream stream(text.data());
    rapidjson::ParseResult parsed;
    auto generate = [&](Document&) {
        rapidjson::Reader reader;
        parsed = printable ? reader.Parse<kPrintableAsciiParseFlags>(stream, builder) : reader.Parse<kParseFlags>(stream, builder);
        return !parsed.IsError();
    };
    doc.Populate(generate);
    text.resize(length);  // shrinking keeps the buffer the DOM's strings point into
    if (builder.too_deep()) return "it nests JSON deeper than " + std::to_string(kMaxJsonDepth) + " levels; no Kubernetes object does";
    if (builder.over_budget()) return kOverBudget;
    if (parsed.IsError()) {
        // A number the builder refused as past the largest double stopped the
        // parse at the number's own offset, as RapidJSON's refusal of 1e400 does.
        const rapidjson::ParseErrorCode code = builder.too_big() ? rapidjson::kParseErrorNumberTooBig : parsed.Code();
        return std::string("it is not valid JSON: ") + rapidjson::GetParseError_En(code) + " (at byte " + std::to_string(parsed.Offset()) + ")";
    }
    if (stream.Tell() != length) return "it is not valid JSON: a NUL byte at byte " + std::to_string(stream.Tell());
    if (lone_surrogate != std::string_view::npos) {
        return std::string("it is not valid JSON: ") + rapidjson::GetParseError_En(rapidjson::kParseErrorStringUnicodeSurrogateInvalid) + " (at byte " +
               std::to_string(lone_surrogate) + ")";
    }
    return {};
}


std::string serialize(const Value& v) {
    StringOutput out;
    JsonWriter w(out);
    v.Accept(w);
    return std::move(out.text);
}

std::string string_member(const Value* obj, std::string_view name) {
    const Value* v = member(obj, name);
    return v != nullptr && v->IsString() ? std::string(view(*v)) : std::string();
}

}  // namespace miw::json
