// One JSON line per event on standard output. Lines are buffered and written
// by a thread of their own, at least once a second, at once for anything but
// a review line, and at exit: a request never waits on the write, which a
// busy disk can hold for tens of milliseconds (page-cache writeback); into
// a file, the write-back is started as the log is written (WritebackPacer). Past
// kMaxPendingBytes unwritten, review lines are dropped and counted rather
// than held. Callers pass names and verdicts, never object contents or env
// values.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <initializer_list>
#include <mutex>
#include <thread>
#include <string>
#include <string_view>
#include <utility>
#include <variant>

#include "writeback_pacer.hpp"

namespace miw::server {

class Log {
public:
    using Value = std::variant<std::string_view, long long, double, bool>;
    using Field = std::pair<std::string_view, Value>;

    static Log& instance();

    void write(std::string_view level, std::string_view message, std::initializer_list<Field> fields);
    void info(std::string_view message, std::initializer_list<Field> fields = {}) { write("info", message, fields); }
    void error(std::string_view message, std::initializer_list<Field> fields = {}) { write("error", message, fields); }
    // Writes what is pending, now, on the caller's thread (at exit, in tests).
    void flush();
    std::uint64_t dropped() const;

    static constexpr std::size_t kMaxPendingBytes = 8u << 20;

private:
    Log();
    ~Log();
    void writer();

    mutable std::mutex mutex_;
    std::condition_variable wake_;
    std::string buffer_;
    std::uint64_t dropped_ = 0;
    bool stop_ = false;
    std::mutex write_mutex_;  // one write to stdout at a time, in order
    WritebackPacer pacer_;    // used under write_mutex_
    std::thread thread_;
};

// The line Log::write writes for these (its time the current one), as a string.
std::string log_line(std::string_view level, std::string_view message, std::initializer_list<Log::Field> fields);

}  // namespace miw::server
