#include "gpuadvise/embedded.hpp"

namespace gpuadvise::embedded {

const Catalog& catalog() {
    static const Catalog c = parse_catalog(gpus_json(), kGpusSource);
    return c;
}

const std::vector<ModelPreset>& model_presets() {
    static const std::vector<ModelPreset> p = parse_model_presets(models_json(), kModelsSource);
    return p;
}

}  // namespace gpuadvise::embedded
