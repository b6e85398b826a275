// Escaping text for XML and HTML output (JUnit files, the triage page).
#pragma once

#include <string>
#include <string_view>

namespace mmdiff {

// Escapes & < > " ' as entities and drops the control characters XML 1.0 forbids. With
// `keep_line_breaks` false (for attribute values), newlines, tabs and carriage returns become
// character references so that they survive attribute normalisation.
std::string EscapeMarkup(std::string_view text, bool keep_line_breaks = true);

}  // namespace mmdiff
