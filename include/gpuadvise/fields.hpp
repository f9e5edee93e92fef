#pragma once
// The one table of option fields: every flag a command takes, its batch-line
// key, its GPUADVISE_* variable and config-file key when it is a setting, its
// help with the default and where the default comes from, its choices, and
// which workloads it applies to. CLI11 registration, `batch` line parsing,
// settings, completions, the man page, the `--task` guard and the README's flag
// list are all read from (or checked against) this table.
#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace gpuadvise {

enum class Field : std::uint8_t {
    // the model, and the card to answer for
    Model,
    HfConfig,
    Gguf,
    Safetensors,
    ModelDir,
    Task,
    Gpu,
    // the workload
    Method,
    Precision,
    Quant,
    DoubleQuant,
    Bitsandbytes,
    MixedPrecision,
    Optimizer,
    OptimizerInBackward,
    OptimizerImpl,
    KvDtype,
    Batch,
    Seq,
    Prompt,
    Gen,
    Images,
    ImageSize,
    Users,
    Rps,
    Context,
    Ttft,
    Tpot,
    TokSPerUser,
    GradCkpt,
    CkptMode,
    CkptReentrant,
    GradAccum,
    FlashAttn,
    Loss,
    ChunkedLoss,
    Packing,
    FusedKernels,
    ExpandableSegments,
    Harness,
    LoraRank,
    LoraTargets,
    LoraDropout,
    Gpus,
    Parallel,
    TrainOffload,
    Tp,
    Pp,
    Cp,
    Ep,
    Vpp,
    GlobalBatch,
    Engine,
    Draft,
    DraftTokens,
    DraftAcceptance,
    Estimator,
    // image generation, vision and video
    Resolution,
    Frames,
    CpuOffload,
    ImageSetup,
    VaeTiling,
    ChannelsLast,
    Streams,
    Fps,
    Codec,
    // calibration from the user's own runs
    Calibration,
    MeasuredMemory,
    Metric,
    MeasuredSpeed,
    FromLog,
    // the job: time and cost
    Tokens,
    Chinchilla,
    Steps,
    Epochs,
    DatasetTokens,
    AmortizeYears,
    KwhPrice,
    Pue,
    CloudPrice,
    Rent,
    Platform,
    HaveHost,
    // the host
    Os,
    Offload,
    CpuMoe,
    NCpuMoe,
    Ram,
    RamBandwidth,
    Vram,
    Network,
    GpusPerNode,
    // ranking
    Top,
    RankBy,
    MaxGpus,
    Budget,
    Deadline,
    Vendor,
    Segment,
    Region,
    Explain,
    Emit,
    KeepOrder,
    Plot,
    // listing the catalog
    MinMemory,
    MinBandwidth,
    Supports,
    Sort,
    MinContext,
    MinSpeed,
    Family,
    ModelsDir,
    // output and data
    Format,
    Color,
    Ascii,
    Wide,
    Json,
    Verbose,
    Catalog,
    CatalogMerge,
    kCount
};
inline constexpr std::size_t kFieldCount = static_cast<std::size_t>(Field::kCount);

// How a flag takes its value.
enum class FieldKind : std::uint8_t {
    Value,   // --batch 4
    Toggle,  // --grad-ckpt / --no-grad-ckpt; text "true" or "false"
    Switch,  // --explain, --json; text "true"
    Count,   // -v, -vv; text is the count
};

// The commands that take a group of fields.
enum FieldGroup : std::uint16_t {
    kModelGroup = 1U << 0U,     // --model and the model-file flags
    kWorkloadGroup = 1U << 1U,  // method, precision, batch, ...
    kJobGroup = 1U << 2U,       // tokens, prices
    kHostGroup = 1U << 3U,      // --os
    kRankGroup = 1U << 4U,      // top, rank-by, budget, filters
    kOutputGroup = 1U << 5U,    // format, color, json, verbose
    kCatalogGroup = 1U << 6U,   // --catalog, --catalog-merge
    kGpuGroup = 1U << 7U,       // --gpu: the card estimate, check and fit answer for
    kFilterGroup = 1U << 8U,    // gpus: --min-memory, --supports, --sort
    kFitGroup = 1U << 9U,       // fit: --min-context, --min-speed, --family (and --vram)
    kCalibrateGroup =
        1U << 10U,  // calibrate: --measured-memory, --metric, --measured-speed, --from-log
    kCompareGroup = 1U << 11U,  // compare: --keep-order
};

