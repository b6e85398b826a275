// Torch versions, as every file, flag and worker names them: the one checked parser, so that a
// version out of range in a hostile file is an error naming it, never an exception or a wrapped
// integer.
#pragma once

#include <compare>
#include <optional>
#include <string>
#include <string_view>

#include "src/support/status.h"

namespace mmdiff {

struct TorchVersion {
  int major = 0, minor = 0, patch = 0;
  auto operator<=>(const TorchVersion&) const = default;
};

// The largest number a part of a version may have (four digits).
inline constexpr int kMaxTorchVersionPart = 9999;

// "2.11.0+cu130" -> {2, 11, 0}. One to three dot-separated parts of 1 to 4 digits (missing parts
// are 0), then nothing or a suffix that the comparison ignores: a local version ("+cu130",
// "+git5e8f"), a pre-release or development mark ("a0", "b1", "rc2", ".dev20261120", ".post1") or
// "-" and anything. An error quoting the text (at most 64 bytes, fit for a terminal) otherwise.
Result<TorchVersion> ParseTorchVersion(std::string_view text);

// True for a version without a suffix, of two or three parts ("2.11", "2.11.0"): the form a torch
// release is named by on the command line and in a venv's folder name.
bool IsReleaseName(std::string_view text);

// "2.11.0".
std::string TorchVersionString(const TorchVersion& v);

// Whether `version` lies in `range`: comma-separated clauses, each an operator (>=, >, <=, <, ==)
// and a version, all of which must hold (">=2.11.0,<2.12"). An error naming the bad version,
// operator or range.
Result<bool> TorchVersionInRange(std::string_view version, std::string_view range);

// The least version a range admits by its >= and == clauses (">=2.11.0,<2.12" -> 2.11.0), or
// nullopt where it has none ("<2.12"); the same errors as TorchVersionInRange.
Result<std::optional<TorchVersion>> TorchRangeLowerBound(std::string_view range);

}  // namespace mmdiff
