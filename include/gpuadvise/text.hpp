#pragma once
// Generic text helpers with no gpuadvise knowledge (ccache's rule for util/).
// Every string that reaches a terminal, a one-line error message or JSON
// output and did not come from our own code goes through `sanitize` (or
// `quote`, for values echoed in errors), so a hostile file name, catalog entry
// or vendor tool cannot break the output contract.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace gpuadvise {

std::string_view trim(std::string_view s);
// The lines of `text` without their '\n' (a last line without one included).
std::vector<std::string_view> split_lines(std::string_view text);
std::string lower(std::string_view s);
bool starts_with(std::string_view s, std::string_view prefix);
bool ends_with(std::string_view s, std::string_view suffix);

// Decodes one UTF-8 sequence at s[i] (i < s.size()); returns its length, or 0
// when the bytes there are not a well-formed sequence (RFC 3629: no overlong
// forms, no surrogates, nothing above U+10FFFF).
std::size_t utf8_sequence(std::string_view s, std::size_t i, std::uint32_t* code_point);

// True when `s` is well-formed UTF-8 (no overlong forms, no surrogates, at
// most U+10FFFF).
bool valid_utf8(std::string_view s);

// Text safe for a terminal and for JSON: invalid UTF-8 becomes U+FFFD, C0 and
// C1 control characters and DEL become a space (tabs and newlines too: every
// use is one line or one cell), and text longer than `max_chars` code points
// is cut on a character boundary and ends in "...". 0 = no limit.
std::string sanitize(std::string_view s, std::size_t max_chars = 0);

// Only invalid UTF-8 replaced by U+FFFD (control characters kept): for text
// that is parsed further, such as a vendor tool's JSON.
std::string repair_utf8(std::string_view s);

// A value echoed in an error message: sanitised, cut at 80 characters, with
// control characters shown as escapes (\r, \n, \x1b) so a carriage return
// cannot fake a second line, in single quotes: 'value'.
std::string quote(std::string_view s);

// The number of code points (the tables hold no wide characters).
std::size_t display_width(std::string_view text);

// Cuts UTF-8 text to `width` code points, ending in "..." when shortened.
std::string truncate_display(std::string_view text, std::size_t width);

// Lines longer than `width` code points broken at spaces (a word longer than
// a line is split), each continuation indented under the text after the
// line's label: the first gap of two spaces or more after its indent, so
// "  warning   text ..." continues under "text". 0 = unchanged. For prose
// around tables on a narrow terminal; never for commands or tables.
std::string wrap(std::string_view text, std::size_t width);

// Text for HTML and SVG, in element content and in quoted attributes: & < >
// " and ' become character references (after `sanitize`, by the caller).
std::string escape_html(std::string_view s);

}  // namespace gpuadvise
