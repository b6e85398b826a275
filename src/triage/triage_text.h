// Text helpers for the triage outputs: HTML and Markdown escaping, number formatting, and paths
// relative to the output folder.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace mmdiff::triage {

// Escapes & < > " ' so that any text can go into HTML content or a quoted attribute.
std::string HtmlEscape(std::string_view text);
// One Markdown table cell: | escaped, line breaks flattened, < > & as entities.
std::string MarkdownCell(std::string_view text);
// "12.3 s", or "?" when unknown.
std::string Seconds(const std::optional<double>& s);
// A short number for plots and tables: "0.000123" -> "1.23e-04", 1024 -> "1024".
std::string ShortNumber(double x);
// `path` relative to the folder `base` (both taken from the current folder when relative), with
// forward slashes; falls back to the absolute path.
std::string RelativeTo(const std::string& path, const std::string& base);
// A file path as the path of a relative URL: every byte but A-Z a-z 0-9 - . _ ~ and the '/'
// separators percent-encoded, so that no part of it (a folder named "javascript:x", a '#', a '?')
// reads as a scheme, fragment or query. Still needs HtmlEscape in an attribute (it leaves none).
std::string UrlPath(std::string_view path);
// The first `max` characters of text (on a UTF-8 boundary), with "..." when cut.
std::string Clip(std::string_view text, size_t max);

}  // namespace mmdiff::triage
