// The codec's one door to RapidJSON: the only file that includes it, with the
// settings every parse shares (SSE2, in-place iterative parsing, UTF-8
// validation), and the helpers that read a DOM safely. Private to src/codec.
#pragma once

#include "model_image_webhook/admission.hpp"
#include "model_image_webhook/admission_review.hpp"

// RapidJSON scans the unescaped run of a string 16 bytes at a time with SSE2
// (every x86-64 has it) when it need not validate UTF-8 byte by byte; its
// aligned loads may reach 15 bytes past the end, which kReviewBodySlack covers.
// That scan misses the control characters 0x1A to 0x1F (it tests for 0x19 and
// below), so it only ever sees text without any control character.
#if defined(__SSE2__) && !defined(RAPIDJSON_SSE2)
#define RAPIDJSON_SSE2
#endif
#include <rapidjson/document.h>
#include <rapidjson/error/en.h>
#include <rapidjson/reader.h>
#include <rapidjson/writer.h>

#include <array>
#include <cmath>
#include <cstring>
#include <string>
#include <string_view>

namespace miw::json {

// RapidJSON's parse stack as a RapidJSON StackAllocator: the first block, up
// to kBlockBytes, is the calling thread's own and kept between parses, so
// that an ordinary review's parse takes no heap memory for it; a stack that
// outgrows it, or a second one on the thread while the first is in use,
// comes from the heap.
class WorkStackAllocator {
public:
    static constexpr std::size_t kBlockBytes = 16u << 10;
    static const bool kNeedFree = true;
    void* Malloc(std::size_t size);
    void* Realloc(void* block, std::size_t old_size, std::size_t new_size);
    static void Free(void* block);
};

using Document = rapidjson::GenericDocument<rapidjson::UTF8<>, rapidjson::MemoryPoolAllocator<>, WorkStackAllocator>;
using rapidjson::SizeType;
using rapidjson::Value;
// RapidJSON's writer into a std::string, not into its StringBuffer:
// Writer<StringBuffer> has its own SSE2 scan of a string's unescaped run, with
// the reader's blind spot (0x1A to 0x1F pass unescaped, so a key holding
// \u001A came out as a raw control character, which no JSON reader takes).
// Over any other stream it escapes byte by byte, as JSON requires.
struct StringOutput {
    using Ch = char;
    std::string text;
    void Put(char c) { text.push_back(c); }
    void Flush() {}
};
using JsonWriter = rapidjson::Writer<StringOutput>;

constexpr unsigned kParseFlags = rapidjson::kParseInsituFlag | rapidjson::kParseIterativeFlag | rapidjson::kParseValidateEncodingFlag;
// Printable ASCII (what the apiserver sends: compact JSON, non-ASCII escaped
// or absent) holds no UTF-8 sequence to validate and no control character:
// the same parse without the per-byte check, its strings scanned with SSE2.
// Anything else, pretty-printed JSON included, takes the byte-by-byte parse.
constexpr unsigned kPrintableAsciiParseFlags = kParseFlags & ~rapidjson::kParseValidateEncodingFlag;

// The memory one parse takes from a ReviewMemory budget, given back when
// this goes (after the Document it was taken for: declare it first).
class ParseMemory {
public:
    // held: what the request holds of the budget already (its body).
    explicit ParseMemory(ReviewMemory* budget, std::size_t held = 0) : budget_(budget), held_(held) {}
    ~ParseMemory() {
        if (reserved_ > 0) budget_->release(reserved_);
    }
    ParseMemory(const ParseMemory&) = delete;
    ParseMemory& operator=(const ParseMemory&) = delete;

    bool limited() const { return budget_ != nullptr; }
    // Values a builder may still add before it takes a block. Kept here, not in
    // the builder: when the compact reader declines a text partway, what it
    // built stays in the arena, and RapidJSON's read of the same text goes on
    // from where the first left the free part, not from a fresh one.
    std::size_t& free_values() { return free_values_; }
    bool take(std::size_t bytes) {
        if (!budget_->reserve(bytes)) {
            refused_ = true;
            never_fits_ = held_ + reserved_ + bytes > budget_->capacity();
            return false;
        }
        reserved_ += bytes;
        return true;
    }
    // A block was refused: the parse stopped for want of memory, not for the text.
    bool refused() const { return refused_; }
    // ...and the block would not have fitted with nothing else in flight.
    bool never_fits() const { return never_fits_; }
    // What the budget holds, and what this parse took of it before it stopped.
    std::size_t capacity() const { return budget_->capacity(); }
    std::size_t needed_at_least() const { return held_ + reserved_ + kBlockValues * kBytesPerValue; }

