// fit: which models run on a card or box, from the presets or the user's
// own files.
#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <filesystem>
#include <initializer_list>
#include <string>
#include <string_view>
#include <vector>

#include "cli/context.hpp"
#include "cli/handlers.hpp"
#include "cli/model_files.hpp"
#include "gpuadvise/embedded.hpp"
#include "gpuadvise/error.hpp"
#include "gpuadvise/fit.hpp"
#include "gpuadvise/query.hpp"
#include "gpuadvise/rank.hpp"
#include "gpuadvise/report_json.hpp"
#include "gpuadvise/report_text.hpp"
#include "gpuadvise/text.hpp"
#include "gpuadvise/units.hpp"

namespace gpuadvise::cli {

namespace {

// The user's own models for fit: --gguf, --hf-config, --safetensors,
// --model-dir, or every GGUF of --models-dir grouped by model (one name,
// architecture and parameter count: the same model at several
// quantizations). Empty when none is given (fit tries the presets).
std::vector<FitModel> own_models(Context& ctx, std::vector<std::string>& skipped) {
    const Request& r = ctx.request;
    const ModelGenerations& generations = embedded::model_generations();
    const auto place = [&](FitModel& m, std::initializer_list<std::string_view> names) {
        for (const std::string_view n : names)
            if (const ModelGeneration* g = match_generation(generations, n)) {
                m.generation = g->id;
                m.released = g->released;
                return;
            }
    };
    const auto stem = [](const std::string& path) {
        return std::filesystem::path(path).filename().replace_extension().string();
    };
    std::vector<FitModel> out;
    if (const auto& v = r.get(Field::ModelsDir)) {
        for (const Field f : {Field::Gguf, Field::HfConfig, Field::ModelDir, Field::Safetensors})
            if (const auto& other = r.get(f))
                throw InputError(fmt::format("{} and {} both name the models to fit; give one",
                                             v->origin, other->origin));
        GgufFolder folder = read_gguf_folder(v->text, v->origin);
        skipped = std::move(folder.skipped);
        for (ModelFile& f : folder.files) {
            // fit answers which chat models run; an embedding or reranker
            // file (its GGUF's pooling_type) is sized by estimate --gguf.
            if (f.arch && f.arch->pools()) {
                skipped.push_back(fmt::format(
                    "{}: an {} model (the file's pooling_type), not a chat model; size it with "
                    "'gpuadvise estimate --gguf'",
                    sanitize(f.source, 120),
                    f.arch->task == ModelTask::Embed ? "embedding" : "reranker"));
                continue;
            }
            const auto same = [&](const FitModel& m) {
                const ModelFile& g = m.files.front();
                return g.name == f.name && g.params == f.params &&
                       g.arch.has_value() == f.arch.has_value() &&
                       (!g.arch || g.arch->model_type == f.arch->model_type);
            };
            const auto it = std::find_if(out.begin(), out.end(), same);
            if (it != out.end()) {
                it->files.push_back(std::move(f));
                continue;
            }
            FitModel m;
            m.id = sanitize(f.name.empty() ? stem(f.source) : f.name, 60);
            place(m, {f.name, f.source});
            m.files.push_back(std::move(f));
            out.push_back(std::move(m));
        }
        // Two models of one name (two fine-tunes called "Llama 3.1 8B") are told
        // apart by their first file.
        for (FitModel& m : out)
            if (std::count_if(out.begin(), out.end(),
                              [&](const FitModel& o) { return o.id == m.id; }) > 1)
                m.id += " (" + sanitize(stem(m.files.front().source), 40) + ")";
        return out;
    }
    if (!r.has(Field::Gguf) && !r.has(Field::HfConfig) && !r.has(Field::ModelDir) &&
        !r.has(Field::Safetensors))
        return out;
    const ModelInputs inputs = model_inputs(ctx);
    FitModel m;
    if (inputs.model_file) {
        const ModelFile& f = *inputs.model_file;
        m.id = sanitize(f.name.empty() ? stem(f.source) : f.name, 60);
        place(m, {f.name, f.source, f.path});
        m.files.push_back(f);
        if (!f.arch && inputs.hf_config_text) {
            // --safetensors with --hf-config: the shape travels with the file.
            m.files.front().arch = parse_hf_config(*inputs.hf_config_text, inputs.hf_config_source);
        }
    } else {
        const auto& v = r.get(Field::HfConfig);
        // A folder's config.json is named by its folder ("Qwen3-8B/config.json").
        const std::filesystem::path config(v->text);
        const std::string folder_name = config.parent_path().filename().string();
        m.id = sanitize(config.filename() == "config.json" && !folder_name.empty()
                            ? folder_name
                            : inputs.hf_config_source,
                        60);
        m.shape = inputs;
        place(m, {v->text, std::filesystem::path(v->text).parent_path().string()});
    }
    const std::optional<Architecture>& own =
        m.files.empty() ? std::optional<Architecture>{} : m.files.front().arch;
    const Architecture shape =
        own                     ? *own
        : inputs.hf_config_text ? parse_hf_config(*inputs.hf_config_text, inputs.hf_config_source)
                                : Architecture{};
    if (shape.pools())
        throw InputError(fmt::format(
            "{} is an {} model; fit lists chat models that decode: size it with 'gpuadvise "
            "estimate' (or rank cards with 'gpuadvise') and the same model flags",
            m.id, shape.task == ModelTask::Embed ? "embedding" : "reranker"));
    out.push_back(std::move(m));
    return out;
}

}  // namespace

// Which models run on a box: the reverse of the main command.
int cmd_fit(Context& ctx) {
    const Request& r = ctx.request;
    if (!r.has(Field::Gpu))
        throw InputError(
            "fit needs --gpu (a catalog id, 'local', or a list like rtx-3090,rtx-3060-12gb); "
            "--vram then sets its memory");
    // A draft belongs to one target; fit tries every model.
    for (const Field f : {Field::Draft, Field::DraftTokens, Field::DraftAcceptance})
        if (const auto& v = r.get(f))
            throw InputError(fmt::format(
                "{} drafts for one model, and fit tries every model; use estimate --model M "
                "{} D --gpu G for one pair",
                v->origin, spec(Field::Draft).flag));
    Request base = r;
    // The model files are read here; the workload sees each file as a rung.
    for (const Field f :
         {Field::Gguf, Field::HfConfig, Field::ModelDir, Field::Safetensors, Field::ModelsDir})
        base.clear(f);
    std::vector<std::string> skipped;
    std::vector<FitModel> models = own_models(ctx, skipped);
    const bool own = !models.empty();
    // Local users run llama.cpp and its wrappers: the default engine for fit,
    // except for a Hugging Face folder, which the serving engines load.
    const bool folder = r.has(Field::ModelDir) || r.has(Field::Safetensors);
    if (!base.has(Field::Engine) && !base.has(Field::Method) && !folder)
        base.set(Field::Engine, "llama.cpp", "fit's default engine");
    Workload shape;  // only the card count, which target_cards reads
    if (const auto& v = r.get(Field::Gpus))
        shape.gpus = parse_positive_int(v->text, v->origin, kMaxBoxGpus);
    std::vector<const Gpu*> cards = target_cards(ctx, shape);
    // An engine that runs on none of the box's cards answers nothing.
    if (const auto& e = r.get(Field::Engine)) {
        const Engine& engine = parse_engine(e->text, e->origin);
        for (const Gpu* g : cards)
            if (const EngineFit f = engine_fit(engine, *g); !f.runs)
                throw InputError(fmt::format("{} {}: {}", e->origin, quote(e->text), f.reason));
    }
    if (cards.size() > 1 || r.has(Field::Gpus)) {
        base.set(Field::Gpus, std::to_string(cards.size()), "the box's cards");
    }
    RankOptions options = rank_options(base, shape);
    FitOptions fit;
    if (const auto& v = r.get(Field::MinContext))
        fit.min_context = parse_positive_int(v->text, v->origin, 1LL << 24);
    if (const auto& v = r.get(Field::MinSpeed)) {
        fit.min_speed = parse_positive_real(v->text, v->origin);
        fit.min_speed_given = true;
    }
    if (const auto& v = r.get(Field::Family)) {
        fit.family = lower(trim(v->text));
        // A family no model belongs to would answer "nothing runs".
        std::vector<std::string> families;
        bool known = false;
        const auto add = [&](const std::string& id) {
            known =
                known || (!fit.family.empty() && lower(id).find(fit.family) != std::string::npos);
            const std::string first = id.substr(0, id.find_first_of("-0123456789 "));
            if (!first.empty() &&
                std::find(families.begin(), families.end(), first) == families.end())
                families.push_back(first);
        };
        if (own)
            for (const FitModel& m : models) add(m.id);
        else
            for (const ModelPreset& p : embedded::model_presets()) add(p.id);
        if (!known) {
            std::string list;
            for (const auto& f : families) list += (list.empty() ? "" : ", ") + f;
            throw InputError(fmt::format("{} {}: no {} name holds it; families: {}", v->origin,
                                         quote(v->text), own ? "model's" : "preset's", list));
        }
    }
    fit.by_speed = options.rank_by == RankBy::Speed;
    if (options.rank_by != RankBy::Speed && options.rank_by != RankBy::Value)
        throw InputError(
            fmt::format("fit --rank-by {}: fit ranks by quality (the default) or speed",
                        to_string(options.rank_by)));
    fit.allow_offload = !r.has(Field::Offload) || options.offload.kind != OffloadKind::None;
    if (own) {
        if (!fit.family.empty())
            std::erase_if(models, [&](const FitModel& m) {
                return lower(m.id).find(fit.family) == std::string::npos;
            });
    } else {
        models = preset_models(embedded::model_presets(), fit.family);
    }
    FitResult result = fit_models(base, models, embedded::model_presets(), cards, options, fit,
                                  embedded::model_generations().proxy);
    result.left_out.insert(result.left_out.end(), skipped.begin(), skipped.end());
    for (const std::string& why : result.left_out) spdlog::info("left out {}", sanitize(why, 300));
    Recommendation box;  // for the label
    if (!result.rows.empty()) box = result.rows.front().plan;
    const std::string label =
        cards.size() == 1
            ? std::string(cards.front()->id)
            : (result.rows.empty() ? fmt::format("{} cards", cards.size()) : plan_label(box));
    const std::size_t top = top_count(r);
    if (ctx.json())
        return ctx.emit(with_newline(fit_json(label, cards, result, fit, top)), kExitOk);
    return ctx.emit(fit_text(label, cards, result, fit, top, ctx.format, ctx.style), kExitOk);
}

}  // namespace gpuadvise::cli
