#include "gpuadvise/json_input.hpp"

#include <fmt/format.h>

#include "gpuadvise/error.hpp"

namespace gpuadvise {

nlohmann::json parse_json_input(std::string_view text, std::string_view source, std::string_view expected) {
    if (text.find_first_not_of(" \t\r\n") == std::string_view::npos)
        throw InputError(fmt::format("{}: the file is empty; expected {}", source, expected));
    try {
        return nlohmann::json::parse(text);
    } catch (const nlohmann::json::parse_error& e) {
        throw InputError(fmt::format("{}: not valid JSON (at byte {}): fix the syntax", source, e.byte));
    } catch (const nlohmann::json::exception& e) {
        // e.g. a number beyond double range (1e999): valid syntax, unusable value
        throw InputError(fmt::format("{}: unusable JSON: {}", source, e.what()));
    }
}

}  // namespace gpuadvise
