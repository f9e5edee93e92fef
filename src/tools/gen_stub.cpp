// The build-time generator links the core's objects, whose modules declare
// the accessors of the tables the generator is about to write (quant.hpp's
// embedded::quant_formats(), ...); these stand in for them there and are
// never called: the generator only parses.
#include <stdexcept>

#include "gpuadvise/embedded.hpp"

namespace gpuadvise::embedded {
namespace {
[[noreturn]] void absent() {
    throw std::logic_error("the embedded tables are not available in the generator");
}
}  // namespace
std::string_view gpus_json() {
    absent();
}
std::string_view models_json() {
    absent();
}
std::string_view quants_json() {
    absent();
}
std::string_view engines_json() {
    absent();
}
std::string_view tasks_json() {
    absent();
}
std::string_view rules_json() {
    absent();
}
Catalog build_catalog() {
    absent();
}
const Catalog& catalog() {
    absent();
}
const std::vector<ModelPreset>& model_presets() {
    absent();
}
const std::vector<VisionInputRule>& vision_inputs() {
    absent();
}
std::span<const QuantFormat> quant_formats() {
    absent();
}
std::span<const Engine> engines() {
    absent();
}
std::span<const TaskPreset> tasks() {
    absent();
}
std::span<const RuleData> rule_data() {
    absent();
}
std::string_view platforms_json() {
    absent();
}
std::string_view error_bands_json() {
    absent();
}
std::string_view networks_json() {
    absent();
}
std::string_view energy_json() {
    absent();
}
std::string_view speculative_json() {
    absent();
}
CloudPrices build_cloud_prices() {
    absent();
}
std::span<const HostPlatform> platforms() {
    absent();
}
AttainableData attainable() {
    absent();
}
std::string_view attainable_json() {
    absent();
}
}  // namespace gpuadvise::embedded
