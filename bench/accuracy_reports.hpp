#pragma once
// The reports bench/accuracy prints after the memory replay.
#include <fstream>
#include <string>
#include <vector>

#include "accuracy_common.hpp"

namespace accuracy {

// Every row of a memory CSV replayed through the estimate (skipped rows, with
// the reason, appended to `skipped`; components written when the stream is open).
std::vector<Sample> replay_memory_rows(const std::vector<Row>& rows, const Json& models_json,
                                       const std::vector<ModelPreset>& presets,
                                       std::vector<std::pair<std::string, std::string>>& skipped,
                                       std::ofstream& components);
void calibration_report(const std::vector<Sample>& samples);
void source_report(const std::vector<Sample>& samples, std::string_view which = "visible");
void collected_report(const std::vector<Sample>& collected);
void memory_bands_report(const std::vector<Sample>& samples, const std::vector<Sample>& collected);
void history_report();
void speed_report(const std::string& dir, const Json& models_json,
                  const std::vector<ModelPreset>& presets);
void image_report(const std::string& dir, const std::vector<ModelPreset>& presets, bool fit);
void video_report(const std::string& dir, const std::vector<ModelPreset>& presets);
void cluster_report(const std::string& dir);
void fp8_report(const std::string& dir);
void runtime_report(const std::string& dir, const std::vector<ModelPreset>& presets);
void pairs_report(const std::string& dir, const std::vector<ModelPreset>& presets);
void examples_report(const std::string& dir, const std::vector<ModelPreset>& presets);
void summary_report(const std::string& dir, const std::string& write_before);
// Each speed group's rows by source (accuracy_groups.cpp), after summary_report.
void group_sources_report();
void attainable_report(const std::string& dir);
void write_attainable(const std::string& path);
void write_engines(const std::string& path);
void fit_report(const std::string& dir, const Json& models_json,
                const std::vector<ModelPreset>& presets, const std::string& only = {});

}  // namespace accuracy
