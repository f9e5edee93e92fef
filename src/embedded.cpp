#include "gpuadvise/embedded.hpp"

namespace gpuadvise::embedded {

const Catalog& catalog() {
    static const Catalog c = build_catalog();
    return c;
}

const std::vector<ModelPreset>& model_presets() {
    static const std::vector<ModelPreset> p = parse_model_presets(models_json(), kModelsSource);
    return p;
}

const ModelGenerations& model_generations() {
    static const ModelGenerations g = parse_model_generations(models_json(), kModelsSource);
    return g;
}

const std::vector<VisionInputRule>& vision_inputs() {
    static const std::vector<VisionInputRule> v = parse_vision_inputs(models_json(), kModelsSource);
    return v;
}

}  // namespace gpuadvise::embedded
