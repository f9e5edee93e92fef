// The bad-input matrix: every case must exit 2, print exactly one line on
// stderr that names the bad value (and where it came from), print nothing on
// stdout, and return: never a hang, a crash or an "internal error".
#include <sys/stat.h>

#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "support/run_process.hpp"
#include "support/temp_files.hpp"

namespace {

struct Case {
    std::vector<std::string> args;  // "{dir}" is replaced by the fixture folder
    std::string expect;             // must appear in the stderr line
    std::string stdin_text = "";
    std::vector<std::string> env = {};  // "{dir}" replaced too
};

const char* kValidGpu =
    R"({"id":"x","vendor":"nvidia","name":"X","segment":"consumer","arch_family":"ada",)"
    R"("memory_bytes":25769803776,"memory_bandwidth_gbps":1000,"software":{"platform":"cuda"},"sources":["s"]})";

std::vector<Case> cases() {
    const std::string m = "--model";
    return {
        // --model
        {{m, "8Q"}, "'8Q'"},
        {{m, "-7B"}, "'-7B'"},
        {{m, "0"}, "'0'"},
        {{m, "1e30B"}, "'1e30B'"},
        {{m, ""}, "unknown model ''"},
        {{m, "nan"}, "'nan'"},
        {{m, "inf"}, "'inf'"},
        {{m, "1e308"}, "'1e308'"},
        {{m, "8BB"}, "'8BB'"},
        {{m, "llama-3.1-8x"}, "did you mean 'llama-3.1-8b'"},
        {{m, "ラマ"}, "unknown model"},
        {{m, std::string(5000, 'x')}, "unknown model"},
        {{m, "99999999999999999999999999B"}, "over 1e15"},
        {{}, "no model given"},
        // enums
        {{m, "8B", "--method", "qlorra"}, "did you mean 'qlora'"},
        {{m, "8B", "--method", ""}, "unknown --method ''"},
        {{m, "8B", "--precision", "bf17"}, "did you mean 'bf16'"},
        {{m, "8B", "--quant", "nf5"}, "did you mean 'nf4'"},
        {{m, "8B", "--quant", "q9_k"}, "--quant 'q9_k'"},
        {{m, "8B", "--quant", "exl2:9.5"}, "from 2 to 8"},
        {{m, "8B", "--method", "full", "--optimizer", "adamw8bit2"}, "--optimizer"},
        {{m, "8B", "--kv-dtype", "fp9"}, "--kv-dtype"},
        {{m, "8B", "--estimator", "docs"}, "did you mean 'doc'"},
        {{m, "8B", "--rank-by", "speeed"}, "did you mean 'speed'"},
        {{m, "8B", "--os", "macos"}, "--os 'macos'"},
        {{m, "8B", "--vendor", "nvida"}, "did you mean 'nvidia'"},
        {{m, "8B", "--vendor", ""}, "--vendor ''"},
        {{m, "8B", "--segment", "gaming"}, "--segment 'gaming'"},
        {{m, "8B", "--gpus", "2", "--parallel", "tpp"}, "did you mean 'tp'"},
        // speculative decoding (--draft)
        {{m, "8B", "--draft", "mtp"}, "--draft mtp"},
        {{m, "8B", "--draft", "ghost-1b"}, "--draft 'ghost-1b'"},
        {{m, "8B", "--draft", "1B", "--draft-acceptance", "most"}, "--draft-acceptance 'most'"},
        {{m, "8B", "--draft-acceptance", "0.5"}, "--draft-acceptance"},
        {{m, "8B", "--method", "full", "--draft", "1B"}, "--draft applies to --method inference"},
        // numbers
        {{m, "8B", "--batch", "0"}, "--batch '0'"},
        {{m, "8B", "--batch", "-1"}, "--batch '-1'"},
        {{m, "8B", "--batch", "1.5"}, "--batch '1.5'"},
        {{m, "8B", "--batch", "18446744073709551617"}, "--batch"},
        {{m, "8B", "--seq", "abc"}, "--seq 'abc'"},
        {{m, "8B", "--seq", ""}, "--seq ''"},
        {{m, "8B", "--seq", "1e9"}, "--seq '1e9'"},
        {{m, "8B", "--prompt", "0"}, "--prompt '0'"},
        {{m, "8B", "--gen", "NaN"}, "--gen 'NaN'"},
        {{m, "8B", "--gpus", "0"}, "--gpus '0'"},
        {{m, "8B", "--max-gpus", "-2"}, "--max-gpus '-2'"},
        {{m, "8B", "--max-gpus", "0"}, "--max-gpus '0'"},
        {{m, "8B", "--gpus", "8", "--max-gpus", "2"}, "--gpus 8 is more than --max-gpus 2"},
        {{m, "8B", "--budget", "-100"}, "--budget '-100'"},
        {{m, "8B", "--budget", "inf"}, "--budget 'inf'"},
        {{m, "8B", "--method", "lora", "--lora-rank", "0"}, "--lora-rank '0'"},
        {{m, "8B", "--top", "0"}, "--top"},
        // class 1: a workload that would wrap 64-bit arithmetic is refused, never "fits"
        {{"check", "--gpu", "mi300x", m, "8B", "--method", "full", "--batch", "1000000", "--seq",
          "100000000"},
         "tokens per step"},
        {{m, "8B", "--method", "full", "--batch", "1000000", "--seq", "100000000"},
         "tokens per step"},
        // job and cost, with documented bounds (class 8)
        {{m, "8B", "--kwh-price", "abc"}, "--kwh-price 'abc'"},
        {{m, "8B", "--kwh-price", "-0.1"}, "--kwh-price '-0.1'"},
        {{m, "8B", "--kwh-price", "100"}, "--kwh-price '100' is out of range"},
        {{m, "8B", "--tokens", "0"}, "--tokens '0'"},
        {{m, "8B", "--method", "lora", "--steps", "-5"}, "--steps '-5'"},
        {{m, "8B", "--method", "lora", "--epochs", "2"}, "--epochs needs --dataset-tokens"},
        {{m, "8B", "--method", "lora", "--tokens", "1B", "--steps", "10"},
         "give the job size once"},
        {{m, "8B", "--steps", "10"}, "--steps applies to training"},
        {{m, "8B", "--cloud-price-per-gpu-hour", "0"}, "--cloud-price-per-gpu-hour '0'"},
        {{m, "8B", "--amortize-years", "nan"}, "--amortize-years 'nan'"},
        {{m, "8B", "--amortize-years", "1e-300"}, "--amortize-years '1e-300' is out of range"},
        {{m, "8B", "--budget", "1e-300"}, "--budget '1e-300' is out of range"},
        {{m, "8B", "--engine", "vlm"}, "did you mean 'vllm'"},
        {{m, "8B", "--quant", "q4_k_m", "--engine", "tensorrt-llm"}, "does not load"},
        {{m, "8B", "--method", "lora", "--engine", "vllm"},
         "--engine applies to --method inference (training runs on PyTorch)"},
        // a field's own fix (the table's method_note and model_note), only
        // after the refusal it belongs to
        {{m, "8B", "--method", "lora", "--prompt", "100"},
         "--prompt applies to --method inference; use --seq for training"},
        {{m, "8B", "--steps", "20"},
         "--steps applies to training (optimizer steps) and to image generation (denoising "
         "steps); add --method full, lora or qlora"},
        {{m, "sdxl", "--engine", "vllm"},
         "--engine applies to language models; sdxl is an image generation model\n"},
        {{m, "8B", "--task", "serve-7b"}, "did you mean 'serve-70b'"},
        // conflicting or meaningless combinations (the task guard covers every field)
        {{"--task", "sdxl", "--engine", "vllm"},
         "--engine applies to language models; sdxl is an image generation model"},
        {{"--task", "sdxl", "--gen", "100"}, "--gen applies to language models"},
        {{"--task", "sdxl", "--kv-dtype", "fp8"}, "--kv-dtype applies to language models"},
        {{"estimate", "--task", "sdxl", "--chunked-loss"}, "--chunked-loss applies to language"},
        // image generation, vision and video
        {{m, "sdxl", "--resolution", "0x512"}, "--resolution"},
        {{m, "sdxl", "--resolution", "1001x1024"}, "multiples of 8 pixels"},
        {{m, "flux-dev", "--resolution", "1000"}, "multiples of 16 pixels"},
        {{m, "sdxl", "--resolution", "axb"}, "--resolution"},
        {{m, "sdxl", "--steps", "0"}, "--steps"},
        {{m, "sdxl", "--seq", "77"}, "use --resolution for the image size"},
        // --images and --image-size (a vision-language model's images)
        {{m, "llama-3.1-8b", "--images", "2"}, "--images 2: llama-3.1-8b has no vision encoder"},
        {{m, "8B", "--images", "1"}, "drop --images"},
        {{m, "qwen2.5-vl-7b", "--images", "0"}, "--images '0'"},
        {{m, "qwen2.5-vl-7b", "--images", "many"}, "--images 'many'"},
        {{m, "qwen2.5-vl-7b", "--images", "4"}, "add --image-size WxH"},
        {{m, "qwen2.5-vl-7b", "--images", "1", "--image-size", "1280x"}, "--image-size"},
        {{m, "qwen2.5-vl-7b", "--images", "1", "--image-size", "0x720"}, "--image-size '0'"},
        {{m, "qwen2.5-vl-7b", "--images", "1", "--image-size", "99999x720"}, "--image-size"},
        {{m, "qwen2.5-vl-7b", "--images", "1", "--image-size", "8000x20"},
         "--image-size 8000x20: Qwen2.5-VL refuses"},
        {{m, "gemma-3-4b", "--image-size", "896"}, "--image-size '896' sizes the images"},
        {{m, "sdxl", "--images", "1"}, "--images applies to language models"},
        {{m, "qwen2.5-vl-7b", "--images", "10000", "--image-size", "3000"}, "give fewer --images"},
        {{m, "sdxl", "--method", "lora"}, "not modelled yet"},
        {{m, "resnet50", "--method", "lora"}, "train resnet50 with --method full"},
        {{m, "resnet50", "--quant", "nf4"}, "image generation denoisers only"},
        {{m, "resnet50", "--method", "full", "--grad-ckpt"}, "not modelled for vision backbones"},
        {{m, "resnet50", "--cpu-offload", "model"}, "applies to image generation models"},
        {{m, "sdxl", "--cpu-offload", "all"}, "--cpu-offload"},
        {{m, "flux-dev", "--image-setup", "forge"}, "--image-setup 'forge'"},
        {{m, "resnet50", "--image-setup", "comfyui"}, "applies to image generation models"},
        {{m, "llama-3.1-8b", "--image-setup", "comfyui"}, "--image-setup"},
        {{m, "sdxl", "--channels-last"}, "applies to vision models"},
        {{m, "resnet50", "--channels-last", "--no-channels-last"}, "excludes"},
        {{"--task", "video", "--codec", "vp9"}, "--codec 'vp9'"},
        {{m, "resnet50", "--fps", "30"}, "add --streams N"},
        {{m, "8B", "--resolution", "512"}, "applies to image generation and vision models"},
        {{m, "8B", "--steps", "10"}, "denoising steps"},
        {{m, "sdxl", "--parallel", "tp", "--gpus", "2"}, "one replica per GPU"},
        {{"estimate", m, "sdxl", "--gpu", "rtx-4090", "--emit", "vllm"}, "drop --emit"},
        // calibrate
        {{"calibrate", m, "8B", "--gpu", "rtx-4090"}, "calibrate needs what your run measured"},
        {{"calibrate", m, "8B", "--measured-memory", "16GiB"}, "--gpu is required"},
        {{"calibrate", m, "8B", "--gpu", "rtx-4090", "--measured-speed", "35"},
         "--measured-speed '35': give a number and a unit"},
        {{"calibrate", m, "8B", "--gpu", "rtx-4090", "--measured-memory", "16"}, "has no unit"},
        {{"calibrate", m, "8B", "--gpu", "rtx-4090", "--measured-memory", "16GiB", "--metric",
          "peak"},
         "--metric 'peak'"},
        {{"calibrate", m, "8B", "--gpu", "rtx-4090", "--from-log", "{dir}/ok.json"},
         "no peak memory found"},
        {{"calibrate", m, "8B", "--gpu", "rtx-4090", "--from-log", "{dir}/ok.json",
          "--measured-memory", "1GiB"},
         "give only one"},
        {{m, "8B", "--calibration", "{dir}/malformed.json"}, "malformed.json line 1"},
        // values that were silently accepted (issue 23)
        {{"fit", "--gpu", "rtx-4090", "--family", ""}, "--family '': no preset's name holds it"},
        {{"fit", "--gpu", "rtx-4090", "--family", "zzz"}, "families: llama"},
        {{"fit", "--gpu", "rtx-4090", "--engine", "mlx"}, "does not run on cuda"},
        {{m, "8B", "--method", "lora", "--offload", "auto"},
         "--offload applies to --method inference"},
        {{"estimate", m, "8B", "--gpu", "rtx-4090", "--engine", "llama.cpp", "--offload", "auto",
          "--ram-bandwidth", "5GB"},
         "is a size, not a rate"},
        {{m, "8B", "--min-bandwidth", "1TB"}, "--min-bandwidth is not an option"},
        {{"gpus", "--min-bandwidth", "1TB"}, "is a size, not a rate"},
        {{m, "8B"}, "GPUADVISE_HAVE_HOST 'maybe'", "", {"GPUADVISE_HAVE_HOST=maybe"}},
        {{m, "8B"}, "have_host is a switch", "", {"GPUADVISE_CONFIG={dir}/settings-switch.json"}},
        {{"estimate", m, "8B", "--network", "bogus"}, "unknown --network 'bogus'"},
        {{"check", "--gpu", "rtx-4090", m, "8B", "--network", "bogus"}, "unknown --network"},
        {{m, "llama-3.1-70b", "--method", "full", "--gpus", "8", "--parallel", "ddp", "--tp", "8"},
         "--parallel ddp keeps the whole model on every GPU"},
        {{m, "llama-3.1-70b", "--method", "full", "--gpus", "64", "--pp", "4", "--vpp", "3"},
         "80 layers do not split into pp 4 x vpp 3 = 12 equal chunks"},
        {{"estimate", m, "llama-3.1-70b", "--method", "full", "--gpu", "h100-sxm5", "--gpus", "64",
          "--gpus-per-node", "64"},
         "holds 64 GPUs in one node"},
        {{"estimate", m, "llama-3.1-70b", "--method", "full", "--gpu", "mi300a", "--gpus", "16",
          "--gpus-per-node", "8"},
         "holds 8 x amd-mi300a in one node (at most 4)"},
        // a value flag given twice, and a task with another model (issue 23)
        {{m, "8B", m, "70B"}, "--model is given twice ('8B' and '70B')"},
        {{m, "8B", "--method", "lora", "--method", "full"}, "--method is given twice"},
        {{m, "8B", "--catalog", "{dir}/ok.json", "--catalog", "{dir}/dupe.json"},
         "--catalog is given twice"},
        {{"--task", "serve-70b", m, "8B"}, "--task serve-70b sets the model"},
        // calibrate: what a run measured must be a measurement of this run (issue 23)
        {{"calibrate", m, "8B", "--gpu", "rtx-4090", "--from-log", "{dir}/digits.log",
          "--calibration", "{dir}/cal-new.jsonl"},
         "is not a memory size"},
        {{"calibrate", m, "8B", "--gpu", "rtx-4090", "--from-log", "{dir}/tib.log", "--calibration",
          "{dir}/cal-new.jsonl"},
         "1.5 TiB on a card of 24.0 GiB"},
        {{"calibrate", m, "8B", "--gpu", "rtx-4090", "--from-log", "{dir}/zero.log",
          "--calibration", "{dir}/cal-new.jsonl"},
         "check the unit"},
        {{"calibrate", m, "8B", "--gpu", "rtx-4090", "--measured-memory", "300GiB", "--calibration",
          "{dir}/cal-new.jsonl"},
         "not a measurement of one card"},
        {{"calibrate", m, "8B", "--method", "lora", "--gpu", "rtx-4090", "--measured-speed",
          "0.5img/s", "--calibration", "{dir}/cal-new.jsonl"},
         "has no img/s; give s/step or tok/s"},
        {{"calibrate", m, "8B", "--gpu", "rtx-4090", "--measured-memory", "12GiB", "--calibration",
          "{dir}/cal-corrupt.jsonl"},
         "cal-corrupt.jsonl line 2"},
        {{"calibrate", m, "8B", "--gpu", "rtx-4090", "--measured-memory", "12GiB", "--calibration",
          "{dir}/cal-cut.jsonl"},
         "the last line has no newline"},
        {{"calibrate", m, "8B", "--gpu", "rtx-4090", "--measured-memory", "12GiB", "--calibration",
          "{dir}/cal-binary.jsonl"},
         "a NUL byte"},
        {{m, "8B", "--measured-memory", "16GiB"}, "--measured-memory is not an option"},
        {{m, "8B", "--method", "qlora", "--quant", "none"}, "needs a quantized base"},
        {{m, "8B", "--method", "full", "--lora-rank", "8"}, "--lora-rank"},
        {{m, "8B", "--method", "full", "--quant", "int4"}, "cannot be combined"},
        {{m, "8B", "--gpus", "3", "--parallel", "tp"}, "divide evenly"},
        {{m, "8B", "--optimizer", "adamw"}, "applies to training"},
        {{m, "8B", "--packing"}, "--packing applies to training"},
        {{m, "8B", "--method", "full", "--loss", "nope"}, "unknown --loss 'nope'"},
        {{m, "8B", "--method", "full", "--loss", "fuesd"}, "did you mean 'fused'"},
        {{m, "8B", "--method", "full", "--loss", "fused", "--chunked-loss"},
         "contradicts --loss 'fused'"},
        {{m, "8B", "--loss", "fused"}, "--loss applies to training"},
        {{m, "8B", "--method", "full", "--optimizer-impl", "foreech"}, "did you mean 'foreach'"},
        {{m, "8B", "--method", "full", "--optimizer-impl", "nope"}, "--optimizer-impl 'nope'"},
        {{m, "8B", "--method", "full", "--ckpt-mode", "selectve"}, "did you mean 'selective'"},
        {{m, "8B", "--method", "full", "--no-grad-ckpt", "--ckpt-mode", "full"},
         "--no-grad-ckpt contradicts --ckpt-mode 'full'"},
        {{m, "8B", "--ckpt-mode", "full"}, "--ckpt-mode applies to training"},
        {{m, "8B", "--method", "full", "--packing", "--no-packing"}, "excludes"},
        {{m, "8B", "--method", "full", "--grad-ckpt", "--no-grad-ckpt"}, "excludes"},
        {{m, "8B", "--seq", "100", "--prompt", "60", "--gen", "60"}, "give two of the three"},
        {{m, "8B", "--hf-config", "{dir}/ok.json"}, "give only one"},
        {{m, "8B", "--method", "lora", "--lora-targets", "q,x"}, "--lora-targets module 'x'"},
        {{m, "8B", "--double-quant"}, "--double-quant"},
        // unknown flags and commands, and flags of another command
        {{m, "8B", "--bogus"}, "unknown option '--bogus'"},
        {{m, "8B", "--modle", "8B"}, "did you mean '--model'"},
        {{m, "8B", "stray"}, "stray"},
        {{"estimate", m, "8B", "--top", "5"}, "--top is not an option of 'gpuadvise estimate'"},
        {{"check", m, "8B"}, "--gpu is required"},
        {{"check", "--gpu", "rtx4900", m, "8B"}, "did you mean 'nvidia-rtx-4090'"},
        {{"check", "--gpu", "a100", m, "8B"}, "ambiguous"},
        {{"check", "--gpu", "", m, "8B"}, "--gpu needs a name"},
        // local use: offload, host memory, card memory, mixed boxes, fit, fabrics
        {{"estimate", m, "llama-3.1-8b", "--engine", "llama.cpp", "--gpu", "rtx-4090", "--offload",
          "999"},
         "--offload 999: the model has 32 layers"},
        {{"estimate", m, "8B", "--gpu", "rtx-4090", "--offload", "lots"}, "--offload 'lots'"},
        {{"estimate", m, "8B", "--gpu", "rtx-4090", "--ram", "0"}, "--ram '0'"},
        {{"fit", "--gpu", "rtx-4090", "--vram", "24"}, "--vram '24' has no unit"},
        {{"fit", "--min-context", "4096"}, "fit needs --gpu"},
        {{"fit", "--gpu", "rtx-4090", "--min-context", "0"}, "--min-context '0'"},
        {{"fit", "--gpu", "rtx-4090", "--rank-by", "power"}, "fit ranks by quality"},
        {{"fit", "--gpu", "rtx-4090", "--min-speed", "0"}, "--min-speed '0'"},
        {{"fit", "--gpu", "rtx-4090", "--models-dir", "{dir}/ok.json"},
         "--models-dir '{dir}/ok.json' is not a folder"},
        {{"fit", "--gpu", "rtx-4090", "--models-dir", "{dir}"}, "holds no GGUF model"},
        {{"estimate", m, "qwen3-30b-a3b", "--engine", "llama.cpp", "--gpu", "rtx-4090",
          "--n-cpu-moe", "some"},
         "--n-cpu-moe 'some': give the number of MoE layers"},
        {{"estimate", m, "qwen3-30b-a3b", "--engine", "llama.cpp", "--gpu", "rtx-4090",
          "--n-cpu-moe", "500"},
         "--n-cpu-moe 500: the model has 48 layers"},
        {{"estimate", m, "8B", "--gpu", "rtx-4090", "--offload", "cpu-moe", "--cpu-moe"},
         "--offload and --cpu-moe both say what stays in host memory"},
        {{m, "8B", "--method", "lora", "--cpu-moe"}, "--cpu-moe applies to --method inference"},
        {{"check", "--gpu", "rtx-3090,,rtx-3060-12gb", m, "8B"}, "an empty name in the list"},
        {{"check", "--gpu", "rtx-3090,rtx-3060-12gb", "--gpus", "4", m, "8B"}, "names 2 cards"},
        {{"check", "--gpu", "rtx-3090,rtx-3060-12gb", "--vram", "12GB", m, "8B"},
         "--vram sets one card's memory"},
        {{m, "70B", "--method", "full", "--max-gpus", "64", "--network", "ib-ndrr"}, "ib-ndr"},
        {{m, "8B", "--emit", "vllm", "--method", "lora"}, "--emit vllm serves a model"},
        // 3D layouts (issue 16)
        {{m, "llama-3.1-70b", "--method", "full", "--tp", "3"},
         "--tp 3: tensor parallel 3 does not divide the 64 attention heads"},
        {{m, "llama-3.1-70b", "--method", "full", "--pp", "100"},
         "pipeline parallel 100 is more stages than the model's 80 layers"},
        {{m, "llama-3.1-70b", "--method", "full", "--ep", "2"}, "needs a mixture-of-experts"},
        {{m, "llama-3.1-70b", "--method", "full", "--cp", "3", "--seq", "8192"},
         "context parallel 3 splits each sequence into 6 chunks"},
        {{"estimate", m, "llama-3.1-70b", "--method", "full", "--gpu", "h100-sxm5", "--gpus", "24",
          "--tp", "8", "--pp", "2"},
         "tp 8 x cp 1 x pp 2 = 16 does not divide 24 GPUs"},
        {{m, "llama-3.1-70b", "--method", "full", "--tp", "8", "--parallel", "tp"},
         "splits the model too"},
        {{m, "llama-3.1-70b", "--method", "full", "--tp", "8", "--gpus", "1"},
         "splits the model, but --gpus is 1"},
        {{m, "llama-3.1-70b", "--method", "full", "--global-batch", "6", "--batch", "4"},
         "--global-batch 6 is not a multiple of the micro-batch --batch 4"},
        {{m, "llama-3.1-70b", "--method", "full", "--global-batch", "8", "--grad-accum", "2"},
         "both set the micro-batches per step"},
        {{m, "llama-3.1-70b", "--method", "full", "--gpus-per-node", "3", "--parallel", "tp",
          "--max-gpus", "64"},
         "tensor parallel over a node's 3 GPUs does not divide the 64 attention heads"},
        {{m, "llama-3.1-70b", "--method", "full", "--tp", "8", "--gpus-per-node", "4"},
         "--tp 8 is more than --gpus-per-node 4"},
        {{m, "llama-3.1-70b", "--method", "full", "--gpus-per-node", "0"}, "--gpus-per-node '0'"},
        {{m, "llama-3.1-70b", "--tp", "2"}, "--tp"},
        {{"estimate", m, "8B", "--max-gpus", "8"}, "--max-gpus searches how many cards"},
        {{"check", m, "8B", "--gpu", "rtx-3090,rtx-3060-12gb", "--max-gpus", "8"},
         "--gpu names 2 cards"},
        // --pue (issue 16)
        {{m, "8B", "--pue", "0.9"}, "--pue '0.9'"},
        {{m, "8B", "--pue", "nan"}, "--pue 'nan'"},
        {{m, "8B", "--pue", "4"}, "--pue '4'"},
        // --chinchilla (issue 16)
        {{m, "8B", "--method", "full", "--chinchilla", "--tokens", "1T"},
         "give the job size once: --tokens, --chinchilla"},
        {{m, "8B", "--chinchilla"}, "--chinchilla applies to training"},
        // FP8 training (issue 16)
        {{m, "8B", "--precision", "fp8"}, "for FP8 inference use --quant fp8"},
        {{m, "8B", "--method", "qlora", "--precision", "fp8"}, "--precision fp8 does not apply"},
        {{m, "sdxl", "--precision", "fp8"}, "--precision fp8 is FP8 training of language"},
        {{"estimate", m, "8B", "--method", "full", "--precision", "fp8", "--gpu", "a100-80gb-sxm"},
         "ampere has no FP8 tensor cores"},
        {{"check", m, "8B", "--method", "lora", "--precision", "fp8", "--gpu", "rx-9070-xt"},
         "no FP8 training library runs on rdna4"},
        {{"estimate", m, "8B", "--emit", "vllm"}, "add --gpu"},
        {{m, "8B", "--quant", "q9_k"}, "did you mean 'q6_k'"},
        {{"gpus", "show", "nope-9000"}, "unknown GPU 'nope-9000'"},
        {{"gpus", "--min-memory", "48QB"}, "'48QB'"},
        {{"gpus", "--min-memory", ""}, "--min-memory ''"},
        {{"gpus", "--min-bandwidth", "-1TB/s"}, "'-1TB/s'"},
        {{"gpus", "--supports", "fp7"}, "did you mean"},
        {{"gpus", "--sort", "speed"}, "--sort 'speed'"},
        // class 16: a value echoed in the message cannot fake a second line or grow it without
        // bound
        {{m, "8B\rgpuadvise: fits"}, "'8B\\rgpuadvise: fits'"},
        {{m, "8B", "--batch", std::string(100000, '9')}, "..."},
        {{m, "8B", "--os", "\x1b[31mred"}, "'\\x1b[31mred'"},
        // files
        {{m, "8B", "--catalog", "{dir}/missing.json"}, "missing.json': no such file"},
        {{m, "8B", "--catalog", "{dir}/empty.json"}, "empty"},
        {{m, "8B", "--catalog", "{dir}/malformed.json"}, "not valid JSON"},
        {{m, "8B", "--catalog", "{dir}/wrongtype.json"}, "/gpus/0/memory_bytes"},
        {{m, "8B", "--catalog", "{dir}/deep.json"}, "/gpus/0/tflops/bf16"},
        {{m, "8B", "--catalog", "{dir}/unknownkey.json"}, "/gpus/0/colour"},
        {{m, "8B", "--catalog", "{dir}/dupe.json"}, "appears twice"},
        {{m, "8B", "--catalog", "{dir}/dupekey.json"}, "'memory_bytes' appears twice"},
        {{m, "8B", "--catalog", "{dir}/nul.json"}, "NUL"},
        {{m, "8B", "--catalog", "{dir}/zero.json"}, "/gpus/0/tflops/bf16"},
        {{m, "8B", "--catalog", "{dir}"}, "is a folder"},
        {{m, "8B", "--catalog-merge", "{dir}/noid.json"}, "/gpus/0/id"},
        {{m, "8B", "--catalog-merge", "{dir}/newcard.json"},
         "no card of the base catalog has the id 'rtx-9090'"},
        {{"--hf-config", "{dir}/missing.json"}, "no such file"},
        {{"--hf-config", "{dir}/malformed.json"}, "not valid JSON"},
        {{"--hf-config", "{dir}/noshape.json"}, "missing the model shape"},
        {{"--hf-config", "{dir}/negative.json"}, "'hidden_size' must not be negative"},
        {{"--hf-config", "{dir}/huge.json"}, "implausibly large"},
        {{"--hf-config", "{dir}/strtype.json"}, "'num_hidden_layers' must be an integer"},
        {{"--hf-config", "{dir}/zerolayers.json"},
         "'num_hidden_layers' must be at least 1 (got 0)"},
        {{"--hf-config", "{dir}/tinyhidden.json"},
         "hidden_size 2 is smaller than num_attention_heads 4"},
        {{"--hf-config", "{dir}/dupekey.json"}, "appears twice"},
        {{"--hf-config", "{dir}/bad\xff.json"}, "not valid JSON"},
        {{"--hf-config", "-"}, "empty", ""},
        {{"--hf-config", "-"}, "not valid JSON", "{\"a\":"},
        // classes 5 and 7: devices and FIFOs are refused at once, never read or waited on
        {{"--hf-config", "/dev/zero"}, "is a character device"},
        {{"--hf-config", "{dir}/fifo"}, "is a FIFO"},
        {{m, "8B", "--catalog", "/dev/zero"}, "is a character device"},
        {{"batch", "/dev/zero"}, "is a character device"},
        {{"batch", "{dir}/fifo"}, "is a FIFO"},
        {{"batch"}, "line 1 is longer than", std::string(2 << 20U, 'x')},
        {{"--hf-config", "-", "--catalog", "-"},
         "already read it",
         R"({"num_hidden_layers":2,"hidden_size":64,"num_attention_heads":4,"vocab_size":100})"},
        // class 2: settings are validated like their flags and name where they came from
        {{m, "8B"}, "GPUADVISE_AMORTIZE_YEARS '-3'", "", {"GPUADVISE_AMORTIZE_YEARS=-3"}},
        {{m, "8B"}, "GPUADVISE_KWH_PRICE 'nan'", "", {"GPUADVISE_KWH_PRICE=nan"}},
        {{m, "8B"}, "GPUADVISE_TOP 'x'", "", {"GPUADVISE_TOP=x"}},
        {{m, "8B"}, "GPUADVISE_RANK_BY 'speeed'", "", {"GPUADVISE_RANK_BY=speeed"}},
        {{m, "8B"}, "GPUADVISE_OS '\\rlinux'", "", {"GPUADVISE_OS=\rlinux"}},
        {{m, "8B"},
         "config file '{dir}/settings-bad.json': kwh_price '-1'",
         "",
         {"GPUADVISE_CONFIG={dir}/settings-bad.json"}},
        {{m, "8B"}, "'tpo'", "", {"GPUADVISE_CONFIG={dir}/settings-typo.json"}},
        {{m, "8B"},
         "GPUADVISE_CONFIG '{dir}/nothing.json': no such file",
         "",
         {"GPUADVISE_CONFIG={dir}/nothing.json"}},
        {{m, "8B"}, "is a FIFO", "", {"GPUADVISE_CONFIG={dir}/fifo"}},
        {{"models"}, "is a FIFO", "", {"GPUADVISE_CONFIG={dir}/fifo", "GPUADVISE_FORMAT=json"}},
        {{m, "8B"}, "appears twice", "", {"GPUADVISE_CONFIG={dir}/settings-dupe.json"}},
        {{m, "8B"},
         "prices.nvidia-rtx-4090 must be a price",
         "",
         {"GPUADVISE_CONFIG={dir}/settings-price.json"}},
        {{m, "8B"}, "GPUADVISE_FORMAT 'xml'", "", {"GPUADVISE_FORMAT=xml"}},
    };
}

}  // namespace

