#pragma once
// What a job's energy counts beyond the GPUs (data/energy.json): the
// facility's power usage effectiveness and the fabric switches of a
// multi-node plan. The hosts' power is each platform's host_watts.
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace gpuadvise {

struct EnergyData {
    double pue = 1.0;  // total site power over IT power
    std::string pue_source;
    double fabric_watts_per_gpu = 0;  // switch ports and optics per GPU of a multi-node plan
    std::string fabric_source;
};

// Throws InputError naming `source` and the JSON path on a bad file.
EnergyData parse_energy(std::string_view text, std::string_view source);
const EnergyData& energy_data();  // the embedded data/energy.json

// --pue bounds: 1.0 is a facility with no overhead at all; 3.0 is well above
// the worst averages surveyed (Uptime Institute's 2007 average was 2.5).
inline constexpr double kMinPue = 1.0, kMaxPue = 3.0;

// The compiled-in energy figures (data/energy.json).
namespace embedded {
std::string_view energy_json();
}  // namespace embedded

}  // namespace gpuadvise
