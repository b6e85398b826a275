// Status and Result<T>: errors as values, used across every module instead of exceptions.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <variant>

namespace mmdiff {

// An error message or success. Functions that can fail on user input return Status or Result.
class Status {
 public:
  Status() = default;
  static Status Ok() { return Status(); }
  static Status Error(std::string message) {
    Status s;
    s.message_ = std::move(message);
    return s;
  }
  bool ok() const { return !message_.has_value(); }
  const std::string& message() const;

 private:
  std::optional<std::string> message_;
};

// A value or an error message.
template <typename T>
class Result {
 public:
  Result(T value) : v_(std::move(value)) {}       // NOLINT: implicit by design
  Result(Status error) : v_(std::move(error)) {}  // NOLINT: must hold an error
  bool ok() const { return std::holds_alternative<T>(v_); }
  const T& value() const& { return std::get<T>(v_); }
  T& value() & { return std::get<T>(v_); }
  T&& value() && { return std::get<T>(std::move(v_)); }
  const std::string& error() const { return std::get<Status>(v_).message(); }
  Status status() const { return ok() ? Status::Ok() : std::get<Status>(v_); }

 private:
  std::variant<T, Status> v_;
};

}  // namespace mmdiff
