#pragma once
// The reports bench/accuracy prints after the memory replay.
#include <string>
#include <vector>

#include "accuracy_common.hpp"

namespace accuracy {

void calibration_report(const std::vector<Sample>& samples);
void source_report(const std::vector<Sample>& samples);
void history_report();
void speed_report(const std::string& dir, const Json& models_json,
                  const std::vector<ModelPreset>& presets);
void image_report(const std::string& dir, const std::vector<ModelPreset>& presets);
void video_report(const std::string& dir, const std::vector<ModelPreset>& presets);
void cluster_report(const std::string& dir);
void fp8_report(const std::string& dir);
void runtime_report(const std::string& dir, const std::vector<ModelPreset>& presets);
void pairs_report(const std::string& dir, const std::vector<ModelPreset>& presets);
void examples_report(const std::string& dir, const std::vector<ModelPreset>& presets);
void summary_report(const std::string& dir, const std::string& write_before);
void attainable_report(const std::string& dir);
void write_attainable(const std::string& path);
void write_engines(const std::string& path);
void fit_report(const std::string& dir, const Json& models_json,
                const std::vector<ModelPreset>& presets, const std::string& only = {});

}  // namespace accuracy
