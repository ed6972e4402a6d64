// One JSON line per event on standard output. Lines are buffered and flushed
// at least once a second and at exit, so logging costs no write per request.
// Callers pass names and verdicts, never object contents or env values.
#pragma once

#include <initializer_list>
#include <mutex>
#include <string>
#include <string_view>
#include <utility>
#include <variant>

namespace miw::server {

class Log {
public:
    using Value = std::variant<std::string_view, long long, double, bool>;
    using Field = std::pair<std::string_view, Value>;

    static Log& instance();

    void write(std::string_view level, std::string_view message, std::initializer_list<Field> fields);
    void info(std::string_view message, std::initializer_list<Field> fields = {}) { write("info", message, fields); }
    void error(std::string_view message, std::initializer_list<Field> fields = {}) { write("error", message, fields); }
    void flush();

private:
    Log() = default;
    std::mutex mutex_;
    std::string buffer_;
};

}  // namespace miw::server
