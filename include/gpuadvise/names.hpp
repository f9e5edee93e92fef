#pragma once
// Forgiving name lookup shared by GPUs, model presets and enum flags:
// normalise (case, spaces, dashes, underscores), then exact, then unique
// prefix, then "did you mean" by edit distance (as ninja's spellcheck).
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gpuadvise {

// Lowercase with spaces, dashes, underscores and dots removed: "RTX 4090",
// "rtx-4090" and "rtx_4090" all become "rtx4090".
std::string normalize_name(std::string_view name);
// The same, appended to `out` (one buffer for many names).
void append_normalized_name(std::string& out, std::string_view name);

// The words and numbers of a name, lowercase: split at anything that is not a
// letter or digit and where letters meet digits. "RTX A6000" and "rtx-a6000"
// are {"rtx", "a", "6000"}; "H100-SXM5" is {"h", "100", "sxm", "5"}.
std::vector<std::string> name_tokens(std::string_view name);

// Levenshtein distance, capped: returns cap + 1 as soon as it is exceeded.
std::size_t edit_distance(std::string_view a, std::string_view b, std::size_t cap = 8);

// The candidate closest to `text` within `max_distance` edits of the
// normalised forms, if any.
std::optional<std::string> closest_name(std::string_view text,
                                        const std::vector<std::string>& candidates,
                                        std::size_t max_distance = 3);

// Parses an enumerated flag value; on failure throws InputError listing the
// choices and, when close enough, "did you mean ...".
std::string parse_choice(std::string_view text, std::string_view flag,
                         const std::vector<std::string>& choices);

}  // namespace gpuadvise
