#include "gpuadvise/energy.hpp"

#include "gpuadvise/json.hpp"

namespace gpuadvise {

EnergyData parse_energy(std::string_view text, std::string_view source) {
    const std::string owned(text);
    json::Document doc = json::Document::parse(owned, source, "the energy data object");
    json::ObjectReader r(doc.root(), source);
    r.opt_integer("schema", 1, 1);
    r.str_or("about", "");
    EnergyData e;
    e.pue = r.number("pue", kMinPue, kMaxPue);
    e.pue_source = std::string(r.str("pue_source"));
    e.fabric_watts_per_gpu = r.number("fabric_watts_per_gpu", 0, 10'000);
    e.fabric_source = std::string(r.str("fabric_source"));
    r.finish();
    return e;
}

const EnergyData& energy_data() {
    static const EnergyData e = parse_energy(embedded::energy_json(), "embedded data/energy.json");
    return e;
}

}  // namespace gpuadvise
