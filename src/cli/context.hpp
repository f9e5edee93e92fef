#pragma once
// The handlers' shared steps over a Context (context.cpp): reading the model
// flags' files, the calibration file, resolving the workload, the box --gpu
// names and the launch --emit asks for.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "cli/commands.hpp"
#include "gpuadvise/launch.hpp"
#include "gpuadvise/workload.hpp"

namespace gpuadvise::cli {

// What the model flags read from files (the core does no I/O).
ModelInputs model_inputs(Context& ctx);

// Presets are parsed only when the model is named rather than sized.
const std::vector<ModelPreset>& presets_for(const Request& r);

// The calibration file: --calibration (or GPUADVISE_CALIBRATION, or the
// config file's "calibration"), else calibration.jsonl in the config folder
// when it exists; nullopt without one.
std::optional<Calibration> load_calibration(Context& ctx);

// The workload of the request, calibrated unless `calibrated` is false (the
// uncorrected estimate calibrate compares with).
Workload resolve(Context& ctx, bool calibrated = true);

// `--gpu local`: the local accelerators that match the catalog.
std::vector<std::string> local_gpu_ids(const Catalog& catalog, std::string_view origin);

// The box --gpu describes ('local': the cards detect finds).
std::vector<const Gpu*> target_cards(Context& ctx, Workload& w);

// --emit for a plan; nullopt without the flag. A plan that does not fit has
// no launch to give.
std::optional<Launch> emit_launch(const Context& ctx, const Workload& w, const Recommendation* rec);

std::string with_newline(std::string s);

}  // namespace gpuadvise::cli
