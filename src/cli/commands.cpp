#include "cli/commands.hpp"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <ostream>

#include "cli/completion.hpp"
#include "cli/context.hpp"
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
#include "gpuadvise/report_html.hpp"
#include "gpuadvise/report_json.hpp"
#include "gpuadvise/report_suggest.hpp"
#include "gpuadvise/report_text.hpp"
#include "gpuadvise/suggest.hpp"
#include "gpuadvise/text.hpp"
#include "gpuadvise/units.hpp"

namespace gpuadvise::cli {

namespace {

// ---------------------------------------------------------------- handlers

bool plot_asked(const Context& ctx) {
    return ctx.request.flag(Field::Plot).value_or(false);
}

// A shown plan that misses gets the changes that make it fit (suggest.hpp),
// each probed as this command line with the change; `w` and `cards` are the
// plan's. Only shown misses pay for the search (CSV, one table, shows none).
void add_suggestions(Context& ctx, const Workload& w, std::span<const Gpu* const> cards,
                     Recommendation& rec, SuggestFor where) {
    if (rec.fits || !ctx.inputs || ctx.format == Format::Csv) return;
    const SuggestInputs in{ctx.request, *ctx.inputs, presets_for(ctx.request), w.calibration,
                           where};
    rec.suggestions = suggest_changes(in, w, cards, rec);
}

int cmd_recommend(Context& ctx) {
    const Workload w = resolve(ctx);
    RankOptions options = rank_options(ctx.request, w);
    const std::size_t top = top_count(ctx.request);
    options.describe_top = top;
    const Catalog& catalog = ctx.catalog();
    Workload single = w;
    if (!options.fixed_gpus) {
        single.gpus = 1;
        single.parallel = Parallel::None;
    }
    const MemoryEstimate memory = estimate(single);
    Ranking ranking = rank_within_budget(w, catalog, options);
    auto& recs = ranking.plans;
    options = ranking.options;
    // Nothing fits: what would make the closest miss fit.
    const bool none_fits =
        std::none_of(recs.begin(), recs.end(), [](const Recommendation& r) { return r.fits; });
    if (none_fits && !recs.empty() && top > 0) {
        const std::vector<const Gpu*> cards(static_cast<std::size_t>(recs.front().count),
                                            recs.front().gpu);
        add_suggestions(ctx, w, cards, recs.front(), SuggestFor::Ranking);
    }
    const auto pick = document_pick(w, catalog, recs, options);
    const auto launch = emit_launch(ctx, w, recs.empty() ? nullptr : &recs.front());
    if (ctx.json())
        return ctx.emit(with_newline(recommend_json(single, memory, recs, top, options, pick,
                                                    launch ? &*launch : nullptr)),
                        kExitOk);
    const bool explain = ctx.request.flag(Field::Explain).value_or(false);
    if (ctx.format == Format::Html) {
        // The page carries the text reports' extra parts as they print.
        std::vector<HtmlSection> extra;
        if (pick)
            extra.push_back(
                {"The source document's pick", document_pick_text(*pick, recs, Format::Table)});
        if (launch)
            extra.push_back(
                {"Launch", launch_text(*launch, "#1 " + sanitize(plan_label(recs.front())),
                                       Format::Table, Style{})});
        if (explain) extra.push_back({"Rules that fired", explain_text(recs, top)});
        return ctx.emit(
            recommend_html(single, memory, recs, top, options, catalog.gpus.size(), extra),
            kExitOk);
    }
    std::string out = recommend_text(single, memory, recs, top, options, catalog.gpus.size(),
                                     ctx.format, ctx.style, plot_asked(ctx));
    // Prose lines follow the terminal's width as the tables do.
    const auto prose = [&](const std::string& text) {
        return ctx.format == Format::Table ? wrap(text, ctx.style.width) : text;
    };
    if (none_fits && !recs.empty() && recs.front().suggestions)
        out += suggestions_text(*recs.front().suggestions,
                                plan_label(recs.front()) + " (the closest miss)", ctx.format,
                                ctx.style);
    if (pick && ctx.format != Format::Csv)
        out += prose(document_pick_text(*pick, recs, ctx.format));
    if (launch && ctx.format != Format::Csv)
        out +=
            launch_text(*launch, "#1 " + sanitize(plan_label(recs.front())), ctx.format, ctx.style);
    if (explain && ctx.format != Format::Csv) out += prose(explain_text(recs, top));
    return ctx.emit(out, kExitOk);
}

int cmd_estimate(Context& ctx) {
    const Workload w = resolve(ctx);
    const MemoryEstimate memory = estimate(w);
    if (!ctx.request.has(Field::Gpu)) {
        rank_options(ctx.request, w);  // validated even without a card to time
        if (const auto& m = ctx.request.get(Field::MaxGpus))
            throw InputError(fmt::format(
                "{} searches how many cards a plan needs: add --gpu to say which card", m->origin));
        if (const auto& e = ctx.request.get(Field::Emit))
            throw InputError(fmt::format("{} {} launches a plan: add --gpu to say on which cards",
                                         e->origin, e->text));
        if (ctx.json()) return ctx.emit(with_newline(estimate_json(w, memory)), kExitOk);
        if (ctx.format == Format::Csv) return ctx.emit(render_csv(memory_table(memory)), kExitOk);
        return ctx.emit(
            "Workload\n" + workload_text(w) + '\n' + memory_text(memory, w, ctx.format, ctx.style),
            kExitOk);
    }
    Workload box = w;
    auto cards = target_cards(ctx, box);
    RankOptions options = rank_options(ctx.request, box);
    if (ctx.request.has(Field::Parallel)) options.parallel = box.parallel;
    Recommendation rec = plan_box(ctx.request, box, cards, options);
    add_suggestions(ctx, box, cards, rec, SuggestFor::Box);
    const auto launch = emit_launch(ctx, box, &rec);
    // The workload and memory shown are the plan's: with the defaults its
    // cards set (Ollama's context by VRAM, fp16 vision on cards without bf16).
    Workload on_cards = w;
    const MemoryEstimate shown = apply_card_defaults(on_cards, cards) ? estimate(on_cards) : memory;
    if (ctx.json())
        return ctx.emit(
            with_newline(estimate_json(on_cards, shown, &rec, launch ? &*launch : nullptr)),
            kExitOk);
    if (ctx.format == Format::Csv)
        return ctx.emit(render_csv(performance_table(rec.performance)), kExitOk);
    std::string out = "Workload\n" + workload_text(on_cards) + '\n' +
                      memory_text(shown, on_cards, ctx.format, ctx.style) + '\n';
    out += fmt::format("On {} ({}): {}\n", sanitize(plan_label(rec)), to_string(rec.strategy),
                       verdict_text(rec));
    out += render(performance_table(rec.performance), ctx.format, ctx.style);
    out += placement_text(rec, ctx.format, ctx.style);
    out += plan_notes_text(rec, ctx.format);
    if (rec.suggestions)
        out += suggestions_text(*rec.suggestions, plan_label(rec), ctx.format, ctx.style);
    if (launch) out += launch_text(*launch, sanitize(plan_label(rec)), ctx.format, ctx.style);
    return ctx.emit(out, kExitOk);
}

int cmd_check(Context& ctx) {
    Workload w = resolve(ctx);
    auto cards = target_cards(ctx, w);
    apply_card_defaults(w, cards);  // the workload shown is the plan's
    const RankOptions options = rank_options(ctx.request, w);
    Recommendation rec = plan_box(ctx.request, w, cards, options);
    // Suggestions do not change the answer: a miss still exits 1.
    add_suggestions(ctx, w, cards, rec, SuggestFor::Box);
    const int code = rec.fits ? kExitOk : kExitNo;
    // A check that answers no has nothing to launch: the answer stands, --emit is ignored.
    const auto launch = rec.fits ? emit_launch(ctx, w, &rec) : std::nullopt;
    if (ctx.json())
        return ctx.emit(with_newline(check_json(w, rec, launch ? &*launch : nullptr)), code);
    std::string out = check_text(rec, ctx.format, ctx.style);
    if (rec.suggestions)
        out += suggestions_text(*rec.suggestions, plan_label(rec), ctx.format, ctx.style);
    if (launch && ctx.format != Format::Csv)
        out += launch_text(*launch, sanitize(plan_label(rec)), ctx.format, ctx.style);
    return ctx.emit(out, code);
}

int cmd_compare(Context& ctx) {
    const Workload w = resolve(ctx);
    RankOptions options = rank_options(ctx.request, w);
    const Catalog& catalog = ctx.catalog();
    std::vector<std::string> names;
    for (const auto& name : ctx.positionals[0]) {
        if (normalize_name(name) == "local") {
            for (const auto& id : local_gpu_ids(catalog, "compare"))
                if (std::find(names.begin(), names.end(), id) == names.end()) names.push_back(id);
        } else {
            names.push_back(name);
        }
    }
    std::vector<Recommendation> recs;
    for (const auto& name : names)
        recs.push_back(evaluate_plan(w, resolve_gpu(catalog, name, "GPU"), w.gpus, options));
    // Ranked by the key the heading names, unless the user's order is the point.
    const bool keep_order = ctx.request.flag(Field::KeepOrder).value_or(false);
    if (!keep_order) std::stable_sort(recs.begin(), recs.end(), ranks_before);
    options.keep_order = keep_order;
    const MemoryEstimate memory = estimate(w);
    if (ctx.json())
        return ctx.emit(with_newline(recommend_json(w, memory, recs, recs.size(), options)),
                        kExitOk);
    if (ctx.format == Format::Html)
        return ctx.emit(recommend_html(w, memory, recs, recs.size(), options, recs.size()),
                        kExitOk);
    return ctx.emit(recommend_text(w, memory, recs, recs.size(), options, recs.size(), ctx.format,
                                   ctx.style, plot_asked(ctx)),
                    kExitOk);
}

// Compares a measured run with the estimate for the same workload and card,
// and appends the correction to the calibration file.
int cmd_calibrate(Context& ctx) {
    const Request& r = ctx.request;
    if (!r.has(Field::MeasuredMemory) && !r.has(Field::MeasuredSpeed) && !r.has(Field::FromLog))
        throw InputError(
            "calibrate needs what your run measured: --measured-memory 16.4GiB, --measured-speed "
            "2.1s/step or --from-log FILE");
    if (r.has(Field::MeasuredMemory) && r.has(Field::FromLog))
        throw InputError("--measured-memory and --from-log both give the peak; give only one");
    Workload w = resolve(ctx, false);  // the uncorrected estimate
    Measured run;
    if (const auto& v = r.get(Field::Metric)) run.metric = kMemoryMetrics.parse(v->text, v->origin);
    if (const auto& v = r.get(Field::MeasuredMemory)) {
        const std::string_view t = trim(v->text);
        if (!t.empty() && std::isdigit(static_cast<unsigned char>(t.back())) != 0)
            throw InputError(fmt::format("{} {} has no unit; give a size like 16.4GiB or 17.6GB",
                                         v->origin, quote(t)));
        run.bytes = static_cast<double>(parse_bytes(v->text, v->origin));
        if (!run.metric) {
            run.metric = MemoryMetric::Allocated;
            spdlog::info("assumed metric=allocated (torch.cuda.max_memory_allocated)");
        }
        run.bytes_origin = v->origin;
    } else if (const auto& f = r.get(Field::FromLog)) {
        const std::string text = read_text_file(f->text, f->origin, kMaxToolOutputBytes, ctx.in);
        const std::string source = fmt::format("{} {}", f->origin, quote(sanitize(f->text, 120)));
        const auto peak = parse_run_log(text, run.metric, source);
        if (!peak)
            throw InputError(fmt::format(
                "{}: no {}peak memory found; the log must hold torch.cuda.memory_summary(), "
                "torchtune's memory stats, nvidia-smi CSV with memory.used, or llama.cpp's buffer "
                "sizes (or give --measured-memory)",
                source,
                run.metric ? fmt::format("{} ", kMemoryMetrics.name(*run.metric)) : std::string()));
        run.bytes = peak->bytes;
        run.metric = peak->metric;
        run.bytes_origin = fmt::format("{} ({})", source, peak->what);
    }
    if (const auto& v = r.get(Field::MeasuredSpeed)) {
        run.speed = parse_measured_speed(v->text, v->origin);
        run.speed_origin = v->origin;
    }
    const auto cards = target_cards(ctx, w);
    const RankOptions options = rank_options(r, w);
    const Recommendation rec = evaluate_box(w, cards, options);
    const MemoryEstimate m = estimate(w);
    const CalibrationRecord record =
        make_record(w, m, run, &rec.performance, plan_label(rec), rec.gpu->memory_bytes);
    std::string path, what = "calibration file";
    if (const auto& v = r.get(Field::Calibration)) {
        path = v->text;
        what = fmt::format("calibration file ({})", v->origin);
    } else {
        path = default_calibration_path(ctx.getenv);
    }
    if (path.empty())
        throw InputError(
            "no HOME or absolute XDG_CONFIG_HOME for the calibration file; give --calibration "
            "FILE");
    if (!r.has(Field::Calibration)) {
        // The default file's folder is ours to make; a path the user gave is not.
        std::error_code ec;
        const auto parent = std::filesystem::path(path).parent_path();
        if (!parent.empty()) std::filesystem::create_directories(parent, ec);
    }
    const std::string line = record_json_line(record) + '\n';
    append_line(path, what, line, [&](std::string_view existing) {
        check_calibration_text(existing, path, kMaxSettingsBytes, line.size());
    });
    if (ctx.json()) {
        std::string out;
        json::Writer j(out);
        j.begin_object().field("schema", kSchemaVersion).field("file", sanitize(path, 200));
        j.key("record").raw(record_json_line(record)).end_object();
        return ctx.emit(with_newline(out), kExitOk);
    }
    std::string out = fmt::format("Calibration for {} on {} (key {})\n", w.model.name,
                                  plan_label(rec), record.key);
    if (record.metric)
        out += fmt::format(
            "  memory   measured {} ({}, {}) vs estimated {}: allocated components x{:.3f}\n",
            format_gib(static_cast<std::uint64_t>(record.measured_bytes)),
            kMemoryMetrics.name(*record.metric), run.bytes_origin,
            format_gib(static_cast<std::uint64_t>(record.estimated_bytes)), record.memory_factor);
    if (record.speed_unit)
        out += fmt::format("  speed    measured {:.4g} {} vs estimated {:.4g}: rates x{:.2f}\n",
                           record.measured_speed, kSpeedUnits.name(*record.speed_unit),
                           record.estimated_speed, record.speed_factor);
    out += fmt::format(
        "  written  {} (estimates of workloads with the same key use it; --calibration FILE to "
        "choose another file)\n",
        sanitize(path, 200));
    return ctx.emit(out, kExitOk);
}

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
    out.push_back(std::move(m));
    return out;
}

// Which models run on a box: the reverse of the main command.
int cmd_fit(Context& ctx) {
    const Request& r = ctx.request;
    if (!r.has(Field::Gpu))
        throw InputError(
            "fit needs --gpu (a catalog id, 'local', or a list like rtx-3090,rtx-3060-12gb); "
            "--vram then sets its memory");
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

int cmd_gpus(Context& ctx) {
    const GpuFilter filter = gpu_filter(ctx.request);
    const Catalog& catalog = ctx.catalog();
    const auto list = filter_gpus(catalog, filter);
    if (ctx.json()) return ctx.emit(with_newline(gpus_json(catalog, list)), kExitOk);
    std::string out = render(gpus_table(list), ctx.format, ctx.style);
    if (ctx.format == Format::Table) out += fmt::format("{} GPUs\n", list.size());
    return ctx.emit(out, kExitOk);
}

int cmd_gpu_show(Context& ctx) {
    const Gpu& g = resolve_gpu(ctx.catalog(), ctx.positionals[0].front(), "GPU");
    if (ctx.json()) return ctx.emit(with_newline(gpu_show_json(g)), kExitOk);
    return ctx.emit(render(gpu_detail_table(g), ctx.format, ctx.style), kExitOk);
}

int cmd_models(Context& ctx) {
    const auto& presets = embedded::model_presets();
    if (ctx.json()) return ctx.emit(with_newline(models_json(presets)), kExitOk);
    std::string out = render(models_table(presets), ctx.format, ctx.style);
    if (ctx.format == Format::Table) out += fmt::format("{} presets\n", presets.size());
    return ctx.emit(out, kExitOk);
}

int cmd_rules(Context& ctx) {
    if (ctx.json()) return ctx.emit(with_newline(rules_json()), kExitOk);
    return ctx.emit(render(rules_table(), ctx.format, ctx.style), kExitOk);
}

// Reads JSON Lines from a file or stdin and writes one result per line;
// blank lines are skipped; any failed line makes the exit code 2.
int cmd_batch(Context& ctx) {
    // The same calibration file the flags would apply.
    if (!ctx.calibration) ctx.calibration = load_calibration(ctx);
    const BatchContext context{ctx.catalog(), embedded::model_presets(),
                               ctx.calibration ? &*ctx.calibration : nullptr};
    const std::string path = ctx.positionals[0].empty() ? "-" : ctx.positionals[0].front();
    LineReader reader(path, path == "-" ? "batch input (stdin)" : "batch input", ctx.in);
    std::string line, buffer;
    std::size_t number = 0, failed = 0;
    const auto flush = [&] {
        ctx.out << buffer;
        buffer.clear();
        if (!ctx.out) throw OutputError{"cannot write the results to standard output"};
    };
    while (reader.next(line)) {
        ++number;
        if (trim(line).empty()) continue;
        const BatchLineResult r = run_batch_line(line, number, context);
        if (!r.ok) ++failed;
        buffer += r.json;
        buffer += '\n';
        if (buffer.size() > (1U << 16U)) flush();
    }
    if (failed > 0)
        spdlog::warn("{} of {} lines failed (see their \"error\" objects)", failed, number);
    return ctx.emit(buffer, failed > 0 ? kExitInput : kExitOk);
}

// Lists the machine's accelerators and their catalog ids; exit 1 when none.
int cmd_detect(Context& ctx) {
    const Catalog& catalog = ctx.catalog();
    std::string diagnostics;
    const auto found = detect_local_gpus(catalog, &diagnostics);
    for (std::size_t start = 0; start < diagnostics.size();) {
        const std::size_t end = std::min(diagnostics.find('\n', start), diagnostics.size());
        spdlog::info("detect: {}", sanitize(diagnostics.substr(start, end - start)));
        start = end + 1;
    }
    const int code = found.empty() ? kExitNo : kExitOk;
    if (ctx.json()) {
        std::string out;
        json::Writer j(out);
        j.begin_object().field("schema", kSchemaVersion).key("gpus").begin_array();
        for (const auto& g : found) {
            j.begin_object();
            j.field("source", g.source).field("name", g.name);
            j.field("memory_bytes", g.memory_bytes)
                .field("pcie_gen", g.pcie_gen)
                .field("pcie_width", g.pcie_width);
            j.field("pci_id", g.pci_id);
            if (g.catalog_id.empty())
                j.key("catalog_id").null();
            else
                j.field("catalog_id", g.catalog_id);
            j.field("match_note", g.match_note);
            j.end_object();
        }
        j.end_array().end_object();
        return ctx.emit(with_newline(out), code);
    }
    if (found.empty())
        return ctx.emit(
            "no GPUs found: no nvidia-smi, rocm-smi, amd-smi or xpu-smi answered and "
            "/sys/class/drm lists none "
            "(run with -v to see why)\n",
            code);
    static constexpr NarrowStep kNarrowing[] = {{"Note", Narrow::Cut, 12}, {"Note"}};
    Table t;
    t.columns = {{"#", true}, {"Source"},     {"Reported name"}, {"Memory", true},
                 {"PCIe"},    {"Catalog id"}, {"Note"}};
    t.narrowing = kNarrowing;
    for (std::size_t i = 0; i < found.size(); ++i) {
        const auto& g = found[i];
        t.rows.push_back(
            {std::to_string(i), g.source, g.name.empty() ? g.pci_name : g.name,
             g.memory_bytes ? format_gib(*g.memory_bytes) : "-",
             g.pcie_gen ? fmt::format("Gen{} x{}", *g.pcie_gen, g.pcie_width.value_or(0)) : "-",
             g.catalog_id.empty() ? "-" : g.catalog_id, g.match_note});
    }
    return ctx.emit(render(t, ctx.format, ctx.style), code);
}

int cmd_completion(Context& ctx) {
    const std::string shell =
        parse_choice(ctx.positionals[0].front(), "completion shell", {"bash", "zsh", "fish"});
    return ctx.emit(completion_script(shell), kExitOk);
}

int cmd_man(Context& ctx) {
    const std::string format = ctx.positionals[0].empty() ? "roff" : ctx.positionals[0].front();
    if (format != "roff" && format != "markdown")
        throw InputError(
            fmt::format("man {}: choose roff (the man page) or markdown (the README's flag table)",
                        quote(format)));
    return ctx.emit(format == "roff" ? man_page() : flags_markdown(), kExitOk);
}

std::vector<std::string> shells() {
    return {"bash", "zsh", "fish"};
}
std::vector<std::string> gpu_ids() {
    std::vector<std::string> ids;
    for (const Gpu& g : embedded::catalog().gpus) ids.emplace_back(g.id);
    return ids;
}

constexpr std::uint16_t kWork = kModelGroup | kWorkloadGroup | kJobGroup | kHostGroup;
constexpr std::uint16_t kOut = kOutputGroup | kCatalogGroup;

constexpr Field kGpuField[] = {Field::Gpu};
constexpr Field kEmitField[] = {Field::Emit, Field::Vram};
constexpr Field kPlanFields[] = {Field::Emit, Field::Vram, Field::MaxGpus};
constexpr Field kFitFields[] = {Field::RankBy,   Field::Top,      Field::Gguf,
                                Field::HfConfig, Field::ModelDir, Field::Safetensors};
constexpr Field kGpusFilters[] = {Field::Vendor, Field::Segment};
// compare ranks the cards it is given: by a key, within a budget or a
// deadline, and its table can be plotted.
constexpr Field kCompareFields[] = {Field::RankBy, Field::Budget, Field::Deadline, Field::Plot};
constexpr Positional kCompareArgs[] = {
    {"gpus", "GPUs to compare (ids, aliases or names; 'local' for this machine's)", true, true,
     gpu_ids}};
constexpr Positional kShowArgs[] = {{"gpu", "GPU id, alias or name", true, false, gpu_ids}};
constexpr Positional kBatchArgs[] = {
    {"input", "JSON Lines file ('-' or nothing reads stdin)", false, false, nullptr}};
constexpr Positional kCompletionArgs[] = {{"shell", "bash | zsh | fish", true, false, shells}};
constexpr Positional kManArgs[] = {
    {"format", "roff (default) | markdown (the README's flag table)", false, false, nullptr}};

const Command kCommands[] = {
    {.name = "",
     .help = "Rank the GPUs of the catalog for a workload (the main command)",
     .groups = kWork | kRankGroup | kOut,
     .run = cmd_recommend},
    {.name = "estimate",
     .help = "Print only the memory requirement (and, with --gpu, the speed on that card)",
     .groups = kWork | kOut | kGpuGroup,
     .extra = kPlanFields,
     .run = cmd_estimate},
    {.name = "check",
     .help = "Does the workload fit this GPU? Exit 0 yes, 1 no, 2 bad input",
     .groups = kWork | kOut | kGpuGroup,
     .extra = kPlanFields,
     .required = kGpuField,
     .run = cmd_check},
    {.name = "compare",
     .help = "The same workload on several GPUs side by side, ranked by --rank-by",
     .groups = kWork | kOut | kCompareGroup,
     .extra = kCompareFields,
     .positionals = kCompareArgs,
     .run = cmd_compare},
    {.name = "fit",
     .help =
         "Which model presets run on this card or box: best quantization, longest context, speed, "
         "offload",
     .groups = kWorkloadGroup | kHostGroup | kOutputGroup | kGpuGroup | kFitGroup,
     .extra = kFitFields,
     .run = cmd_fit},
    {.name = "calibrate",
     .help = "Record a measured run (peak memory, speed) against the estimate; later estimates of "
             "workloads like it are corrected",
     .groups = kWork | kOut | kGpuGroup | kCalibrateGroup,
     .extra = kEmitField,
     .required = kGpuField,
     .run = cmd_calibrate},
    {.name = "gpus",
     .help = "List the GPU catalog (filter, sort, JSON); 'gpus show ID' for one card",
     .groups = kOut | kFilterGroup,
     .extra = kGpusFilters,
     .run = cmd_gpus},
    {.name = "gpus show",
     .help = "Every field of one GPU with its sources",
     .groups = kOut,
     .positionals = kShowArgs,
     .run = cmd_gpu_show},
    {.name = "models", .help = "List the model presets", .groups = kOutputGroup, .run = cmd_models},
    {.name = "rules",
     .help = "List the rules that reject, warn, tip and adjust scores, with their thresholds",
     .groups = kOutputGroup,
     .run = cmd_rules},
    {.name = "batch",
     .help = "Read JSON Lines workloads (keys = long flags without dashes, plus gpu and top) and "
             "write one "
             "JSON result "
             "per line; exit 2 if any line failed",
     .groups = kOutputGroup | kCatalogGroup,
     .positionals = kBatchArgs,
     .run = cmd_batch},
    {.name = "detect",
     .help =
         "List this machine's accelerators (nvidia-smi, rocm-smi/amd-smi, xpu-smi, /sys) and their "
         "catalog ids; exit "
         "1 when there are none",
     .groups = kOut,
     .run = cmd_detect},
    {.name = "completion",
     .help = "Print the shell completion script: bash | zsh | fish",
     .positionals = kCompletionArgs,
     .run = cmd_completion},
    {.name = "man",
     .help = "Print the man page (roff), or the README's flag table (markdown)",
     .positionals = kManArgs,
     .hidden = true,
     .run = cmd_man},
};

}  // namespace

std::span<const Command> commands() {
    return kCommands;
}
const Command& main_command() {
    return kCommands[0];
}

bool accepts(const Command& command, Field field) {
    const FieldSpec& s = spec(field);
    if ((s.group & command.groups) != 0) return true;
    return std::find(command.extra.begin(), command.extra.end(), field) != command.extra.end();
}

std::vector<Field> accepted_fields(const Command& command) {
    std::vector<Field> out;
    for (const FieldSpec& s : field_specs())
        if (accepts(command, s.field)) out.push_back(s.field);
    return out;
}

}  // namespace gpuadvise::cli
