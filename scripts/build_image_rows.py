#!/usr/bin/env python3
"""Writes bench/data/image_measured.csv: public measured speed and memory of
image generation and vision workloads, one row per measurement, normalised
for bench/accuracy. Inputs: the research tables (diffusers docs and HF blogs,
timm benchmark CSVs, NVIDIA DeepLearningExamples) with their sources, and the
ResNet-50 / Stable Diffusion rows of bench/data/throughput_visible.csv.
Usage (from the repository root):
  scripts/build_image_rows.py bench/data/sources/diffusion_measured.csv \
      bench/data/sources/vision_measured.csv bench/data/throughput_visible.csv \
      > bench/data/image_measured.csv"""
import csv, re, sys

out = csv.writer(sys.stdout, lineterminator="\n")
out.writerow(["id", "source", "model", "gpu", "phase", "width", "height", "batch", "steps",
              "precision", "quant", "cpu_offload", "vae_tiling", "num_gpus", "metric", "value",
              "unit", "notes"])
DIFF_MODELS = {"sd15", "sd21", "sdxl", "sd3-medium", "flux-dev", "pixart-sigma"}
QUANT = {"none": "", "nf4": "nf4", "int8-bnb": "int8", "gguf-q8_0": "q8_0", "gguf-q4_1": "q4_1",
         "gguf-q2_k": "q2_k"}
diff_path, vision_path, visible_path = sys.argv[1], sys.argv[2], sys.argv[3]
# Sources that name only the chip: the form factor of HF's and NVIDIA's
# benchmark machines is taken as SXM (stated in each row's notes).
GPU = {"nvidia-a100": "nvidia-a100-sxm4-40gb", "nvidia-a100-40gb": "nvidia-a100-sxm4-40gb",
       "nvidia-a100-80gb": "nvidia-a100-80gb-sxm", "nvidia-h100": "nvidia-h100-sxm5",
       "nvidia-h100-80gb": "nvidia-h100-sxm5", "nvidia-v100-16gb": "nvidia-v100-sxm2-16gb"}
def gpu(g, notes):
    return (GPU[g], "form factor assumed SXM; " + notes) if g in GPU else (g, notes)
for x in csv.DictReader(open(diff_path)):
    if x["model"] not in DIFF_MODELS: continue
    m = re.match(r"(\d+)x(\d+)", x["resolution"])
    s = re.match(r"(\d+)", x["steps"])
    if not m or not s: continue
    quant = x["quant"].split(" ")[0]
    if quant not in QUANT: continue  # quantised text encoders or weight-only kernels: not modelled
    if "compile" in x["attention"] or "TAESD" in x["vae_tiling"] or "T5 removed" in x["quant"]: continue
    dtype = "fp32" if x["dtype"].startswith("fp32") else ("bf16" if x["dtype"].startswith("bf16") else "fp16")
    off = x["offload"]
    offload = "model" if "model_cpu" in off else "sequential" if "sequential" in off else "none"
    if "device_map" in off: continue
    attention = "0" if x["attention"].startswith("eager") else "1"
    metric = x["metric"]
    if metric == "oom": continue
    g, x["notes"] = gpu(x["gpu"], x["notes"])
    out.writerow([x["id"], x["source"], x["model"], g, "infer", m.group(1), m.group(2),
                  x["batch"] or "1", s.group(1), dtype, QUANT[quant], offload,
                  "1" if x["vae_tiling"].startswith("slicing") else "0", "1", metric, x["value"],
                  x["unit"], f"flash_attn={attention}; " + x["notes"][:200]])
VIS = {"resnet50", "resnet101", "resnet152", "vit-b16", "vit-b16-384", "vit-l16", "vit-l16-384",
       "vit-h14", "convnext-base", "convnext-large", "efficientnet-b0"}
for x in csv.DictReader(open(vision_path)):
    if x["model"] not in VIS or x["metric"] != "images_per_s": continue
    if "dynamo" in x["source"] or "nhwc" in x["source"] or "compile" in x["notes"][:200].lower() and "compile)=0" not in x["notes"]: continue
    if not x["batch"]: continue  # DeepLearningExamples' training tables: per-GPU batch not stated
    size = x["image_size"] or "224"
    # "N GPU(s)" where the row says so ("1 GPU(s) (DGX A100 8x A100 80GB)"),
    # else an 8-GPU system named in the notes.
    counted = re.search(r"(\d+) GPU\(s\)", x["notes"])
    gpus = counted.group(1) if counted else (
        "8" if "8x" in x["notes"][:120] or "8 GPU" in x["notes"][:120] else "1")
    prec = "fp32" if x["precision"] in ("fp32", "tf32") else ("bf16" if "bf16" in x["precision"] else "fp16")
    g, x["notes"] = gpu(x["gpu"], x["notes"])
    # Channels-last where the notes say so (DeepLearningExamples' AMP
    # configurations): the replay passes --channels-last.
    layout = "layout=nhwc; " if "nhwc" in x["notes"] else ""
    out.writerow([x["id"], x["source"], x["model"], g, x["phase"], size, size, x["batch"],
                  "", prec, "", "none", "0", gpus, "images_per_s", x["value"], "images/s",
                  layout + x["notes"][:200]])
for x in csv.DictReader(open(visible_path)):
    name = {"ResNet-50": "resnet50", "Stable-Diffusion-1.5": "sd15"}.get(x["model"])
    if not name: continue
    g, x["notes"] = gpu(x["gpu"], x["notes"])
    x["gpu"] = g
    if name == "resnet50":
        prec = "fp32" if x["compute_dtype"] == "fp32" else "fp16"
        out.writerow([x["id"], x["source"], name, x["gpu"], "train", 224, 224, x["batch"], "", prec,
                      "", "none", "0", x["num_gpus"], "images_per_s", x["value"], "images/s",
                      x["notes"][:200]])
    # "no compile" rows are eager (the torch 2.0 page's odd rows); the
    # torch.compile rows are left out.
    elif x["metric"] == "seconds_per_step" and ("compile" not in x["notes"]
                                                or "no compile" in x["notes"]):
        attention = "0" if "standard attention" in x["notes"] else "1"
        out.writerow([x["id"], x["source"], name, x["gpu"], "infer", 512, 512, x["batch"], "50",
                      "fp16", "", "none", "0", "1", "seconds_per_step", x["value"], "s",
                      f"flash_attn={attention}; " + x["notes"][:200]])
