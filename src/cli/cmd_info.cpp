// The commands that list what the tool knows (gpus, gpus show, models,
// rules), run many workloads (batch), look at this machine (detect), and
// print the completion script and the man page.
#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <string>

#include "cli/completion.hpp"
#include "cli/context.hpp"
#include "cli/detect_runner.hpp"
#include "cli/handlers.hpp"
#include "cli/io.hpp"
#include "gpuadvise/batch.hpp"
#include "gpuadvise/embedded.hpp"
#include "gpuadvise/error.hpp"
#include "gpuadvise/json.hpp"
#include "gpuadvise/query.hpp"
#include "gpuadvise/report_json.hpp"
#include "gpuadvise/report_text.hpp"
#include "gpuadvise/table.hpp"
#include "gpuadvise/text.hpp"
#include "gpuadvise/units.hpp"

namespace gpuadvise::cli {

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
    BatchMemo memo;
    const BatchContext context{ctx.catalog(), embedded::model_presets(),
                               ctx.calibration ? &*ctx.calibration : nullptr, &memo};
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

}  // namespace gpuadvise::cli
