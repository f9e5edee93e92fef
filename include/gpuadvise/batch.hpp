#pragma once
// `gpuadvise batch`: one JSON object per line in, one JSON result per line
// out, for capacity planners sweeping thousands of workloads. A line's keys
// are the keys of the field table (the long flags without dashes: "model",
// "method", "lora_rank", ...); "gpu" checks one card, "top" ranks the catalog.
// A bad line yields an error object with its line number and the run goes on.
#include <cstddef>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "gpuadvise/calibration.hpp"
#include "gpuadvise/catalog.hpp"
#include "gpuadvise/model.hpp"

namespace gpuadvise {

struct BatchLineResult {
    std::string json;  // one line, no trailing newline
    bool ok = true;
};

// The checks of the lines seen so far, by what the line asked: a line's
// check (the plan on its card, its limits and curve: about 40 plan
// evaluations) depends only on its members and on the run's catalog,
// presets and calibration, so a line that asks again is answered from here.
// Bounded: past kMaxEntries the lines are answered as if new.
class BatchMemo {
  public:
    static constexpr std::size_t kMaxEntries = 4096;
    const std::string* find(const std::string& key) const;
    void add(std::string key, std::string check_json);

  private:
    std::unordered_map<std::string, std::string> checks_;
};

// What every line is answered with: the catalog, the presets and the
// calibration file the flags would apply (nullptr: none), and the memo of
// the run's checks (nullptr: none kept).
struct BatchContext {
    const Catalog& catalog;
    const std::vector<ModelPreset>& presets;
    const Calibration* calibration = nullptr;
    BatchMemo* memo = nullptr;
};

// A line's "gpu" is a card, a list of cards ("rtx-3090,rtx-3060-12gb") or a
// card with "vram", answered as `check` answers (with its limits); "top"
// ranks the catalog. A key the line would ignore ("emit", "budget" or
// "rank_by" without "top", "vram" without "gpu") is an error of the line.
BatchLineResult run_batch_line(std::string_view line, std::size_t line_number,
                               const BatchContext& context);

// The keys a batch line may use, in table order (for errors and docs).
std::vector<std::string> batch_keys();

}  // namespace gpuadvise
