// Markup escaping.
#include "src/support/markup.h"

namespace mmdiff {

std::string EscapeMarkup(std::string_view text, bool keep_line_breaks) {
  std::string out;
  out.reserve(text.size());
  for (unsigned char ch : text) {
    switch (ch) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&#39;";
        break;
      case '\n':
        out += keep_line_breaks ? "\n" : "&#10;";
        break;
      case '\t':
        out += keep_line_breaks ? "\t" : "&#9;";
        break;
      case '\r':
        out += keep_line_breaks ? "\r" : "&#13;";
        break;
      default:
        if (ch >= 0x20) out += static_cast<char>(ch);
    }
  }
  return out;
}

}  // namespace mmdiff
