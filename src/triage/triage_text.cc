// Text helpers for the triage outputs.
#include "src/triage/triage_text.h"

#include <cmath>
#include <cstdio>
#include <filesystem>

#include "src/support/markup.h"

namespace mmdiff::triage {

std::string HtmlEscape(std::string_view text) { return EscapeMarkup(text); }

std::string MarkdownCell(std::string_view text) {
  std::string out;
  for (char c : text) {
    switch (c) {
      case '|':
        out += "\\|";
        break;
      case '\n':
      case '\r':
        out += ' ';
        break;
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

std::string Seconds(const std::optional<double>& s) {
  if (!s) return "?";
  char buf[48];
  std::snprintf(buf, sizeof(buf), "%.1f s", *s);
  return buf;
}

std::string ShortNumber(double x) {
  char buf[48];
  if (x == std::floor(x) && std::fabs(x) < 1e7)
    std::snprintf(buf, sizeof(buf), "%.0f", x);
  else if (std::fabs(x) >= 0.01 && std::fabs(x) < 1e5)
    std::snprintf(buf, sizeof(buf), "%.3g", x);
  else
    std::snprintf(buf, sizeof(buf), "%.2e", x);
  return buf;
}

std::string UrlPath(std::string_view path) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  for (unsigned char c : path) {
    bool plain = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
                 c == '-' || c == '.' || c == '_' || c == '~' || c == '/';
    if (plain) {
      out += static_cast<char>(c);
    } else {
      out += '%';
      out += kHex[c >> 4];
      out += kHex[c & 15];
    }
  }
  return out;
}

std::string RelativeTo(const std::string& path, const std::string& base) {
  namespace fs = std::filesystem;
  std::error_code ec;
  fs::path p = fs::absolute(path, ec).lexically_normal();
  if (ec) return path;
  fs::path b = fs::absolute(base, ec).lexically_normal();
  if (ec) return p.generic_string();
  fs::path rel = p.lexically_relative(b);
  return rel.empty() ? p.generic_string() : rel.generic_string();
}

std::string Clip(std::string_view text, size_t max) {
  if (text.size() <= max) return std::string(text);
  size_t cut = max;
  while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80)
    --cut;  // not inside a UTF-8 sequence
  return std::string(text.substr(0, cut)) + "...";
}

}  // namespace mmdiff::triage
