// What a handler works with: the catalog (embedded, --catalog, --catalog-merge,
// local prices), the model files read for the model flags, the calibration
// file, the workload, the box --gpu names (local: detected) and its launch.
#include "cli/context.hpp"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <ostream>

#include "cli/completion.hpp"
#include "cli/detect_runner.hpp"
#include "cli/model_files.hpp"
#include "gpuadvise/batch.hpp"
#include "gpuadvise/calibrate.hpp"
#include "gpuadvise/embedded.hpp"
#include "gpuadvise/error.hpp"
#include "gpuadvise/fit.hpp"
#include "gpuadvise/json.hpp"
#include "gpuadvise/launch.hpp"
#include "gpuadvise/names.hpp"
#include "gpuadvise/performance.hpp"
#include "gpuadvise/query.hpp"
#include "gpuadvise/rank.hpp"
#include "gpuadvise/report_json.hpp"
#include "gpuadvise/report_text.hpp"
#include "gpuadvise/text.hpp"
#include "gpuadvise/units.hpp"

namespace gpuadvise::cli {

// ----------------------------------------------------------------- Context

const Catalog& Context::catalog() {
    if (catalog_view_ != nullptr) return *catalog_view_;
    const auto& path = request.get(Field::Catalog);
    const auto& merge = request.get(Field::CatalogMerge);
    if (!path && !merge && config.prices.empty()) {
        // The embedded catalog as it is: no copy.
        catalog_view_ = &embedded::catalog();
        spdlog::info("catalog: {} ({} GPUs, dated {})", catalog_view_->source,
                     catalog_view_->gpus.size(), catalog_view_->date);
        return *catalog_view_;
    }
    if (!path && !merge) {
        catalog_ = embedded::catalog();
    } else if (path && !merge) {
        // A file is mapped, not copied: the catalog keeps the mapping.
        const OwnedText text = map_text_file(path->text, path->origin, kMaxCatalogBytes, in);
        catalog_ = parse_catalog_kept(text.owner, text.text, sanitize(path->text, 200));
    } else {
        // --catalog-merge: the base (a file or the embedded one), then the overlay.
        const std::string base_text =
            path ? read_text_file(path->text, path->origin, kMaxCatalogBytes, in)
                 : std::string(embedded::gpus_json());
        const std::string base_source =
            path ? sanitize(path->text, 200) : std::string(embedded::kGpusSource);
        const std::string overlay =
            read_text_file(merge->text, merge->origin, kMaxCatalogBytes, in);
        catalog_ = merge_catalogs(base_text, base_source, overlay, sanitize(merge->text, 200));
    }
    apply_prices(*catalog_, config);
    spdlog::info("catalog: {} ({} GPUs, dated {})", catalog_->source, catalog_->gpus.size(),
                 catalog_->date);
    catalog_view_ = &*catalog_;
    return *catalog_;
}

int Context::emit(const std::string& text, int code) {
    out << text;
    out.flush();
    if (!out) {
        const int e = errno;
        throw OutputError{fmt::format("cannot write the answer to standard output{}",
                                      e ? std::string(": ") + std::strerror(e) : "")};
    }
    if (fast_exit) {
        err.flush();
        std::_Exit(code);
    }
    return code;
}

// What the model flags read from files (the core does no I/O).
ModelInputs model_inputs(Context& ctx) {
    const Request& r = ctx.request;
    ModelInputs inputs;
    const int files = static_cast<int>(r.has(Field::Gguf)) +
                      static_cast<int>(r.has(Field::Safetensors)) +
                      static_cast<int>(r.has(Field::ModelDir));
    if (files > 1)
        throw InputError(
            "--gguf, --safetensors and --model-dir each name the model's files; give one of them");
    if (const auto& v = r.get(Field::HfConfig)) {
        inputs.hf_config_text = read_text_file(v->text, v->origin, kMaxConfigJsonBytes, ctx.in);
        inputs.hf_config_source =
            v->text == "-" ? "config.json from stdin" : sanitize(v->text, 200);
    }
    if (const auto& v = r.get(Field::Gguf)) inputs.model_file = read_gguf(v->text, v->origin);
    if (const auto& v = r.get(Field::Safetensors))
        inputs.model_file = read_safetensors(v->text, v->origin, ctx.in);
    if (const auto& v = r.get(Field::ModelDir))
        inputs.model_file = read_model_dir(v->text, v->origin, ctx.in);
    if (inputs.model_file && inputs.model_file->arch && inputs.hf_config_text)
        throw InputError(fmt::format("{} already gives the model's shape; drop --hf-config",
                                     inputs.model_file->source));
    return inputs;
}

// Presets are parsed only when the model is named rather than sized.
const std::vector<ModelPreset>& presets_for(const Request& r) {
    static const std::vector<ModelPreset> none;
    const auto& m = r.get(Field::Model);
    if (m && looks_like_size(m->text)) return none;
    if (!m && !r.has(Field::Task)) return none;
    return embedded::model_presets();
}

// The calibration file: --calibration (or GPUADVISE_CALIBRATION, or the config
// file's "calibration"), else calibration.jsonl in the config folder when it
// exists; nullopt without one.
std::optional<Calibration> load_calibration(Context& ctx) {
    std::string path, what = "--calibration";
    if (const auto& v = ctx.request.get(Field::Calibration)) {
        path = v->text;
        what = v->origin;
    } else {
        path = default_calibration_path(ctx.getenv);
        std::error_code ec;
        if (path.empty() || !std::filesystem::is_regular_file(path, ec)) return std::nullopt;
        what = "calibration file";
    }
    return parse_calibration(read_text_file(path, what, kMaxSettingsBytes, ctx.in), path);
}

Workload resolve(Context& ctx, bool calibrated) {
    if (!ctx.inputs) ctx.inputs = model_inputs(ctx);
    Workload w = resolve_workload(ctx.request, *ctx.inputs, presets_for(ctx.request));
    for (const auto& a : w.assumed) spdlog::info("assumed {}", a);
    if (calibrated) {
        if (!ctx.calibration) ctx.calibration = load_calibration(ctx);
        if (ctx.calibration) w.calibration = &*ctx.calibration;
    }
    return w;
}

// `--gpu local`: the local accelerators that match the catalog.
std::vector<std::string> local_gpu_ids(const Catalog& catalog, std::string_view origin) {
    std::string diagnostics;
    const auto found = detect_local_gpus(catalog, &diagnostics);
    std::vector<std::string> ids;
    for (const auto& g : found)
        if (!g.catalog_id.empty()) ids.push_back(g.catalog_id);
    if (ids.empty())
        throw InputError(fmt::format(
            "{} local: no local accelerator matched the catalog (see 'gpuadvise detect -v'); "
            "name the GPU instead",
            origin));
    return ids;
}

// The box --gpu describes ('local': the cards detect finds).
std::vector<const Gpu*> target_cards(Context& ctx, Workload& w) {
    const auto& g = ctx.request.get(Field::Gpu);
    const Catalog& catalog = ctx.catalog();
    if (normalize_name(g->text) == "local") {
        const std::vector<std::string> ids = local_gpu_ids(catalog, g->origin);
        return box_cards(catalog, ctx.request, w, ctx.made_gpus, &ids);
    }
    return box_cards(catalog, ctx.request, w, ctx.made_gpus);
}

// --emit for a plan; nullopt without the flag. A plan that does not fit
// has no launch to give.
std::optional<Launch> emit_launch(const Context& ctx, const Workload& w,
                                  const Recommendation* rec) {
    const auto& e = ctx.request.get(Field::Emit);
    if (!e) return std::nullopt;
    const LaunchKind kind = kLaunchKinds.parse(e->text, e->origin);
    if (!rec || !rec->fits)
        throw InputError(
            fmt::format("{} {}: no plan fits, so there is nothing to launch", e->origin, e->text));
    return make_launch(w, *rec, kind, e->origin);
}

std::string with_newline(std::string s) {
    s.push_back('\n');
    return s;
}

}  // namespace gpuadvise::cli