    // Each value built (a member's key counts as one) holds 16 bytes in the
    // DOM and, while its container is open, 16 on the parse stack. The first
    // kFreeValues (256 KiB at 32 bytes) are not counted: they fit the thread's
    // arena, with its parse stack's block. Past them memory is counted in
    // blocks of kBlockValues (whether the arena, larger, still holds them or
    // not: the budget errs on the side of counting).
    static constexpr std::size_t kBytesPerValue = 32;
    static constexpr std::size_t kFreeValues = (256u << 10) / kBytesPerValue;
    static constexpr std::size_t kBlockValues = (256u << 10) / kBytesPerValue;

private:
    ReviewMemory* budget_;
    std::size_t held_ = 0;
    std::size_t reserved_ = 0;
    std::size_t free_values_ = kFreeValues;
    bool refused_ = false;
    bool never_fits_ = false;
};

// Builds the Document from SAX events, refusing nesting past kMaxJsonDepth
// so that nothing that walks the tree later can run out of stack, and, with
// a ParseMemory, taking memory for what it builds as it builds it.
class DepthLimitedBuilder {
public:
    // skip_unread: say to the compact reader which values no rule reads
    // (SkipValue below), so that they are checked but not built.
    explicit DepthLimitedBuilder(Document& doc, bool skip_unread = false, ParseMemory* memory = nullptr)
        : doc_(doc), skip_unread_(skip_unread), memory_(memory != nullptr && memory->limited() ? memory : nullptr),
          values_left_(memory_ != nullptr ? memory_->free_values() : static_cast<std::size_t>(-1)) {}
    ~DepthLimitedBuilder() {
        if (memory_ != nullptr) memory_->free_values() = values_left_;
    }
    DepthLimitedBuilder(const DepthLimitedBuilder&) = delete;
    DepthLimitedBuilder& operator=(const DepthLimitedBuilder&) = delete;

    bool Null() { return built() && doc_.Null(); }
    bool Bool(bool b) { return built() && doc_.Bool(b); }
    bool Int(int i) { return built() && doc_.Int(i); }
    bool Uint(unsigned i) { return built() && doc_.Uint(i); }
    bool Int64(int64_t i) { return built() && doc_.Int64(i); }
    bool Uint64(uint64_t i) { return built() && doc_.Uint64(i); }
    // RapidJSON 1.1 checks a number's written exponent, not its value: it
    // reads 77777777037700E300 as infinity, which Go's decoder refuses and no
    // JSON writer can write back (a patch for such an object would not apply).
    // Refused as RapidJSON refuses 1e400.
    bool Double(double d) {
        if (!std::isfinite(d)) {
            too_big_ = true;
            return false;
        }
        return built() && doc_.Double(d);
    }
    bool RawNumber(const char* str, SizeType length, bool copy) { return built() && doc_.RawNumber(str, length, copy); }
    bool String(const char* str, SizeType length, bool copy) { return built() && doc_.String(str, length, copy); }
    __attribute__((always_inline)) bool Key(const char* str, SizeType length, bool copy) {
        if (skip_unread_ && depth_ < kKeyDepth) note_key(std::string_view(str, length));
        return built() && doc_.Key(str, length, copy);
    }
    __attribute__((always_inline)) bool StartObject() {
        if (!built() || !enter()) return false;
        // The object is the value of the key just read: is it metadata, or annotations?
        if (depth_ < kKeyDepth) {
            container_[depth_] = last_key_;
            last_key_ = Named::other;
        }
        return doc_.StartObject();
    }
    bool EndObject(SizeType members) { --depth_; return doc_.EndObject(members); }
    __attribute__((always_inline)) bool StartArray() {
        if (!built() || !enter()) return false;
        if (depth_ < kKeyDepth) {
            container_[depth_] = Named::other;
            last_key_ = Named::other;
        }
        return doc_.StartArray();
    }
    bool EndArray(SizeType elements) { --depth_; return doc_.EndArray(elements); }

    // Whether the value of the member just keyed is one no rule reads, in any
    // object: metadata.managedFields (the field managers' bookkeeping), and
    // the kubectl.kubernetes.io/last-applied-configuration annotation (the
    // whole object again, as one string). Kept as null.
    bool SkipValue() const { return skip_; }

    bool too_deep() const { return too_deep_; }
    // The parse stopped at a number past the largest double.
    bool too_big() const { return too_big_; }
    // The parse stopped because the memory budget refused a block.
    bool over_budget() const { return memory_ != nullptr && memory_->refused(); }

private:
    __attribute__((always_inline)) bool built() { return values_left_-- != 0 || take_block(); }
    __attribute__((noinline)) bool take_block() {
        if (memory_->take(ParseMemory::kBlockValues * ParseMemory::kBytesPerValue)) {
            values_left_ = ParseMemory::kBlockValues - 1;  // this value is the block's first
            return true;
        }
        values_left_ = 0;  // not the wrapped count: nothing more is free
        return false;
    }

    enum class Named : unsigned char { other, metadata, annotations };

