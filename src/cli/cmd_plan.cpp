// The commands that plan a workload: the ranking (the main command),
// estimate, check and compare.
#include <fmt/format.h>

#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include "cli/context.hpp"
#include "cli/handlers.hpp"
#include "gpuadvise/error.hpp"
#include "gpuadvise/names.hpp"
#include "gpuadvise/query.hpp"
#include "gpuadvise/rank.hpp"
#include "gpuadvise/report_html.hpp"
#include "gpuadvise/report_json.hpp"
#include "gpuadvise/report_suggest.hpp"
#include "gpuadvise/report_text.hpp"
#include "gpuadvise/suggest.hpp"
#include "gpuadvise/text.hpp"

namespace gpuadvise::cli {

namespace {

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

}  // namespace

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
        recs.push_back(plan_on_card(w, resolve_gpu(catalog, name, "GPU"), w.gpus, options));
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

}  // namespace gpuadvise::cli