TEST_CASE("bad input: exit 2, one line on stderr naming the value, nothing on stdout") {
    TempDir dir;
    dir.write(
        "ok.json",
        R"({"num_hidden_layers":2,"hidden_size":64,"num_attention_heads":4,"vocab_size":100})");
    dir.write("empty.json", "");
    dir.write("malformed.json", "{\"gpus\": [");
    dir.write(
        "wrongtype.json",
        R"({"gpus":[{"id":"x","vendor":"nvidia","name":"X","segment":"consumer","arch_family":"ada","memory_bytes":"24GB","memory_bandwidth_gbps":1000,"software":{"platform":"cuda"},"sources":["s"]}]})");
    dir.write(
        "deep.json",
        R"({"gpus":[{"id":"x","vendor":"nvidia","name":"X","segment":"consumer","arch_family":"ada","memory_bytes":1,"memory_bandwidth_gbps":1000,"tflops":{"bf16":"fast"},"software":{"platform":"cuda"},"sources":["s"]}]})");
    dir.write(
        "unknownkey.json",
        R"({"gpus":[{"id":"x","vendor":"nvidia","name":"X","segment":"consumer","arch_family":"ada","memory_bytes":1,"memory_bandwidth_gbps":1000,"colour":"green","software":{"platform":"cuda"},"sources":["s"]}]})");
    dir.write("dupe.json", std::string(R"({"gpus":[)") + kValidGpu + "," + kValidGpu + "]}");
    dir.write(
        "dupekey.json",
        R"({"gpus":[{"id":"x","memory_bytes":1,"memory_bytes":2}],"num_hidden_layers":2,"num_hidden_layers":3})");
    dir.write("nul.json",
              std::string(R"({"gpus":[)") + kValidGpu + "]}" + std::string(1, '\0') + "garbage");
    dir.write(
        "zero.json",
        R"({"gpus":[{"id":"x","vendor":"nvidia","name":"X","segment":"consumer","arch_family":"ada","memory_bytes":1,"memory_bandwidth_gbps":1000,"tflops":{"bf16":0},"software":{"platform":"cuda"},"sources":["s"]}]})");
    dir.write("noid.json", R"({"gpus":[{"name":"no id"}]})");
    dir.write("newcard.json",
              R"({"gpus":[{"id":"rtx-9090","price":{"usd":1,"kind":"msrp","source":"s"}}]})");
    dir.write("noshape.json", R"({"model_type":"llama"})");
    dir.write("negative.json",
              R"({"num_hidden_layers":2,"hidden_size":-64,"num_attention_heads":4})");
    dir.write(
        "huge.json",
        R"({"num_hidden_layers":2,"hidden_size":1000000000,"num_attention_heads":4,"vocab_size":10})");
    dir.write("strtype.json",
              R"({"num_hidden_layers":"32","hidden_size":64,"num_attention_heads":4})");
    dir.write(
        "zerolayers.json",
        R"({"num_hidden_layers":0,"hidden_size":64,"num_attention_heads":4,"vocab_size":10})");
    dir.write("tinyhidden.json",
              R"({"num_hidden_layers":2,"hidden_size":2,"num_attention_heads":4,"vocab_size":10})");
    dir.write("bad\xff.json", "{");
    dir.write("settings-bad.json", R"({"kwh_price": -1})");
    dir.write("settings-typo.json", R"({"tpo": 3})");
    dir.write("settings-dupe.json", R"({"top": 3, "top": 4})");
    dir.write("settings-price.json", R"({"prices": {"nvidia-rtx-4090": 1e-300}})");
    dir.write("settings-switch.json", R"({"have_host": "sometimes"})");
    dir.write("digits.log", "GPU peak memory allocation: " + std::string(300, '9') + " GiB\n");
    dir.write("tib.log", "GPU peak memory allocation: 1.5 TiB\n");
    dir.write("zero.log", "GPU peak memory allocation: 0 GiB\n");
    const std::string record =
        R"({"schema":1,"key":"k","model":"m","gpu":"g","metric":"allocated","measured_bytes":1e10,)"
        R"("estimated_bytes":1e10,"memory_factor":1,"speed_unit":null,"measured_speed":0,)"
        R"("estimated_speed":0,"speed_factor":1})";
    dir.write("cal-corrupt.jsonl", record + "\n{\"schema\":1,\n");
    dir.write("cal-cut.jsonl", record + "\n" + record.substr(0, 40));
    dir.write("cal-binary.jsonl", record + "\n" + std::string(8, '\0') + "\n");
    REQUIRE(mkfifo(dir.path("fifo").c_str(), 0600) == 0);
    const std::string root = dir.path("");
    const auto expand = [&](std::string a) {
        for (auto p = a.find("{dir}/"); p != std::string::npos; p = a.find("{dir}/"))
            a.replace(p, 6, root);
        if (a == "{dir}") a = root;
        return a;
    };
    std::size_t count = 0;
    for (auto c : cases()) {
        std::vector<std::string> args{GPUADVISE_BIN};
        for (const auto& a : c.args) args.push_back(expand(a));
        std::vector<std::string> env;
        for (const auto& e : c.env) env.push_back(expand(e));
        std::string shown;
        for (std::size_t i = 1; i < args.size(); ++i) shown += " " + args[i].substr(0, 40);
        for (const auto& e : env) shown += " [" + e.substr(0, 60) + "]";
        INFO("gpuadvise" << shown);
        const ProcessResult r = run_process(args, c.stdin_text, env);
        INFO("stderr: " << r.err.substr(0, 400));
        CHECK(r.exit_code == 2);
        CHECK(r.out.empty());
        CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
        CHECK(r.err.size() < 1200);
        CHECK_THAT(r.err, Catch::StartsWith("gpuadvise: ") && Catch::Contains(expand(c.expect)));
        CHECK_THAT(r.err, !Catch::Contains("runtime error") && !Catch::Contains("Sanitizer") &&
                              !Catch::Contains("internal error"));
        ++count;
    }
    CHECK(count >= 140);
}