// Which workloads a workload field means something for, by what is done
// with the model; giving it for another is an error that names the field and
// the fix.
enum class Applies : std::uint8_t {
    Always,
    Model,      // a modelled workload (not a task preset's fixed memory floor)
    Training,   // --method full, lora or qlora
    Inference,  // --method inference
    Lora,       // --method lora or qlora
    // Training, and an image generation model's inference (--steps: the
    // optimizer's steps, or the denoising steps per image).
    TrainingOrImage,
};

// Which kinds of model (data/models.json "kind") a field means something for.
// A second column beside Applies rather than more values of it: the two are
// independent (--loss is Training and Language, --resolution Model and Image),
// so one enum would need a value for every pair. Giving a field for a model of
// another kind is an error that names the field, the model and its kind. An
// embedding or reranker model is a language model that does not generate; the
// fields it refuses narrow Language further, each with its own fix, so they are
// FieldSpec::generating_only's text rather than a value here.
enum class Models : std::uint8_t {
    Any,
    Language,   // language models only: an image generation or vision model refuses it
    Image,      // image generation and vision models only
    Diffusion,  // image generation (diffusion) models only
};

struct FieldSpec {
    Field field;
    std::string_view flag;        // "--batch"
    std::string_view short_flag;  // "-m" or empty
    std::string_view key;         // "batch": the batch-line key and config-file key
    FieldKind kind = FieldKind::Value;
    std::uint16_t group = 0;
    std::string_view value_name;  // "N", "SIZE", "FILE"
    std::string_view help;
    std::string_view default_help;  // "4 for training (document §4); 1 for inference"
    Applies applies = Applies::Always;
    Models models = Models::Any;
    bool setting = false;  // also from GPUADVISE_<KEY> and the config file
    bool file = false;     // completes file names
    std::vector<std::string> (*choices)() = nullptr;
    // Set for a field that means something only for a model that generates
    // (tokens to generate, decode and first-token targets, a draft, a KV
    // cache, images in the prompt): what an embedding or reranker model takes
    // instead. Giving the field for one is an error that ends with this text.
    std::string_view generating_only{};
    // Said after the refusal of a field given for a method (`applies`) or a
    // kind of model (`models`) it does not apply to, where the field has a
    // better fix than the generic one: "; use --seq for training".
    std::string_view method_note{};
    std::string_view model_note{};

    // "GPUADVISE_RANK_BY" for key "rank_by".
    std::string env_name() const;
    // The help line as --help prints it: text, choices and default.
    std::string help_text() const;
    // The negative spelling of a toggle: "--no-grad-ckpt".
    std::string negative_flag() const;
    // How --help, the man page and the README show the flag:
    // "-m, --model NAME|SIZE", "--grad-ckpt, --no-grad-ckpt".
    std::string usage() const;
};

std::span<const FieldSpec> field_specs();
const FieldSpec& spec(Field f);
// The field whose batch/config key is `key`; nullptr when none.
const FieldSpec* find_field_by_key(std::string_view key);

// One value as given, with where it came from, so an error names the origin
// the user can fix: "--batch", "GPUADVISE_TOP", "config.json: top", "line 3: batch".
struct Given {
    std::string text;
    std::string origin;
};

// The values a command received: flags, settings, or a batch line.
class Request {
  public:
    const std::optional<Given>& get(Field f) const { return values_[static_cast<std::size_t>(f)]; }
    bool has(Field f) const { return get(f).has_value(); }
    void set(Field f, std::string text, std::string origin) {
        values_[static_cast<std::size_t>(f)] = Given{std::move(text), std::move(origin)};
    }
    void clear(Field f) { values_[static_cast<std::size_t>(f)].reset(); }
    // A toggle or switch's value; nullopt when not given.
    std::optional<bool> flag(Field f) const;

  private:
    std::array<std::optional<Given>, kFieldCount> values_;
};

}  // namespace gpuadvise
