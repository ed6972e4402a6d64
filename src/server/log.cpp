#include "log.hpp"

#include "model_image_webhook/json_patch.hpp"
#include "model_image_webhook/text.hpp"

#include <charconv>
#include <chrono>
#include <cstdio>
#include <ctime>

namespace miw::server {

namespace {

constexpr std::size_t kFlushAt = 64 * 1024;

// "2026-11-30T01:02:03.456Z": the part up to the seconds is formatted once a
// second per thread.
void append_timestamp(std::string& out) {
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
    const char ms[] = {'.', static_cast<char>('0' + millis / 100), static_cast<char>('0' + millis / 10 % 10), static_cast<char>('0' + millis % 10), 'Z'};
    out += cached;
    out.append(ms, sizeof ms);
}

// Past this a string value is cut: the uid and name of a request are the
// client's to choose, and a 7 MiB uid must not become a 7 MiB log line.
constexpr std::size_t kMaxLoggedString = 512;

void append_value(std::string& out, const Log::Value& value) {
    if (const auto* s = std::get_if<std::string_view>(&value)) {
        if (s->size() <= kMaxLoggedString) append_json_string(out, *s);
        else append_json_string(out, cut_with_length(*s, kMaxLoggedString));
    } else if (const auto* i = std::get_if<long long>(&value)) {
        char buf[24];
        out.append(buf, std::to_chars(buf, buf + sizeof buf, *i).ptr);
    } else if (const auto* d = std::get_if<double>(&value)) {
        // to_chars, not printf: this runs for every admission.
        char buf[48];
        const auto written = std::to_chars(buf, buf + sizeof buf, *d, std::chars_format::fixed, 3);
        if (written.ec == std::errc()) out.append(buf, written.ptr);
        else out += "null";
    } else {
        out += std::get<bool>(value) ? "true" : "false";
    }
}

// A key is one of this program's own names ("uid", "latencyMs"): written
// as it is, without the escaping that values get.
void append_key(std::string& out, std::string_view key) {
    out += ",\"";
    out += key;
    out += "\":";
}

}  // namespace

Log& Log::instance() {
    static Log log;
    return log;
}

Log::Log() : thread_([this] { writer(); }) {}

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
void write_out(const std::string& text) {
    if (text.empty()) return;
    std::fwrite(text.data(), 1, text.size(), stdout);
    std::fflush(stdout);
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

void Log::write(std::string_view level, std::string_view message, std::initializer_list<Field> fields) {
    // Built in a buffer each thread keeps, not one allocated per line.
    thread_local std::string line;
    line.clear();
    line += "{\"time\":\"";
    append_timestamp(line);
    line += '"';
    append_key(line, "level");
    append_json_string(line, level);
    append_key(line, "msg");
    append_json_string(line, message);
    for (const auto& [key, value] : fields) {
        append_key(line, key);
        append_value(line, value);
    }
    line += "}\n";
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
    write_out(out);
}

}  // namespace miw::server