    // Keys are told apart by length first: most keys are none of the four
    // lengths, and cost one comparison each.
    __attribute__((always_inline)) void note_key(std::string_view key) {
        last_key_ = Named::other;
        skip_ = false;
        switch (key.size()) {
            case 8: if (key == "metadata") last_key_ = Named::metadata; break;
            case 11: if (key == "annotations") last_key_ = Named::annotations; break;
            case kManagedFields.size(): skip_ = key == kManagedFields && in(Named::metadata); break;
            case kLastApplied.size(): skip_ = key == kLastApplied && in(Named::annotations); break;
            default: break;
        }
    }
    bool in(Named container) const { return container_[depth_] == container; }
    bool enter() {
        if (++depth_ <= kMaxJsonDepth) return true;
        too_deep_ = true;
        return false;
    }

    // Where metadata sits in what is parsed with skip_unread: an object in a
    // review (request.object.metadata, depth 4 with its members at 4) or in a
    // list (items[].metadata); deeper keys are not looked at.
    static constexpr unsigned kKeyDepth = 6;
    static constexpr std::string_view kManagedFields = "managedFields";
    static constexpr std::string_view kLastApplied = "kubectl.kubernetes.io/last-applied-configuration";
    Document& doc_;
    bool skip_unread_ = false;
    ParseMemory* memory_ = nullptr;  // null: no budget
    std::size_t values_left_;  // to build before the next block is taken
    bool skip_ = false;  // the value of the member just keyed is skipped
    unsigned depth_ = 0;
    bool too_deep_ = false;
    bool too_big_ = false;
    Named last_key_ = Named::other;  // what the next object or array will be the value of
    std::array<Named, kKeyDepth> container_{};  // what each open container is the value of
};

inline std::string_view view(const Value& v) { return {v.GetString(), v.GetStringLength()}; }

// A string value's text, or "" when it is absent or not a string.
inline std::string_view string_or_empty(const Value* v) { return v != nullptr && v->IsString() ? view(*v) : std::string_view(); }

// The last member of that name, as Go's decoder keeps the last of duplicate
// keys; nullptr when obj is not an object or has none. Inline: it is called
// for every field a review reads.
inline const Value* member(const Value* obj, std::string_view name) {
    if (obj == nullptr || !obj->IsObject()) return nullptr;
    const Value* found = nullptr;
    // Length and first byte first: most keys differ there, without a call to memcmp.
    for (auto it = obj->MemberBegin(); it != obj->MemberEnd(); ++it) {
        const Value& key = it->name;
        if (key.GetStringLength() == name.size() && (name.empty() || (key.GetString()[0] == name[0] && std::memcmp(key.GetString(), name.data(), name.size()) == 0))) {
            found = &it->value;
        }
    }
    return found;
}

inline JsonType type_of(const Value* v) {
    if (v == nullptr) return JsonType::absent;
    switch (v->GetType()) {
        case rapidjson::kNullType: return JsonType::null;
        case rapidjson::kFalseType:
        case rapidjson::kTrueType: return JsonType::boolean;
        case rapidjson::kObjectType: return JsonType::object;
        case rapidjson::kArrayType: return JsonType::array;
        case rapidjson::kStringType: return JsonType::string;
        case rapidjson::kNumberType: return JsonType::number;
    }
    return JsonType::null;
}

// The value at a JSON Pointer made of plain member names ("/spec/template/spec").
inline const Value* at_pointer(const Value* root, std::string_view pointer) {
    const Value* at = root;
    while (at != nullptr && !pointer.empty()) {
        pointer.remove_prefix(1);
        const std::size_t slash = pointer.find('/');
        at = member(at, pointer.substr(0, slash));
        pointer = slash == std::string_view::npos ? std::string_view() : pointer.substr(slash);
    }
    return at;
}

// A value as compact JSON text.
std::string serialize(const Value& v);

// A string member's value, or "" when it is absent or not a string.
std::string string_member(const Value* obj, std::string_view name);

// Whether a parse keeps what no rule reads (DepthLimitedBuilder::SkipValue).
// Only the compact reader skips; either way the whole text is checked.
enum class UnreadValues { kept, skipped };

// Parses text in place into doc; an error message, or empty. The text gets
// kReviewBodySlack NULs more while it is parsed (json_dom.cpp says why).
// UnreadValues::skipped is for documents the rules read and nothing writes
// back: reviews and API answers, not manifests.
// memory: where the DOM's memory is taken from, or null for no budget; when
// it refuses a block the parse stops, memory->refused() says so, and the
// error says the document was too large for the memory at hand.
std::string parse_document(std::string& text, Document& doc, JsonReader reader_choice = JsonReader::compact_first,
                           UnreadValues unread = UnreadValues::kept, ParseMemory* memory = nullptr);

}  // namespace miw::json
