#pragma once
// Attainable rates: the dense matmul TFLOPS a card sustains, beside the
// datasheet peak the catalog keeps (docs/performance-model.md, "Attainable
// rates"). data/attainable.json is written by bench/accuracy
// (`gpuadvise_accuracy ... --attainable data/attainable.json`) from
// bench/data/sources/attainable_matmul.csv: the measured rate of every card
// and dtype a source measured (MAMF-style shape searches, torch.mm tables),
// the measured share of the peak each class of card reaches, the measured
// ratio of one dtype's share to the 16-bit one, and the best measured TFLOPS
// per watt of each chip and architecture (the power limit of full-rate parts).
// A card without a measurement gets an estimate from its class, capped by its
// power, and says so; a rate without a peak stays unknown (nullopt), never 0.
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "gpuadvise/catalog.hpp"
#include "gpuadvise/enum_table.hpp"
#include "gpuadvise/json.hpp"

namespace gpuadvise {

// The matmul input types a rate is stated for (int8 in TOPS).
enum class RateDtype : std::uint8_t { Fp32, Tf32, Fp16, Bf16, Fp8, Int8 };
inline constexpr auto kRateDtypes = make_enum_table<RateDtype>({{RateDtype::Fp32, "fp32"},
                                                                {RateDtype::Tf32, "tf32"},
                                                                {RateDtype::Fp16, "fp16"},
                                                                {RateDtype::Bf16, "bf16"},
                                                                {RateDtype::Fp8, "fp8"},
                                                                {RateDtype::Int8, "int8"}});

// How 16-bit products are summed. PyTorch's matmuls (cuBLAS, cuBLASLt)
// accumulate in FP32; llama.cpp's cuBLAS GEMMs for F16 weights ask for FP16
// accumulation (CUBLAS_COMPUTE_16F) on cards where it is faster.
enum class Accumulate : std::uint8_t { Fp32, Fp16 };

// Where an attainable rate comes from.
enum class RateBasis : std::uint8_t {
    Measured,      // the card's own measurements of this dtype (median of the rows)
    CardReach,     // the card's measured share of its peak in another dtype
    FamilyReach,   // its architecture's measured share among cards of its accumulate mode
    ClassReach,    // its class's measured share of the peak (no measurement of the card)
    PowerLimited,  // the best measured TFLOPS per watt of its chip or family x its TDP
    Peak,          // the datasheet peak: no measurement of the software's own kernels
    None           // no peak for the dtype: no rate
};
inline constexpr auto kRateBases =
    make_enum_table<RateBasis>({{RateBasis::Measured, "measured"},
                                {RateBasis::CardReach, "card-reach"},
                                {RateBasis::FamilyReach, "family-reach"},
                                {RateBasis::ClassReach, "class-reach"},
                                {RateBasis::PowerLimited, "power-limited"},
                                {RateBasis::Peak, "datasheet-peak"},
                                {RateBasis::None, "none"}});

// One card's measured rate of one dtype: the median of its rows, their
// lowest and highest, and the rows' ids in the source table.
struct MeasuredRate {
    std::string_view gpu;
    RateDtype dtype = RateDtype::Bf16;
    double tflops = 0, low = 0, high = 0;
    std::int64_t rows = 0;
    std::string_view ids;
};

// A class of cards (attainable_class): the median over its measured cards of
// measured / peak in 16-bit, and the 10th and 90th percentile.
struct ReachClass {
    std::string_view id;
    double median = 1, low = 1, high = 1;
    std::int64_t cards = 0;
};

// A dtype's share of the peak over the 16-bit share, on cards measured in both.
struct DtypeRatio {
    RateDtype dtype = RateDtype::Fp8;
    double ratio = 1;
    std::int64_t cards = 0;
};

// The best sustained 16-bit TFLOPS per watt of TDP measured on full-rate
// parts of a chip ("AD102") or an architecture family ("ada").
struct PowerEfficiency {
    std::string_view key;
    double tflops_per_watt = 0;
    std::int64_t cards = 0;
    std::string_view gpus;
};

// A coefficient of the speed model that bench/accuracy fits on the replayed
// rows (`--fit`) and writes here with the rows it was fitted on; the model
// reads it by name (speed_fit).
struct FittedCoefficient {
    std::string_view name;
    double value = 0;
    std::int64_t rows = 0;
    std::string_view what;
};

struct AttainableData {
    std::string_view source;
    std::span<const MeasuredRate> measured;
    std::span<const ReachClass> reach;
    std::span<const DtypeRatio> ratios;
    std::span<const PowerEfficiency> power;
    std::span<const FittedCoefficient> fit;
    // Whether `measured` is in (gpu, dtype) order, as the parser and the
    // build's tables leave it: looked up by bisection (a ranking looks up
    // every card three times), else scanned.
    bool measured_sorted = false;
};

// A parsed data/attainable.json and the storage its views point into.
struct ParsedAttainable {
    std::vector<MeasuredRate> measured;
    std::vector<ReachClass> reach;
    std::vector<DtypeRatio> ratios;
    std::vector<PowerEfficiency> power;
    std::vector<FittedCoefficient> fit;
    std::string_view source;
    std::shared_ptr<const void> storage;
    AttainableData view() const { return {source, measured, reach, ratios, power, fit, true}; }
};
ParsedAttainable parse_attainable(std::string_view text, std::string_view source);

// The class a card's estimate comes from: nvidia-geforce (consumer parts
// from Turing on, whose catalog FP16/BF16 figures are the half-rate
// FP32-accumulate ones), nvidia-workstation, nvidia-datacenter, amd-instinct,
// amd-radeon, intel-gaudi, intel-arc, apple.
std::string_view attainable_class(const Gpu& gpu);
// The family a card's share is pooled with (attainable_class's id, with
// NVIDIA's full-rate workstation and datacenter parts together, then "/" and
// the architecture family: "nvidia-full-rate/turing", "nvidia-geforce/ada"):
// the tensor cores of one architecture and accumulate mode, whatever the
// product line.
std::string family_reach_key(const Gpu& gpu);
// The chip a card's architecture names ("Ada Lovelace (AD102)": "AD102"), or "".
std::string_view chip_of(const Gpu& gpu);
// Whether a CUDA card's compute capability is at least major.minor.
bool compute_capability_at_least(const Gpu& gpu, int major, int minor);
// GeForce parts from Turing on run FP16/BF16 with FP32 accumulate at half the
// rate of FP16 accumulate (NVIDIA's Turing, Ampere GA102, Ada and Blackwell
// GeForce whitepapers; data/gpus.json's notes: RTX 4090 330.3 vs 165.2,
// RTX 5090 419 vs 209.5 TFLOPS): the catalog gives the FP32-accumulate figure.
bool half_rate_fp32_accumulate(const Gpu& gpu);
// The datasheet peak of a dtype (bf16 falls back to fp16 and back, as the
// catalog's notes say the estimator does), or nullopt.
std::optional<double> peak_tflops(const Gpu& gpu, RateDtype dtype);

struct AttainableRate {
    std::optional<double> tflops;  // nullopt: no peak for the dtype
    double low = 0, high = 0;      // the range the basis supports
    double peak = 0;               // the datasheet figure it is a share of
    RateBasis basis = RateBasis::None;
    RateDtype dtype = RateDtype::Bf16;
};
// The rate `gpu` sustains in dense matmuls of `dtype`, from `data` (the
// embedded table by default).
AttainableRate attainable_rate(const Gpu& gpu, RateDtype dtype,
                               Accumulate accumulate = Accumulate::Fp32);
AttainableRate attainable_rate(const Gpu& gpu, RateDtype dtype, Accumulate accumulate,
                               const AttainableData& data);

// The speed model's fitted coefficient `name` from the embedded table; a
// name the table lacks is a logic error (the data test checks every name).
double speed_fit(std::string_view name);
// The names the speed model reads (the data test checks the table has each).
std::span<const std::string_view> speed_fit_names();
// For bench/accuracy's fit only (the program never calls it): replaces one
// coefficient while it searches; nullopt restores the table's.
void set_speed_fit_override(std::string_view name, std::optional<double> value);

// The compiled-in data/attainable.json (generated tables, and its text for
// the test that compares them).
namespace embedded {
AttainableData attainable();
std::string_view attainable_json();
}  // namespace embedded

}  // namespace gpuadvise
