#include "log.hpp"

#include "model_image_webhook/json_patch.hpp"

#include <chrono>
#include <cstdio>
#include <ctime>

namespace miw::server {

namespace {

constexpr std::size_t kFlushAt = 64 * 1024;

std::string timestamp() {
    const auto now = std::chrono::system_clock::now();
    const std::time_t seconds = std::chrono::system_clock::to_time_t(now);
    const auto millis = std::chrono::duration_cast<std::chrono::milliseconds>(now.time_since_epoch()).count() % 1000;
    std::tm utc{};
    gmtime_r(&seconds, &utc);
    char buf[96];
    std::snprintf(buf, sizeof buf, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", utc.tm_year + 1900, utc.tm_mon + 1, utc.tm_mday, utc.tm_hour, utc.tm_min, utc.tm_sec,
                  static_cast<int>(millis));
    return buf;
}

void append_value(std::string& out, const Log::Value& value) {
    if (const auto* s = std::get_if<std::string_view>(&value)) {
        out += json_string(*s);
    } else if (const auto* i = std::get_if<long long>(&value)) {
        out += std::to_string(*i);
    } else if (const auto* d = std::get_if<double>(&value)) {
        char buf[32];
        std::snprintf(buf, sizeof buf, "%.3f", *d);
        out += buf;
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
    std::string line = "{\"time\":\"" + timestamp() + "\",\"level\":" + json_string(level) + ",\"msg\":" + json_string(message);
    for (const auto& [key, value] : fields) {
        line += ',';
        line += json_string(key);
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
