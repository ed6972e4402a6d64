// How parsers and loaders answer: a value, or a one-line reason that tells
// the user what is wrong. Errors are values everywhere but at start-up, where
// binding a port may throw; the policy answers with Decision values instead.
#pragma once

#include <optional>
#include <string>
#include <utility>

namespace miw {

// The reason a Result carries when it holds no value.
struct Failure {
    std::string reason;
};

inline Failure fail(std::string reason) { return Failure{std::move(reason)}; }

template <class T>
class [[nodiscard]] Result {
public:
    Result(T value) : value_(std::move(value)) {}
    Result(Failure failure) : error_(std::move(failure.reason)) {}

    bool ok() const { return value_.has_value(); }
    explicit operator bool() const { return ok(); }

    const T& value() const& { return *value_; }
    T& value() & { return *value_; }
    T&& value() && { return std::move(*value_); }
    const T& operator*() const& { return *value_; }
    T& operator*() & { return *value_; }
    const T* operator->() const { return &*value_; }
    T* operator->() { return &*value_; }

    // Empty when ok().
    const std::string& error() const { return error_; }

private:
    std::optional<T> value_;
    std::string error_;
};

// A Result with nothing to hand back but success.
struct Done {};
using Status = Result<Done>;

inline Status done() { return Done{}; }

}  // namespace miw
