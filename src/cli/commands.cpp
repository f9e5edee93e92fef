#include "cli/commands.hpp"

#include <algorithm>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "cli/handlers.hpp"
#include "gpuadvise/embedded.hpp"
#include "gpuadvise/fields.hpp"

namespace gpuadvise::cli {

namespace {

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
