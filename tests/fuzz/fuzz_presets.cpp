// Fuzzes the model preset file parser (data/models.json's format):
// parse_model_presets, then each preset's parameter count and its lookup by
// id, alias and Hugging Face repo.
#include <cstddef>
#include <string>

#include "fuzz_common.hpp"
#include "gpuadvise/model.hpp"
#include "gpuadvise/names.hpp"

using namespace gpuadvise;
using fuzz::accepts;
using fuzz::finding;

extern "C" int LLVMFuzzerTestOneInput(const unsigned char* data, std::size_t size) {
    const std::string_view text = fuzz::as_text(data, size);
    std::vector<ModelPreset> presets;
    if (!accepts([&] { presets = parse_model_presets(text, "models.json"); })) return 0;
    for (const ModelPreset& p : presets) {
        const ParamCounts c = count_params(p.arch);
        if (c.total() > 10'000'000'000'000'000ULL)
            finding("preset '" + std::string(p.id) + "' counts " + std::to_string(c.total()) +
                    " parameters (over 1e16)");
        const std::string id(p.id);
        if (c.active() > c.total())
            finding("preset '" + id + "' has more active than total parameters");
        for (const std::string& name : [&] {
                 std::vector<std::string> names{id, std::string(p.hf_repo)};
                 names.insert(names.end(), p.aliases.begin(), p.aliases.end());
                 return names;
             }()) {
            if (normalize_name(name).empty()) continue;
            const ModelPreset* found = find_preset(presets, name);
            if (!found)
                finding("preset name '" + name + "' of '" + id + "' is not found by find_preset");
            if (found->id != p.id)
                finding("preset name '" + name + "' of '" + id + "' finds '" +
                        std::string(found->id) + "' instead");
        }
        accepts([&] { throw_unknown_model(presets, id + "x"); });
    }
    return 0;
}