TEST_CASE("an answer that cannot be written is a failure, never exit 0") {
    for (const Stdout mode : {Stdout::DevFull, Stdout::Closed}) {
        for (const std::vector<std::string>& cmd :
             std::vector<std::vector<std::string>>{{"--model", "8B", "--json"},
                                                   {"--model", "8B"},
                                                   {"estimate", "--model", "8B", "--json"},
                                                   {"check", "--gpu", "4090", "--model", "8B"},
                                                   {"gpus"},
                                                   {"--help"}}) {
            std::vector<std::string> args{GPUADVISE_BIN};
            args.insert(args.end(), cmd.begin(), cmd.end());
            INFO(cmd.front() << (mode == Stdout::DevFull ? " > /dev/full" : " >&-"));
            const ProcessResult r = run_process(args, "", {}, 20, mode);
            CHECK(r.exit_code == 3);
            if (cmd.front() != "--help")
                CHECK_THAT(r.err, Catch::Contains("cannot write the answer"));
            CHECK(std::count(r.err.begin(), r.err.end(), '\n') <= 1);
        }
        const ProcessResult b =
            run_process({GPUADVISE_BIN, "batch"}, "{\"model\":\"8B\"}\n", {}, 20, mode);
        CHECK(b.exit_code == 3);
    }
}

TEST_CASE(
    "a model folder may not reach outside itself, and never echoes bytes of a file it refused") {
    TempDir dir;
    dir.write("secret.txt", "SECRET-TOKEN-12345");
    std::filesystem::create_directory(dir.path("model"));
    dir.write(
        "model/config.json",
        R"({"num_hidden_layers":2,"hidden_size":64,"num_attention_heads":4,"vocab_size":100})");
    std::filesystem::create_symlink(dir.path("secret.txt"), dir.path("model/model.safetensors"));
    const ProcessResult r =
        run_process({GPUADVISE_BIN, "estimate", "--model-dir", dir.path("model")});
    CHECK(r.exit_code == 2);
    CHECK_THAT(r.err, Catch::Contains("outside the model folder"));
    CHECK_THAT(r.err, !Catch::Contains("SECRET") && !Catch::Contains("6065596929847543123"));
    // Named directly, the file is read and refused without echoing its first bytes.
    const ProcessResult direct =
        run_process({GPUADVISE_BIN, "estimate", "--safetensors", dir.path("secret.txt")});
    CHECK(direct.exit_code == 2);
    CHECK_THAT(direct.err, !Catch::Contains("SECRET") && !Catch::Contains("6065596929847543123"));
}
