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

}  // namespace

Log& Log::instance() {
    static Log log;
    return log;
}

void Log::write(std::string_view level, std::string_view message, std::initializer_list<Field> fields) {
    std::string line;
    line.reserve(320);
    line += "{\"time\":\"";
    append_timestamp(line);
    line += "\",\"level\":";
    append_json_string(line, level);
    line += ",\"msg\":";
    append_json_string(line, message);
    for (const auto& [key, value] : fields) {
        line += ',';
        append_json_string(line, key);
        line += ':';
        append_value(line, value);
    }
    line += "}\n";
    std::lock_guard lock(mutex_);
    buffer_ += line;
    // Errors and start-up events should be seen at once.
    if (buffer_.size() >= kFlushAt || level != "info" || message != "admission") {
        std::fwrite(buffer_.data(), 1, buffer_.size(), stdout);
        std::fflush(stdout);
        buffer_.clear();
    }
}

void Log::flush() {
    std::lock_guard lock(mutex_);
    if (buffer_.empty()) return;
    std::fwrite(buffer_.data(), 1, buffer_.size(), stdout);
    std::fflush(stdout);
    buffer_.clear();
}

}  // namespace miw::server
