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

// One line fit for a terminal: ValidUtf8, then every control character (C0, DEL, C1: escape
// sequences that move the cursor, clear the screen or set the title), newlines and tabs included,
// shown as '?'.
std::string TerminalLine(std::string_view text);

}  // namespace mmdiff
