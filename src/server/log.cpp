#include "log.hpp"

#include "model_image_webhook/json_patch.hpp"
#include "model_image_webhook/text.hpp"

#include <algorithm>
#include <charconv>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <ctime>

namespace miw::server {

namespace {

constexpr std::size_t kFlushAt = 64 * 1024;

// "2026-11-30T01:02:03.456Z" (24 bytes): the part up to the seconds is
// formatted once a second per thread.
constexpr std::size_t kTimestampBytes = 24;
char* write_timestamp(char* out) {
    const auto now = std::chrono::system_clock::now();
    const std::time_t seconds = std::chrono::system_clock::to_time_t(now);
    const auto millis = std::chrono::duration_cast<std::chrono::milliseconds>(now.time_since_epoch()).count() % 1000;
    thread_local std::time_t cached_second = -1;
    thread_local char cached[32];
    if (seconds != cached_second) {
        std::tm utc{};
        gmtime_r(&seconds, &utc);
        std::snprintf(cached, sizeof cached, "%04d-%02d-%02dT%02d:%02d:%02d", (utc.tm_year + 1900) % 10000, (utc.tm_mon + 1) % 100, utc.tm_mday % 100,
                      utc.tm_hour % 100, utc.tm_min % 100, utc.tm_sec % 100);
        cached_second = seconds;
    }
    std::memcpy(out, cached, 19);
    out += 19;
    const char ms[] = {'.', static_cast<char>('0' + millis / 100), static_cast<char>('0' + millis / 10 % 10), static_cast<char>('0' + millis % 10), 'Z'};
    std::memcpy(out, ms, sizeof ms);
    return out + sizeof ms;
}

// Past this a string value is cut: the uid and name of a request are the
// client's to choose, and a 7 MiB uid must not become a 7 MiB log line.
constexpr std::size_t kMaxLoggedString = 512;
// What a cut string ends with: "...(cut, <up to 20 digits> bytes)".
constexpr std::size_t kCutSuffixBytes = 40;
// A number as to_chars writes it: a long long, or a double fixed to three decimals.
constexpr std::size_t kNumberBytes = 48;

// The longest line whose buffer a thread keeps for the next.
constexpr std::size_t kKeptLineBytes = 16u << 10;

char* put(char* out, std::string_view text) {
    std::memcpy(out, text.data(), text.size());
    return out + text.size();
}

// The bytes a value may take written, at most.
std::size_t value_room(const Log::Value& value) {
    if (const auto* s = std::get_if<std::string_view>(&value)) return 2 + 6 * (std::min(s->size(), kMaxLoggedString) + kCutSuffixBytes);
    return kNumberBytes;
}

char* write_value(char* out, const Log::Value& value) {
    if (const auto* s = std::get_if<std::string_view>(&value)) {
        if (s->size() <= kMaxLoggedString) return write_json_string(out, *s);
        return write_json_string(out, cut_with_length(*s, kMaxLoggedString));
    }
    if (const auto* i = std::get_if<long long>(&value)) return std::to_chars(out, out + kNumberBytes, *i).ptr;
    if (const auto* d = std::get_if<double>(&value)) {
        // Three decimals (a latency in milliseconds): as an integer of
        // thousandths, which this runs for every admission, where a double's
        // own fixed formatting costs ten times as much.
        if (*d >= 0 && *d < 1e12) {
            const auto thousandths = static_cast<unsigned long long>(*d * 1000 + 0.5);
            out = std::to_chars(out, out + kNumberBytes, thousandths / 1000).ptr;
            const auto fraction = static_cast<unsigned>(thousandths % 1000);
            const char digits[] = {'.', static_cast<char>('0' + fraction / 100), static_cast<char>('0' + fraction / 10 % 10), static_cast<char>('0' + fraction % 10)};
            return put(out, std::string_view(digits, sizeof digits));
        }
        const auto written = std::to_chars(out, out + kNumberBytes, *d, std::chars_format::fixed, 3);
        return written.ec == std::errc() ? written.ptr : put(out, "null");
    }
    return put(out, std::get<bool>(value) ? "true" : "false");
}

}  // namespace

Log& Log::instance() {
    static Log log;
    return log;
}

Log::Log() : pacer_(fileno(stdout)), thread_([this] { writer(); }) {}

Log::~Log() {
    {
        std::lock_guard lock(mutex_);
        stop_ = true;
    }
    wake_.notify_all();
    if (thread_.joinable()) thread_.join();
    flush();
}

namespace {
void write_out(const std::string& text, WritebackPacer& pacer) {
    if (text.empty()) return;
    std::fwrite(text.data(), 1, text.size(), stdout);
    std::fflush(stdout);
    pacer.wrote(text.size());
}
}  // namespace

void Log::writer() {
    std::unique_lock lock(mutex_);
    while (!stop_) {
        wake_.wait_for(lock, std::chrono::seconds(1), [this] { return stop_ || buffer_.size() >= kFlushAt; });
        lock.unlock();
        flush();
        lock.lock();
    }
}

std::uint64_t Log::dropped() const {
    std::lock_guard lock(mutex_);
    return dropped_;
}

namespace {

// The bytes the line may take, at most.
std::size_t line_room(std::string_view level, std::string_view message, std::initializer_list<Log::Field> fields) {
    std::size_t room = 64 + kTimestampBytes + json_string_room(level) + json_string_room(message);
    for (const auto& [key, value] : fields) room += key.size() + 4 + value_room(value);
    return room;
}

// The line, written at out (with line_room bytes of room) piece by piece,
// without a check or a call to grow. A key is one of this program's own
// names ("uid", "latencyMs"): written as it is, without the escaping that
// values get.
char* write_line(char* out, std::string_view level, std::string_view message, std::initializer_list<Log::Field> fields) {
    out = put(out, "{\"time\":\"");
    out = write_timestamp(out);
    out = put(out, "\",\"level\":");
    out = write_json_string(out, level);
    out = put(out, ",\"msg\":");
    out = write_json_string(out, message);
    for (const auto& [key, value] : fields) {
        out = put(out, ",\"");
        out = put(out, key);
        out = put(out, "\":");
        out = write_value(out, value);
    }
    return put(out, "}\n");
}

}  // namespace

std::string log_line(std::string_view level, std::string_view message, std::initializer_list<Log::Field> fields) {
    std::string line(line_room(level, message, fields), '\0');
    line.resize(static_cast<std::size_t>(write_line(line.data(), level, message, fields) - line.data()));
    return line;
}

void Log::write(std::string_view level, std::string_view message, std::initializer_list<Field> fields) {
    // Written into a buffer each thread keeps, grown to the longest ordinary
    // line; a longer one (an error with a long message) into one of its own.
    const std::size_t room = line_room(level, message, fields);
    thread_local std::string kept;
    std::string once;
    std::string& buffer = room <= kKeptLineBytes ? kept : once;
    if (buffer.size() < room) buffer.resize(room);
    const char* const end = write_line(buffer.data(), level, message, fields);
    const std::string_view line(buffer.data(), static_cast<std::size_t>(end - buffer.data()));
    const bool review_line = level == "info" && message == "admission";
    bool wake = false;
    {
        std::lock_guard lock(mutex_);
        if (review_line && buffer_.size() + line.size() > kMaxPendingBytes) {
            ++dropped_;
            return;
        }
        buffer_ += line;
        // Errors and start-up events should be seen at once.
        wake = buffer_.size() >= kFlushAt || !review_line;
    }
    if (wake) {
        if (review_line) {
            wake_.notify_one();
        } else {
            flush();  // synchronously: an error line is out before the caller goes on
        }
    }
}

void Log::flush() {
    std::unique_lock lock(mutex_);
    std::string out;
    out.swap(buffer_);
    std::lock_guard write_lock(write_mutex_);  // taken before mutex_ is let go: lines stay in order
    lock.unlock();
    write_out(out, pacer_);
}

}  // namespace miw::server
