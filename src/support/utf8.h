// Text from outside (a worker's stderr, strings in its messages) made valid UTF-8, so that JSON
// writers, which refuse invalid UTF-8, never throw on it.
#pragma once

#include <string>
#include <string_view>

namespace mmdiff {

// `text` with every byte that does not begin a well-formed UTF-8 sequence (a stray continuation
// byte, a sequence cut short, an overlong form, a surrogate, a code point beyond U+10FFFF)
// replaced by U+FFFD. Valid text comes back unchanged.
std::string ValidUtf8(std::string_view text);

}  // namespace mmdiff
