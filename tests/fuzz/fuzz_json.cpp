// Fuzzes gpuadvise's strict JSON parser, differentially: whatever it accepts
// nlohmann::json (a mature parser) must accept too, with the same types,
// strings and sizes. It may refuse more (duplicate keys, depth over 64), never
// less, and it never accepts text that is not JSON. (nlohmann refuses numbers
// beyond a double, which the grammar allows; those are not compared.)
#include <cstddef>
#include <nlohmann/json.hpp>
#include <string>

#include "fuzz_common.hpp"
#include "gpuadvise/json.hpp"

using namespace gpuadvise;
using fuzz::accepts;
using fuzz::finding;

namespace {

void compare(const json::Value& ours, const nlohmann::json& theirs, const std::string& path) {
    using T = json::Type;
    switch (ours.type()) {
        case T::Null:
            if (!theirs.is_null())
                finding(path + ": null here, " + theirs.type_name() + " in nlohmann");
            break;
        case T::Bool:
            if (!theirs.is_boolean() || theirs.get<bool>() != ours.boolean())
                finding(path + ": booleans differ");
            break;
        case T::Number:
            if (!theirs.is_number())
                finding(path + ": a number here, " + std::string(theirs.type_name()) +
                        " in nlohmann");
            break;
        case T::String:
            if (!theirs.is_string() || theirs.get<std::string>() != ours.text())
                finding(path + ": strings differ");
            break;
        case T::Array: {
            if (!theirs.is_array() || theirs.size() != ours.size())
                finding(path + ": arrays differ");
            std::size_t i = 0;
            for (const json::Value v : ours.items()) {
                compare(v, theirs[i], path + "/" + std::to_string(i));
                ++i;
            }
            break;
        }
        case T::Object: {
            if (!theirs.is_object() || theirs.size() != ours.size())
                finding(path + ": objects differ");
            for (const json::Value v : ours.items()) {
                const std::string key(v.key());
                if (!theirs.contains(key))
                    finding(path + ": key '" + key + "' missing in nlohmann");
                compare(v, theirs[key], path + "/" + key);
            }
            break;
        }
    }
    (void)ours.dump();
    (void)ours.int64();
    (void)ours.uint64();
    (void)ours.number();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const unsigned char* data, std::size_t size) {
    const std::string_view text = fuzz::as_text(data, size);
    accepts([&] {
        const json::Document doc = json::Document::parse(text, "input.json");
        nlohmann::json theirs;
        try {
            theirs = nlohmann::json::parse(text);
        } catch (const nlohmann::json::out_of_range&) {
            return;  // 1e400: valid JSON grammar that nlohmann refuses to hold (ours reads it as
                     // unrepresentable)
        } catch (const nlohmann::json::exception& e) {
            finding(std::string("accepted JSON that nlohmann rejects: ") + e.what());
        }
        compare(doc.root(), theirs, "");
    });
    return 0;
}
