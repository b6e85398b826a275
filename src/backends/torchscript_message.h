// The one line of a TorchScript error worth reporting: the operator's own message rather than the
// interpreter's preamble, or a compile error's reason rather than its blank first line.
#pragma once

#include <string>

namespace mmdiff {

// For the interpreter's "The following operation failed in the TorchScript interpreter.\n
// Traceback ...\nRuntimeError: <message>\n": <message> (the last "...Error: " line). Otherwise the
// first non-blank line, trimmed (compile errors start with a newline: "\nunknown builtin op: ...").
std::string TorchScriptErrorLine(const std::string& what);

}  // namespace mmdiff
