#pragma once
// Parsing JSON that comes from outside (catalogs, config.json, presets,
// config files): empty input, syntax errors and unusable values (1e999)
// all become one-line InputErrors naming the source.
#include <nlohmann/json.hpp>
#include <string_view>

namespace gpuadvise {

// `expected` completes "the file is empty; expected ..." ("a JSON catalog").
nlohmann::json parse_json_input(std::string_view text, std::string_view source, std::string_view expected);

}  // namespace gpuadvise
