#!/usr/bin/env python3
"""Maintains data/gpus.json and the generated tables of docs/catalog.md.

data/gpus.json is the source of truth. This script first wrote it from
tests/data/gpu_specs.csv plus the hand-sourced ADDED entries (build(), kept for
reference: --from-csv OUT writes that first version to OUT); the JSON has been
edited directly since. The 2026-12 extension at the end of this file holds the
hand-sourced changes made since then (PATCHES to existing entries, EXTENSION
for new ones); running the script applies them to the JSON as it is.

Usage:  python3 scripts/csv_to_catalog.py          (applies, validates, writes data/gpus.json and the doc tables)
        python3 scripts/csv_to_catalog.py --check  (validates; fails when the JSON and this script disagree)
The build never runs it: src/tools/gen_data.cpp parses and validates the JSON itself.

Rules followed (see docs/catalog.md):
  * every number comes from gpu_specs.csv, Epoch AI's ML hardware data, a
    vendor document or a cited third-party database; derived numbers are
    listed in DERIVED and in notes;
  * tensor throughput is dense; FP16/BF16 with FP32 accumulate;
  * interconnect bandwidth is total bidirectional GB/s per GPU;
  * memory_bytes = nominal GB * 2**30;
  * every price has usd, kind, date (YYYY-MM) and source.
"""
import csv
import json
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CSV_PATH = os.path.join(ROOT, "tests", "data", "gpu_specs.csv")
OUT_PATH = os.path.join(ROOT, "data", "gpus.json")
DOC_PATH = os.path.join(ROOT, "docs", "catalog.md")
GIB = 2 ** 30

EPOCH = "Epoch AI, 'Data on Machine Learning Hardware' (CC BY), https://epoch.ai/data/machine-learning-hardware, 2026-01 snapshot"
ADA_WP = "NVIDIA Ada GPU Architecture whitepaper v2.1, Appendix A https://images.nvidia.com/aem-dam/Solutions/Data-Center/l4/nvidia-ada-gpu-architecture-whitepaper-v2.1.pdf"
GA102_WP = "NVIDIA Ampere GA102 GPU Architecture whitepaper v2 (Table 1 / Appendix A) https://www.nvidia.com/content/PDF/nvidia-ampere-ga-102-gpu-architecture-whitepaper-v2.pdf"
V100_DS = "NVIDIA V100 datasheet https://images.nvidia.com/content/technologies/volta/pdf/volta-v100-datasheet-update-us-1165301-r5.pdf"
CUDA_GPUS = "NVIDIA CUDA GPUs compute-capability list https://developer.nvidia.com/cuda-gpus"

# ----------------------------------------------------------------------------
# Per-architecture software defaults
# ----------------------------------------------------------------------------
CUDA_MIN = {
    "7.0": "CUDA 9.0+", "7.5": "CUDA 10.0+", "8.0": "CUDA 11.0+", "8.6": "CUDA 11.1+",
    "8.9": "CUDA 11.8+", "9.0": "CUDA 11.8+ (FP8 via CUDA 12)", "10.0": "CUDA 12.8+", "12.0": "CUDA 12.8+",
}


def cuda_sw(cc):
    return {"platform": "cuda", "compute_capability": cc, "gfx_target": None, "min_stack": CUDA_MIN[cc]}


def rocm_sw(gfx, min_stack=None):
    return {"platform": "rocm", "compute_capability": None, "gfx_target": gfx, "min_stack": min_stack}


def oneapi_sw(min_stack="oneAPI / PyTorch XPU backend (Intel GPU driver)"):
    return {"platform": "oneapi", "compute_capability": None, "gfx_target": None, "min_stack": min_stack}


HABANA_SW = {"platform": "habana", "compute_capability": None, "gfx_target": None,
             "min_stack": "Intel Gaudi software (SynapseAI) + PyTorch HPU bridge"}
METAL_SW = {"platform": "metal", "compute_capability": None, "gfx_target": None,
            "min_stack": "PyTorch MPS backend (macOS 12.3+)"}


def vid(av1, nvenc=None):
    return {"av1_encode": av1, "nvenc": nvenc}


def msrp(usd, date, source):
    return {"usd": usd, "kind": "msrp", "date": date, "source": source}


def street(usd, date, source):
    return {"usd": usd, "kind": "street-estimate", "date": date, "source": source}


def tf(fp32=None, tf32=None, fp16=None, bf16=None, fp8=None, int8=None):
    return {"fp32": fp32, "tf32": tf32, "fp16": fp16, "bf16": bf16, "fp8": fp8, "int8": int8}


def ic(type_, bw=None, n=1):
    return {"type": type_, "bandwidth_gbps": bw, "max_gpus": n}


def pcie(gen=None, lanes=None):
    return {"gen": gen, "lanes": lanes}


# ----------------------------------------------------------------------------
# Derived figures: id -> list of (field, how). Emitted into docs/catalog.md;
# every entry listed here also says DERIVED in its notes.
# ----------------------------------------------------------------------------
DERIVED = {}


def derived(id_, field, how):
    DERIVED.setdefault(id_, []).append((field, how))


# ----------------------------------------------------------------------------
# Overrides / additions for the 44 CSV rows (everything the CSV has no column
# for). Numbers are NOT changed here except where docs/catalog.md lists it under
# "Differences from the reference table".
# ----------------------------------------------------------------------------
NV_MSRP = "NVIDIA launch announcement (gpu_specs.csv launch_msrp_usd)"
AMD_MSRP = "AMD launch announcement (gpu_specs.csv launch_msrp_usd)"
INTEL_MSRP = "Intel launch announcement (gpu_specs.csv launch_msrp_usd)"

CSV_EXTRA = {
    "nvidia-v100-sxm2-32gb": dict(
        aliases=["v100-sxm2-32gb", "v100 sxm2 32gb", "tesla v100 sxm2 32gb", "nvidia-v100-sxm2-32gb"],
        arch_family="volta", ecc=True, sw=cuda_sw("7.0"), video=vid(False), n=8,
        price=street(11458, "2018-03", "Epoch AI 'Release price' column (source: Microway V100 price analysis)"),
        note="max_gpus 8 = DGX-1/HGX-1 hybrid cube-mesh (not a full NVSwitch fabric). NVENC count not recorded (null)."),
    "nvidia-t4": dict(
        aliases=["t4", "tesla t4", "nvidia t4"], arch_family="turing", ecc=True,
        sw=cuda_sw("7.5"), video=vid(False, 1)),
    "nvidia-a10": dict(
        aliases=["a10", "nvidia a10", "a10-pcie", "a10 pcie"], arch_family="ampere",
        sw=cuda_sw("8.6"), video=vid(False, 1),
        price=street(2800, "2021-04", "Epoch AI 'Release price' column (source: The Next Platform, 2021-04-15)")),
    "nvidia-a100-40gb-pcie": dict(
        aliases=["a100-pcie-40gb", "a100 pcie 40gb", "a100 40gb pcie", "nvidia-a100-pcie-40gb"],
        arch_family="ampere", ecc=True, sw=cuda_sw("8.0"), video=vid(False, 0), n=2,
        note="Epoch's 'A100 PCIe' row (1940 GB/s, 300 W) mixes in 80GB PCIe values; this entry follows the 40GB PCIe product brief. No NVENC (GA100)."),
    "nvidia-a100-80gb-pcie": dict(
        aliases=["a100-pcie-80gb", "a100 pcie 80gb", "a100 80gb pcie", "nvidia-a100-pcie-80gb"],
        arch_family="ampere", ecc=True, sw=cuda_sw("8.0"), video=vid(False, 0), n=2,
        note="No NVENC (GA100)."),
    "nvidia-a100-80gb-sxm": dict(
        aliases=["a100-sxm4-80gb", "a100 sxm4 80gb", "a100 80gb sxm", "a100-80gb-sxm4", "nvidia-a100-sxm4-80gb"],
        arch_family="ampere", ecc=True, sw=cuda_sw("8.0"), video=vid(False, 0), n=8,
        note="max_gpus 8 = HGX A100 NVSwitch baseboard. No NVENC (GA100)."),
    "nvidia-h100-pcie": dict(
        aliases=["h100-pcie", "h100 pcie", "h100 pcie 80gb", "nvidia-h100-pcie-80gb"],
        arch_family="hopper", ecc=True, sw=cuda_sw("9.0"), video=vid(False, 0), n=2,
        note="NVLink bridge pairs 2 cards. No NVENC (GH100)."),
    "nvidia-h100-sxm5": dict(
        aliases=["h100-sxm", "h100 sxm", "h100-sxm5", "h100 sxm5", "h100 sxm5 80gb", "nvidia-h100-sxm5-80gb"],
        arch_family="hopper", ecc=True, sw=cuda_sw("9.0"), video=vid(False, 0), n=8,
        price=street(33600, "2023-05", "Epoch AI 'Release price' column (DGX H100 8-GPU server price / 8, SemiAnalysis 2023-05; not a list price)"),
        note="max_gpus 8 = HGX H100 NVSwitch baseboard (larger NVLink Switch domains exist but are not standard). No NVENC (GH100)."),
    "nvidia-h100-nvl": dict(
        aliases=["h100-nvl", "h100 nvl", "h100 nvl 94gb", "nvidia-h100-nvl-94gb"],
        arch_family="hopper", ecc=True, sw=cuda_sw("9.0"), video=vid(False, 0), n=2,
        note="memory_bytes = nominal 94 GB x 2^30 (vendor figure is not a whole power-of-two GiB amount; physically usable capacity is what NVIDIA quotes as 94 GB). Sold as bridged pairs. No NVENC."),
    "nvidia-h200-sxm": dict(
        aliases=["h200-sxm", "h200 sxm", "h200 sxm 141gb", "nvidia-h200-sxm-141gb"],
        arch_family="hopper", ecc=True, sw=cuda_sw("9.0"), video=vid(False, 0), n=8,
        note="memory_bytes = nominal 141 GB x 2^30 (141 GB is NVIDIA's usable figure, not a whole power-of-two GiB stack size). max_gpus 8 = HGX H200. No NVENC."),
    "nvidia-h200-nvl": dict(
        aliases=["h200-nvl", "h200 nvl", "h200 nvl 141gb", "nvidia-h200-nvl-141gb"],
        arch_family="hopper", ecc=True, sw=cuda_sw("9.0"), video=vid(False, 0), n=4,
        note="memory_bytes = nominal 141 GB x 2^30. max_gpus 4 = 4-way NVLink bridge. No NVENC."),
    "nvidia-l4": dict(
        aliases=["l4", "nvidia l4"], arch_family="ada", sw=cuda_sw("8.9"), video=vid(True, 2)),
    "nvidia-l40s": dict(
        aliases=["l40s", "nvidia l40s", "l40-s"], arch_family="ada", ecc=True, sw=cuda_sw("8.9"), video=vid(True, 3)),
    "nvidia-b200": dict(
        aliases=["b200", "nvidia b200", "hgx b200", "b200-sxm", "b200 sxm"],
        arch_family="blackwell", ecc=True, sw=cuda_sw("10.0"), video=vid(False, 0), n=8,
        note="memory_bytes = nominal 180 GB x 2^30 (usable figure on HGX/DGX B200; physical HBM is 192 GB). No NVENC engines (Blackwell datacenter GPUs list NVDEC/NVJPG decoders only)."),
    "nvidia-gb200-gpu": dict(
        aliases=["gb200", "nvidia gb200", "gb200 gpu", "gb200-nvl72"],
        arch_family="blackwell", ecc=True, sw=cuda_sw("10.0"), video=vid(False, 0), n=72, unified=True,
        note="memory_bytes = nominal 186 GB x 2^30 per GPU. unified_memory: the GPU shares a coherent address space with the Grace CPU's LPDDR5X over NVLink-C2C (900 GB/s per superchip); memory_bytes counts HBM only. max_gpus 72 = GB200 NVL72 rack. Host PCIe: none (NVLink-C2C to Grace) -> null."),
    "nvidia-rtx-a6000": dict(
        aliases=["a6000", "rtx a6000", "rtxa6000", "nvidia rtx a6000"], arch_family="ampere", ecc=True,
        sw=cuda_sw("8.6"), video=vid(False, 1), n=2, price_date="2020-10"),
    "nvidia-rtx-6000-ada": dict(
        aliases=["rtx 6000 ada", "rtx6000 ada", "rtx 6000 ada generation", "6000 ada"], arch_family="ada", ecc=True,
        sw=cuda_sw("8.9"), video=vid(True, 3), price_date="2022-12"),
    "nvidia-rtx-pro-6000-blackwell": dict(
        aliases=["rtx pro 6000", "rtx pro 6000 blackwell", "rtx-pro-6000", "pro 6000 blackwell"], arch_family="blackwell",
        ecc=True, sw=cuda_sw("12.0"), video=vid(True, 4)),
    "nvidia-rtx-3060-12gb": dict(
        aliases=["3060", "rtx 3060", "rtx3060", "rtx 3060 12gb", "geforce rtx 3060", "nvidia-rtx-3060"], arch_family="ampere",
        sw=cuda_sw("8.6"), video=vid(False, 1), price_date="2021-02"),
    "nvidia-rtx-3090": dict(
        aliases=["3090", "rtx 3090", "rtx3090", "geforce rtx 3090"], arch_family="ampere",
        sw=cuda_sw("8.6"), video=vid(False, 1), n=2, price_date="2020-09"),
    "nvidia-rtx-4060ti-16gb": dict(
        aliases=["4060 ti 16gb", "rtx 4060 ti 16gb", "4060ti-16gb", "rtx4060ti 16gb", "nvidia-rtx-4060-ti-16gb"], arch_family="ada",
        sw=cuda_sw("8.9"), video=vid(True, 1), price_date="2023-07"),
    "nvidia-rtx-4070ti": dict(
        aliases=["4070 ti", "rtx 4070 ti", "rtx4070ti", "geforce rtx 4070 ti", "nvidia-rtx-4070-ti"], arch_family="ada",
        sw=cuda_sw("8.9"), video=vid(True, 2), price_date="2023-01"),
    "nvidia-rtx-4080-super": dict(
        aliases=["4080 super", "rtx 4080 super", "rtx4080super", "geforce rtx 4080 super"], arch_family="ada",
        sw=cuda_sw("8.9"), video=vid(True, 2), price_date="2024-01"),
    "nvidia-rtx-4090": dict(
        aliases=["4090", "rtx 4090", "rtx4090", "geforce rtx 4090"], arch_family="ada",
        sw=cuda_sw("8.9"), video=vid(True, 2), price_date="2022-10"),
    "nvidia-rtx-5080": dict(
        aliases=["5080", "rtx 5080", "rtx5080", "geforce rtx 5080"], arch_family="blackwell",
        sw=cuda_sw("12.0"), video=vid(True, 2), price_date="2025-01"),
    "nvidia-rtx-5090": dict(
        aliases=["5090", "rtx 5090", "rtx5090", "geforce rtx 5090"], arch_family="blackwell",
        sw=cuda_sw("12.0"), video=vid(True, 3), price_date="2025-01"),
    "amd-mi210": dict(
        aliases=["mi210", "instinct mi210", "amd mi210"], arch_family="cdna2", ecc=True,
        sw=rocm_sw("gfx90a"), video=vid(None), n=4,
        note="max_gpus 4: the Infinity Fabric Link bridge joins up to four MI210 cards (hive of four)."),
    "amd-mi250x": dict(
        aliases=["mi250x", "instinct mi250x", "amd mi250x"], arch_family="cdna2", ecc=True,
        sw=rocm_sw("gfx90a", "ROCm 4.5+"), video=vid(None), n=4,
        price=street(14500, "2021-12", "Epoch AI 'Release price' column (source: The Next Platform, 2021-12-06)"),
        note="max_gpus 4 = typical 4-OAM node (e.g. HPE Cray EX235a, Frontier), i.e. 8 GCDs visible to software; see amd-mi250x-1gcd for one GCD."),
    "amd-mi300x": dict(
        aliases=["mi300x", "instinct mi300x", "amd mi300x", "mi300x 192gb"], arch_family="cdna3", ecc=True,
        sw=rocm_sw("gfx942", "ROCm 6.0+"), video=vid(None), n=8,
        price=street(15000, "2023-12", "Epoch AI 'Release price' column (source: Tom's Hardware report of $10-15k per MI300X; not a list price)")),
    "amd-mi325x": dict(
        aliases=["mi325x", "instinct mi325x", "amd mi325x"], arch_family="cdna3", ecc=True,
        sw=rocm_sw("gfx942"), video=vid(None), n=8),
    "amd-mi355x": dict(
        aliases=["mi355x", "instinct mi355x", "amd mi355x"], arch_family="cdna4", ecc=True,
        sw=rocm_sw("gfx950", "ROCm 7.0+"), video=vid(None), n=8,
        note="tf32 null: CSV marks CDNA4 TF32 support 'verify' (not confirmed)."),
    "amd-radeon-pro-w7900": dict(
        aliases=["w7900", "radeon pro w7900", "pro w7900"], arch_family="rdna3", ecc=True,
        sw=rocm_sw("gfx1100", "ROCm 5.7+"), video=vid(True), price_date="2023-04"),
    "amd-rx-7900-xtx": dict(
        aliases=["7900 xtx", "rx 7900 xtx", "rx7900xtx", "radeon rx 7900 xtx"], arch_family="rdna3",
        sw=rocm_sw("gfx1100", "ROCm 5.7+"), video=vid(True), price_date="2022-12"),
    "amd-rx-9070-xt": dict(
        aliases=["9070 xt", "rx 9070 xt", "rx9070xt", "radeon rx 9070 xt"], arch_family="rdna4",
        sw=rocm_sw("gfx1201", "ROCm 6.4.1+"), video=vid(True), price_date="2025-03"),
    "intel-gaudi2": dict(
        aliases=["gaudi2", "gaudi 2", "intel gaudi 2", "hl-225h"], arch_family="gaudi2",
        sw=HABANA_SW, video=vid(None), n=8, ic_bw=600,
        note="interconnect.bandwidth_gbps = 600 total bidirectional (24 x 100 GbE = 300 GB/s per direction, the CSV's per-direction figure). max_gpus 8 per HLS-Gaudi2 server (21 of 24 ports are used inside the server, 3 for scale-out)."),
    "intel-gaudi3": dict(
        aliases=["gaudi3", "gaudi 3", "intel gaudi 3", "hl-325l"], arch_family="gaudi3",
        sw=HABANA_SW, video=vid(None), n=8, ic_bw=1200,
        note="interconnect.bandwidth_gbps = 1200 total bidirectional (24 x 200 GbE = 600 GB/s per direction, the CSV's per-direction figure). max_gpus 8 per server."),
    "intel-max-1550": dict(
        aliases=["max 1550", "max1550", "gpu max 1550", "data center gpu max 1550", "ponte vecchio 1550"], arch_family="xe-hpc", ecc=True,
        sw=oneapi_sw("oneAPI / PyTorch XPU backend (Max Series)"), video=vid(None), n=8,
        note="Xe Link bandwidth not recorded in the reference table (null). max_gpus 8: Intel states the Max Series OAM platform scales to 8 GPUs over Xe Link."),
    "intel-max-1100": dict(
        aliases=["max 1100", "max1100", "gpu max 1100", "data center gpu max 1100"], arch_family="xe-hpc", ecc=True,
        sw=oneapi_sw("oneAPI / PyTorch XPU backend (Max Series)"), video=vid(None), n=4,
        note="Xe Link bridge bandwidth not recorded (null); bridges join 2 or 4 cards."),
    "intel-flex-170": dict(
        aliases=["flex 170", "flex170", "gpu flex 170", "data center gpu flex 170"], arch_family="xe-hpg",
        sw=oneapi_sw("Intel Extension for PyTorch (xpu) 1.10.200+gpu or later"), video=vid(True)),
    "intel-arc-a770-16gb": dict(
        aliases=["a770 16gb", "arc a770 16gb", "a770-16gb", "arc-a770-16gb"], arch_family="xe-hpg",
        sw=oneapi_sw(), video=vid(True), price_date="2022-10"),
    "intel-arc-b580": dict(
        aliases=["b580", "arc b580", "arcb580"], arch_family="xe2",
        sw=oneapi_sw(), video=vid(True), price_date="2024-12",
        note="tf32 null: CSV marks XMX TF32 on Xe2 'verify'."),
    "intel-arc-pro-b60": dict(
        aliases=["pro b60", "arc pro b60", "b60", "arc pro b60 24gb"], arch_family="xe2",
        sw=oneapi_sw(), video=vid(True),
        note="tf32 null: CSV marks XMX TF32 on Xe2 'verify'."),
    "apple-m3-ultra-80c": dict(
        aliases=["m3 ultra 512gb", "m3-ultra-80c-512gb", "apple m3 ultra 512gb"], arch_family="apple-m3",
        sw=METAL_SW, video=vid(False), segment="workstation"),
    "apple-m4-max-40c": dict(
        aliases=["m4 max 128gb", "m4-max-40c-128gb", "apple m4 max 128gb"], arch_family="apple-m4",
        sw=METAL_SW, video=vid(False), segment="workstation"),
}

# Derived figures already present in the reference table (its notes say so).
for _id, _fields, _how in [
    ("nvidia-rtx-3060-12gb", "tflops.tf32/fp16/bf16/int8", "28 SMs x 1.777 GHz boost x GA10x GeForce per-SM rates (256 TF32 / 512 FP16-FP32acc / 2048 INT8 FLOP per clock) - gpu_specs.csv"),
    ("nvidia-rtx-4060ti-16gb", "tflops.tf32/fp16/bf16/fp8/int8", "34 SMs x 2.535 GHz x Ada GeForce per-SM rates (512 FP16-FP32acc, 1024 FP8-FP32acc, 2048 INT8); reproduces NVIDIA's 353 AI TOPS - gpu_specs.csv"),
    ("nvidia-rtx-4070ti", "tflops.tf32/fp16/bf16/fp8/int8", "60 SMs x 2.61 GHz x Ada GeForce per-SM rates; reproduces 641 AI TOPS - gpu_specs.csv"),
    ("nvidia-rtx-4080-super", "tflops.tf32/fp16/bf16/fp8/int8", "80 SMs x 2.55 GHz x Ada GeForce per-SM rates; reproduces 836 AI TOPS - gpu_specs.csv"),
    ("nvidia-rtx-5080", "tflops.tf32/fp16/bf16/fp8/int8", "84 SMs x 2.617 GHz x Blackwell GeForce per-SM rates; reproduces 1801 AI TOPS (FP4 sparse) - gpu_specs.csv"),
    ("nvidia-rtx-5090", "tflops.fp16/bf16/fp8/int8", "from 3352 AI TOPS (FP4 sparse) / 170 SMs, GeForce half-rate FP32 accumulate - gpu_specs.csv (medium)"),
    ("nvidia-rtx-pro-6000-blackwell", "tflops.tf32/fp16/bf16/fp8/int8", "from '4000 AI TOPS' (FP4 sparse) assuming pro full-rate FP32 accumulate - gpu_specs.csv (low)"),
    ("nvidia-b200", "tflops.*, memory", "HGX B200 8-GPU totals / 8 - gpu_specs.csv"),
    ("nvidia-gb200-gpu", "tflops.*, memory", "GB200 NVL72 per-superchip sparse figures / 2 GPUs / 2 (dense); memory 13.4-13.5 TB / 72 - gpu_specs.csv"),
    ("amd-rx-9070-xt", "tflops.fp16/bf16/fp8/int8", "from AMD '1557 AI TOPS' (INT4 sparse) -> INT8 dense ~389, FP16 ~195 - gpu_specs.csv (low)"),
    ("intel-max-1550", "tflops.tf32/fp16/bf16/int8", "128 Xe-cores x 1.6 GHz x Xe-HPC per-core rates (2048 TF32 / 4096 FP16 / 8192 INT8 ops per clock) - gpu_specs.csv"),
    ("intel-max-1100", "tflops.tf32/fp16/bf16/int8", "56 Xe-cores x 1.55 GHz x Xe-HPC per-core rates - gpu_specs.csv"),
    ("intel-flex-170", "tflops.fp16/bf16/int8", "512 XMX x 2.05 GHz x (128 FP16 / 256 INT8 ops per clock) - gpu_specs.csv"),
    ("intel-arc-a770-16gb", "tflops.fp16/bf16/int8", "512 XMX x 2.1 GHz x (128 FP16 / 256 INT8 ops per clock) - gpu_specs.csv"),
    ("intel-arc-b580", "tflops.fp16/bf16", "Intel's 233 INT8 TOPS / 2 - gpu_specs.csv"),
    ("intel-arc-pro-b60", "tflops.fp16/bf16", "Intel's 197 INT8 TOPS / 2 - gpu_specs.csv"),
]:
    derived(_id, _fields, _how)
derived("intel-gaudi2", "interconnect.bandwidth_gbps", "24 ports x 100 Gb/s x 2 directions / 8 = 600 GB/s (reference table lists 300 per direction)")
derived("intel-gaudi3", "interconnect.bandwidth_gbps", "24 ports x 200 Gb/s x 2 directions / 8 = 1200 GB/s (reference table lists 600 per direction)")

ARCH_FAMILY_DEFAULT = {}


def num(s):
    s = s.strip()
    if s == "":
        return None
    v = float(s)
    return int(v) if v.is_integer() and "." not in s else v


def link_type(s):
    s = s.lower()
    if s.startswith("none") or s == "":
        return "none"
    if "nvlink" in s:
        return "nvlink"
    if "infinity fabric" in s:
        return "infinity-fabric"
    if "xe link" in s:
        return "xe-link"
    if "gbe" in s or "roce" in s:
        return "ethernet"
    raise ValueError(s)


def clean_mem_type(s):
    t = s.replace(" ECC", "").replace(" unified", "").strip()
    return t


def convert_csv():
    out = []
    with open(CSV_PATH, newline="") as f:
        for r in csv.DictReader(f):
            x = CSV_EXTRA[r["id"]]
            vendor = r["vendor"].lower()
            seg = x.get("segment", r["segment"])
            ltype = link_type(r["multi_gpu_link"])
            ic_bw = x.get("ic_bw", num(r["multi_gpu_link_gbs"]))
            n = x.get("n", 1)
            if ltype == "none":
                n = 1
            price = x.get("price")
            if r["launch_msrp_usd"]:
                src = {"nvidia": NV_MSRP, "amd": AMD_MSRP, "intel": INTEL_MSRP}[vendor]
                price = msrp(num(r["launch_msrp_usd"]), x["price_date"], src)
            sources = [s.strip() for s in r["source"].split(" ; ")]
            if vendor == "nvidia":
                sources.append(CUDA_GPUS)
            if price and "Epoch" in price["source"]:
                sources.append(EPOCH)
            notes = r["notes"].strip()
            extra = x.get("note")
            if extra:
                notes = (notes + " " if notes else "") + extra
            if r["id"] in DERIVED and "DERIVED" not in notes:
                notes = "DERIVED figures (see docs/catalog.md). " + notes
            if vendor == "apple":
                notes += " price null: no sourced GPU price (Apple sells systems)."
            if r["memory_type"].endswith("ECC") and "ecc" not in x:
                raise ValueError(r["id"])
            e = {
                "id": r["id"],
                "vendor": vendor,
                "name": r["model"],
                "aliases": x["aliases"],
                "segment": seg,
                "architecture": r["architecture"],
                "arch_family": x["arch_family"],
                "launch_year": int(r["launch_year"]),
                "memory_bytes": int(num(r["memory_gb"]) * GIB),
                "memory_type": clean_mem_type(r["memory_type"]),
                "memory_bandwidth_gbps": num(r["memory_bw_gbs"]),
                "unified_memory": bool(x.get("unified", vendor == "apple")),
                "ecc": x.get("ecc", None),
                "tflops": tf(num(r["fp32_vector_tflops"]), num(r["tf32_tensor_dense_tflops"]),
                             num(r["fp16_tensor_dense_tflops"]), num(r["bf16_tensor_dense_tflops"]),
                             num(r["fp8_tensor_dense_tflops"]), num(r["int8_tensor_dense_tops"])),
                "sparsity_multiplier": num(r["sparsity_multiplier"]) or 1,
                "tdp_watts": num(r["tdp_w"]),
                "pcie": pcie(num(r["pcie_gen"]), num(r["pcie_lanes"])),
                "interconnect": ic(ltype, ic_bw if ltype != "none" else None, n),
                "form_factor": r["form_factor"],
                "software": x["sw"],
                "video": x["video"],
                "price": price,
                "sources": sources,
                "confidence": r["confidence"],
                "notes": notes,
            }
            out.append(e)
    return out


# ----------------------------------------------------------------------------
# Added cards (not in gpu_specs.csv).  Each figure is from the named sources;
# DERIVED ones are listed with derived().
# ----------------------------------------------------------------------------
ADDED = []


def add(**k):
    e = {
        "id": k["id"], "vendor": k["vendor"], "name": k["name"], "aliases": k["aliases"],
        "segment": k["segment"], "architecture": k["architecture"], "arch_family": k["arch_family"],
        "launch_year": k["year"], "memory_bytes": int(k["mem_gb"] * GIB), "memory_type": k["mem_type"],
        "memory_bandwidth_gbps": k["bw"], "unified_memory": k.get("unified", False), "ecc": k.get("ecc"),
        "tflops": k["tflops"], "sparsity_multiplier": k.get("sparsity", 1), "tdp_watts": k.get("tdp"),
        "pcie": k.get("pcie", pcie()), "interconnect": k.get("ic", ic("none")), "form_factor": k["form"],
        "software": k["sw"], "video": k["video"], "price": k.get("price"), "sources": k["sources"],
        "confidence": k["confidence"], "notes": k.get("notes", ""),
    }
    ADDED.append(e)


# ---------------------------- NVIDIA GeForce --------------------------------
def geforce_ampere(sms, ghz):
    """GA10x GeForce per-SM dense rates (GA102 whitepaper): TF32 256, FP16/BF16
    with FP32 accumulate 512, FP16 with FP16 accumulate 1024, INT8 2048 per clock."""
    c = sms * ghz / 1000.0
    return dict(tf32=round(c * 256, 1), fp16=round(c * 512, 1), fp16acc16=round(c * 1024, 1), int8=round(c * 2048, 1))


def geforce_ada(sms, ghz):
    """Ada/Blackwell GeForce per-SM dense rates as in gpu_specs.csv: TF32 256,
    FP16/BF16 FP32-acc 512, FP8 FP32-acc 1024, INT8 2048; AI TOPS = 4096 (Ada,
    FP8/INT8 sparse) or 8192 (Blackwell, FP4 sparse)."""
    c = sms * ghz / 1000.0
    return dict(tf32=round(c * 256, 1), fp16=round(c * 512, 1), fp8=round(c * 1024, 1),
                int8=round(c * 2048, 1), ada_tops=round(c * 4096), bw_tops=round(c * 8192))


GF = "PCIe desktop card"

g = geforce_ampere(84, 1.86)
add(id="nvidia-rtx-3090-ti", vendor="nvidia", name="GeForce RTX 3090 Ti", aliases=["3090 ti", "rtx 3090 ti", "rtx3090ti", "geforce rtx 3090 ti"],
    segment="consumer", architecture="Ampere (GA102)", arch_family="ampere", year=2022, mem_gb=24, mem_type="GDDR6X", bw=1008,
    tflops=tf(40.0, 40.0, g["fp16"], g["fp16"], None, 320), sparsity=2, tdp=450, pcie=pcie(4, 16), ic=ic("nvlink", 112.5, 2),
    form=GF, sw=cuda_sw("8.6"), video=vid(False, 1),
    price=msrp(1999, "2022-03", "NVIDIA launch announcement (also Epoch AI 'Release price')"),
    sources=[EPOCH + " (row 'NVIDIA GeForce RTX 3090 Ti': FP32 40, TF32 40, Tensor-FP16 160, INT8 320, 1008 GB/s, 450 W)", "NVIDIA GeForce RTX 3090 Ti spec page https://www.nvidia.com/en-us/geforce/graphics-cards/30-series/rtx-3090-3090ti/", GA102_WP, CUDA_GPUS],
    confidence="medium",
    notes=f"DERIVED fp16/bf16: 84 SMs x 1.86 GHz x 512 (GA10x GeForce FP16 with FP32 accumulate) = {g['fp16']}. FP16 with FP16 accumulate = 160 (Epoch 'Tensor-FP16/BF16' column, = 84 x 1.86 x 1024). INT8 320 dense (Epoch). NVLink 3 bridge like RTX 3090 (112.5 GB/s total, 2 cards). No FP8 hardware.")
derived("nvidia-rtx-3090-ti", "tflops.fp16/bf16", "84 SMs x 1.86 GHz x 512 FLOP/clk/SM (GA10x GeForce FP16/BF16 with FP32 accumulate) = 80.0; half of Epoch's 160 (FP16-accumulate)")

g = geforce_ada(66, 2.61)
add(id="nvidia-rtx-4070-ti-super", vendor="nvidia", name="GeForce RTX 4070 Ti SUPER", aliases=["4070 ti super", "rtx 4070 ti super", "rtx4070tisuper", "geforce rtx 4070 ti super"],
    segment="consumer", architecture="Ada Lovelace (AD103)", arch_family="ada", year=2024, mem_gb=16, mem_type="GDDR6X", bw=672,
    tflops=tf(44.1, g["tf32"], g["fp16"], g["fp16"], g["fp8"], g["int8"]), sparsity=2, tdp=285, pcie=pcie(4, 16),
    form=GF, sw=cuda_sw("8.9"), video=vid(True, 2), price=msrp(799, "2024-01", "NVIDIA launch announcement (CES 2024)"),
    sources=["NVIDIA GeForce RTX 4070 family spec page (706 AI TOPS, 8448 CUDA cores, 2.61 GHz boost, 16 GB GDDR6X 256-bit) https://www.nvidia.com/en-us/geforce/graphics-cards/40-series/rtx-4070-family/", ADA_WP, CUDA_GPUS],
    confidence="medium",
    notes=f"DERIVED tensor figures: 66 SMs x 2.61 GHz x Ada GeForce per-SM rates (TF32 256, FP16/BF16 FP32-acc 512, FP8 FP32-acc 1024, INT8 2048 per clock); check: x4096 = {g['ada_tops']} = NVIDIA's 706 AI TOPS (FP8/INT8 sparse). FP32 = 8448 x 2 x 2.61 GHz. FP16 with FP16 accumulate = {round(g['fp16']*2,1)}; FP8 with FP16 accumulate = {g['int8']}. 672 GB/s = 21 Gbps x 256-bit.")
derived("nvidia-rtx-4070-ti-super", "tflops.fp32/tf32/fp16/bf16/fp8/int8", "66 SMs x 2.61 GHz x Ada GeForce per-SM rates (reproduces 706 AI TOPS)")

g = geforce_ada(70, 2.452)
add(id="nvidia-rtx-5070-ti", vendor="nvidia", name="GeForce RTX 5070 Ti", aliases=["5070 ti", "rtx 5070 ti", "rtx5070ti", "geforce rtx 5070 ti"],
    segment="consumer", architecture="Blackwell (GB203)", arch_family="blackwell", year=2025, mem_gb=16, mem_type="GDDR7", bw=896,
    tflops=tf(43.9, g["tf32"], g["fp16"], g["fp16"], g["fp8"], g["int8"]), sparsity=2, tdp=300, pcie=pcie(5, 16),
    form=GF, sw=cuda_sw("12.0"), video=vid(True, 2), price=msrp(749, "2025-02", "NVIDIA launch announcement (CES 2025)"),
    sources=["NVIDIA GeForce RTX 5070 family spec page (1406 AI TOPS, 8960 CUDA cores, 2.45 GHz boost, 16 GB GDDR7 256-bit) https://www.nvidia.com/en-us/geforce/graphics-cards/50-series/rtx-5070-family/", "NVIDIA RTX Blackwell GPU Architecture whitepaper", CUDA_GPUS],
    confidence="medium",
    notes=f"DERIVED tensor figures: 70 SMs x 2.452 GHz x Blackwell GeForce per-SM rates as used for RTX 5080 in gpu_specs.csv (TF32 256, FP16/BF16 FP32-acc 512, FP8 FP32-acc 1024, INT8 2048); check: x8192 = {g['bw_tops']} = NVIDIA's 1406 AI TOPS (FP4 sparse). FP32 = 8960 x 2 x 2.452 GHz. FP16 with FP16 accumulate = {round(g['fp16']*2,1)}. FP4 dense ~703. 896 GB/s = 28 Gbps x 256-bit.")
derived("nvidia-rtx-5070-ti", "tflops.fp32/tf32/fp16/bf16/fp8/int8", "70 SMs x 2.452 GHz x Blackwell GeForce per-SM rates (reproduces 1406 AI TOPS)")

add(id="nvidia-rtx-3080-10gb", vendor="nvidia", name="GeForce RTX 3080 10GB", aliases=["3080 10gb", "rtx 3080 10gb", "rtx3080 10gb", "geforce rtx 3080 10gb"],
    segment="consumer", architecture="Ampere (GA102)", arch_family="ampere", year=2020, mem_gb=10, mem_type="GDDR6X", bw=760,
    tflops=tf(29.8, 29.8, 59.5, 59.5, None, 238), sparsity=2, tdp=320, pcie=pcie(4, 16),
    form=GF, sw=cuda_sw("8.6"), video=vid(False, 1), price=msrp(699, "2020-09", "NVIDIA launch announcement (also Epoch AI 'Release price')"),
    sources=[GA102_WP + " (RTX 3080 column)", EPOCH + " (row 'NVIDIA GeForce RTX 3080': 29.77 TFLOPS, 760 GB/s, 320 W, $699)", CUDA_GPUS],
    confidence="medium",
    notes="GA102 whitepaper Table 1 (RTX 3080): 68 SMs, 1.71 GHz boost; FP16 tensor with FP16 accumulate 119 dense (238 sparse), with FP32 accumulate 59.5 (119 sparse); TF32 29.8; INT8 238. Figures from the whitepaper as recalled, corroborated by Epoch (FP32, bandwidth, TDP). No FP8, no NVLink.")

g = geforce_ampere(70, 1.71)
add(id="nvidia-rtx-3080-12gb", vendor="nvidia", name="GeForce RTX 3080 12GB", aliases=["3080 12gb", "rtx 3080 12gb", "rtx3080 12gb", "geforce rtx 3080 12gb"],
    segment="consumer", architecture="Ampere (GA102)", arch_family="ampere", year=2022, mem_gb=12, mem_type="GDDR6X", bw=912,
    tflops=tf(30.6, g["tf32"], g["fp16"], g["fp16"], None, g["int8"]), sparsity=2, tdp=350, pcie=pcie(4, 16),
    form=GF, sw=cuda_sw("8.6"), video=vid(False, 1), price=None,
    sources=["NVIDIA GeForce RTX 3080 family spec page (RTX 3080 12GB: 8960 CUDA cores, 1.71 GHz boost, 12 GB GDDR6X 384-bit) https://www.nvidia.com/en-us/geforce/graphics-cards/30-series/rtx-3080-3080ti/", GA102_WP, CUDA_GPUS],
    confidence="medium",
    notes=f"DERIVED: FP32 = 8960 x 2 x 1.71 GHz; tensor = 70 SMs x 1.71 GHz x GA10x GeForce per-SM rates (TF32 256, FP16/BF16 FP32-acc 512, INT8 2048). FP16 with FP16 accumulate = {g['fp16acc16']}. 912 GB/s = 19 Gbps x 384-bit. Launched January 2022 without an NVIDIA MSRP -> price null.")
derived("nvidia-rtx-3080-12gb", "tflops.fp32/tf32/fp16/bf16/int8", "70 SMs x 1.71 GHz x GA10x GeForce per-SM rates")

g = geforce_ampere(80, 1.665)
add(id="nvidia-rtx-3080-ti", vendor="nvidia", name="GeForce RTX 3080 Ti", aliases=["3080 ti", "rtx 3080 ti", "rtx3080ti", "geforce rtx 3080 ti"],
    segment="consumer", architecture="Ampere (GA102)", arch_family="ampere", year=2021, mem_gb=12, mem_type="GDDR6X", bw=912,
    tflops=tf(34.1, g["tf32"], g["fp16"], g["fp16"], None, g["int8"]), sparsity=2, tdp=350, pcie=pcie(4, 16),
    form=GF, sw=cuda_sw("8.6"), video=vid(False, 1), price=msrp(1199, "2021-06", "NVIDIA launch announcement (Computex 2021)"),
    sources=["NVIDIA GeForce RTX 3080 family spec page (RTX 3080 Ti: 10240 CUDA cores, 1.665 GHz boost, 12 GB GDDR6X 384-bit) https://www.nvidia.com/en-us/geforce/graphics-cards/30-series/rtx-3080-3080ti/", GA102_WP, CUDA_GPUS],
    confidence="medium",
    notes=f"DERIVED: FP32 = 10240 x 2 x 1.665 GHz; tensor = 80 SMs x 1.665 GHz x GA10x GeForce per-SM rates. FP16 with FP16 accumulate = {g['fp16acc16']}. 912 GB/s = 19 Gbps x 384-bit. No NVLink.")
derived("nvidia-rtx-3080-ti", "tflops.fp32/tf32/fp16/bf16/int8", "80 SMs x 1.665 GHz x GA10x GeForce per-SM rates")

add(id="nvidia-rtx-3070", vendor="nvidia", name="GeForce RTX 3070", aliases=["3070", "rtx 3070", "rtx3070", "geforce rtx 3070"],
    segment="consumer", architecture="Ampere (GA104)", arch_family="ampere", year=2020, mem_gb=8, mem_type="GDDR6", bw=448,
    tflops=tf(20.3, 20.3, 40.6, 40.6, None, 162.6), sparsity=2, tdp=220, pcie=pcie(4, 16),
    form=GF, sw=cuda_sw("8.6"), video=vid(False, 1), price=msrp(499, "2020-10", "NVIDIA launch announcement"),
    sources=[GA102_WP + " (Appendix A, GeForce RTX 3070)", CUDA_GPUS],
    confidence="medium",
    notes="GA102 whitepaper Appendix A (RTX 3070, GA104): 46 SMs, 1.725 GHz boost; FP16 tensor with FP16 accumulate 81.3 dense (162.6 sparse), with FP32 accumulate 40.6; TF32 20.3; INT8 162.6. Figures as recalled from the whitepaper (= 46 x 1.725 GHz x GA10x per-SM rates). 448 GB/s = 14 Gbps x 256-bit.")

add(id="nvidia-rtx-4060ti-8gb", vendor="nvidia", name="GeForce RTX 4060 Ti 8GB", aliases=["4060 ti 8gb", "rtx 4060 ti 8gb", "4060ti-8gb", "rtx4060ti 8gb", "nvidia-rtx-4060-ti-8gb"],
    segment="consumer", architecture="Ada Lovelace (AD106)", arch_family="ada", year=2023, mem_gb=8, mem_type="GDDR6", bw=288,
    tflops=tf(22.1, 22.1, 44.1, 44.1, 88.3, 176.5), sparsity=2, tdp=160, pcie=pcie(4, 8),
    form=GF, sw=cuda_sw("8.9"), video=vid(True, 1), price=msrp(399, "2023-05", "NVIDIA launch announcement"),
    sources=["NVIDIA RTX 4060 Ti spec page (353 AI TOPS; 8 GB and 16 GB models) https://www.nvidia.com/en-us/geforce/graphics-cards/40-series/rtx-4060-4060ti/", ADA_WP, "gpu_specs.csv row nvidia-rtx-4060ti-16gb (same GPU and clocks)", CUDA_GPUS],
    confidence="medium",
    notes="DERIVED tensor figures identical to the 16 GB model (34 SMs x 2.535 GHz, see gpu_specs.csv); only memory size and power differ (160 W vs 165 W). FP16/FP8 with FP16 accumulate 88.3/176.5. PCIe 4.0 x8.")
derived("nvidia-rtx-4060ti-8gb", "tflops.tf32/fp16/bf16/fp8/int8", "copied from the 16 GB model's derived figures (same AD106 config and clocks)")

g = geforce_ada(46, 2.475)
add(id="nvidia-rtx-4070", vendor="nvidia", name="GeForce RTX 4070", aliases=["4070", "rtx 4070", "rtx4070", "geforce rtx 4070"],
    segment="consumer", architecture="Ada Lovelace (AD104)", arch_family="ada", year=2023, mem_gb=12, mem_type="GDDR6X", bw=504,
    tflops=tf(29.1, g["tf32"], g["fp16"], g["fp16"], g["fp8"], g["int8"]), sparsity=2, tdp=200, pcie=pcie(4, 16),
    form=GF, sw=cuda_sw("8.9"), video=vid(True, 1), price=msrp(599, "2023-04", "NVIDIA launch announcement"),
    sources=["NVIDIA GeForce RTX 4070 family spec page (466 AI TOPS, 5888 CUDA cores, 2.475 GHz, 200 W) https://www.nvidia.com/en-us/geforce/graphics-cards/40-series/rtx-4070-family/", EPOCH + " (row 'NVIDIA GeForce RTX 4070': 29.15 TFLOPS, INT8 233, 504 GB/s)", ADA_WP, CUDA_GPUS],
    confidence="medium",
    notes=f"DERIVED tensor figures: 46 SMs x 2.475 GHz x Ada GeForce per-SM rates; x4096 = {g['ada_tops']} = NVIDIA's 466 AI TOPS; INT8 dense {g['int8']} matches Epoch (233). FP16/FP8 with FP16 accumulate {round(g['fp16']*2,1)}/{g['int8']}. TDP 200 W is NVIDIA's total graphics power; Epoch lists 285 W (that is the RTX 4070 Ti).")
derived("nvidia-rtx-4070", "tflops.tf32/fp16/bf16/fp8/int8", "46 SMs x 2.475 GHz x Ada GeForce per-SM rates (reproduces 466 AI TOPS)")

g = geforce_ada(56, 2.475)
add(id="nvidia-rtx-4070-super", vendor="nvidia", name="GeForce RTX 4070 SUPER", aliases=["4070 super", "rtx 4070 super", "rtx4070super", "geforce rtx 4070 super"],
    segment="consumer", architecture="Ada Lovelace (AD104)", arch_family="ada", year=2024, mem_gb=12, mem_type="GDDR6X", bw=504,
    tflops=tf(35.5, g["tf32"], g["fp16"], g["fp16"], g["fp8"], g["int8"]), sparsity=2, tdp=220, pcie=pcie(4, 16),
    form=GF, sw=cuda_sw("8.9"), video=vid(True, 1), price=msrp(599, "2024-01", "NVIDIA launch announcement (CES 2024)"),
    sources=["NVIDIA GeForce RTX 4070 family spec page (568 AI TOPS, 7168 CUDA cores, 2.475 GHz, 220 W) https://www.nvidia.com/en-us/geforce/graphics-cards/40-series/rtx-4070-family/", ADA_WP, CUDA_GPUS],
    confidence="medium",
    notes=f"DERIVED: FP32 = 7168 x 2 x 2.475 GHz; tensor = 56 SMs x 2.475 GHz x Ada GeForce per-SM rates; x4096 = {g['ada_tops']} = NVIDIA's 568 AI TOPS. FP16/FP8 with FP16 accumulate {round(g['fp16']*2,1)}/{g['int8']}.")
derived("nvidia-rtx-4070-super", "tflops.fp32/tf32/fp16/bf16/fp8/int8", "56 SMs x 2.475 GHz x Ada GeForce per-SM rates (reproduces 568 AI TOPS)")

add(id="nvidia-rtx-4080", vendor="nvidia", name="GeForce RTX 4080", aliases=["4080", "rtx 4080", "rtx4080", "geforce rtx 4080", "4080 16gb"],
    segment="consumer", architecture="Ada Lovelace (AD103)", arch_family="ada", year=2022, mem_gb=16, mem_type="GDDR6X", bw=716.8,
    tflops=tf(48.7, 48.7, 97.5, 97.5, 194.9, 389.9), sparsity=2, tdp=320, pcie=pcie(4, 16),
    form=GF, sw=cuda_sw("8.9"), video=vid(True, 2), price=msrp(1199, "2022-11", "NVIDIA launch announcement (also Epoch AI 'Release price')"),
    sources=[ADA_WP + " (GeForce RTX 4080 column)", EPOCH + " (row 'NVIDIA GeForce RTX 4080': 48.74 TFLOPS, INT8 390, 716.8 GB/s, 320 W, $1199)", CUDA_GPUS],
    confidence="medium",
    notes="Ada whitepaper Appendix A (RTX 4080, 76 SMs, 2.505 GHz): FP16 with FP32 accumulate 97.5 dense, with FP16 accumulate 194.9; FP8 (FP32-acc) 194.9, FP8 FP16-acc 389.9; INT8 389.9; TF32 48.7. (= 76 x 2.505 GHz x Ada per-SM rates; INT8 matches Epoch.) 716.8 GB/s = 22.4 Gbps x 256-bit.")

g = geforce_ada(48, 2.512)
add(id="nvidia-rtx-5070", vendor="nvidia", name="GeForce RTX 5070", aliases=["5070", "rtx 5070", "rtx5070", "geforce rtx 5070"],
    segment="consumer", architecture="Blackwell (GB205)", arch_family="blackwell", year=2025, mem_gb=12, mem_type="GDDR7", bw=672,
    tflops=tf(30.9, g["tf32"], g["fp16"], g["fp16"], g["fp8"], g["int8"]), sparsity=2, tdp=250, pcie=pcie(5, 16),
    form=GF, sw=cuda_sw("12.0"), video=vid(True, 1), price=msrp(549, "2025-03", "NVIDIA launch announcement (CES 2025)"),
    sources=["NVIDIA GeForce RTX 5070 family spec page (988 AI TOPS, 6144 CUDA cores, 2.51 GHz, 12 GB GDDR7 192-bit) https://www.nvidia.com/en-us/geforce/graphics-cards/50-series/rtx-5070-family/", "NVIDIA RTX Blackwell GPU Architecture whitepaper", CUDA_GPUS],
    confidence="medium",
    notes=f"DERIVED: FP32 = 6144 x 2 x 2.512 GHz; tensor = 48 SMs x 2.512 GHz x Blackwell GeForce per-SM rates; x8192 = {g['bw_tops']} = NVIDIA's 988 AI TOPS (FP4 sparse). FP16 with FP16 accumulate {round(g['fp16']*2,1)}. 672 GB/s = 28 Gbps x 192-bit.")
derived("nvidia-rtx-5070", "tflops.fp32/tf32/fp16/bf16/fp8/int8", "48 SMs x 2.512 GHz x Blackwell GeForce per-SM rates (reproduces 988 AI TOPS)")

g = geforce_ada(36, 2.572)
add(id="nvidia-rtx-5060-ti-16gb", vendor="nvidia", name="GeForce RTX 5060 Ti 16GB", aliases=["5060 ti 16gb", "rtx 5060 ti 16gb", "rtx5060ti 16gb", "5060ti-16gb"],
    segment="consumer", architecture="Blackwell (GB206)", arch_family="blackwell", year=2025, mem_gb=16, mem_type="GDDR7", bw=448,
    tflops=tf(23.7, g["tf32"], g["fp16"], g["fp16"], g["fp8"], g["int8"]), sparsity=2, tdp=180, pcie=pcie(5, 8),
    form=GF, sw=cuda_sw("12.0"), video=vid(True, 1), price=msrp(429, "2025-04", "NVIDIA launch announcement"),
    sources=["NVIDIA GeForce RTX 5060 family spec page (759 AI TOPS, 4608 CUDA cores, 2.57 GHz, 16 GB GDDR7 128-bit) https://www.nvidia.com/en-us/geforce/graphics-cards/50-series/rtx-5060-family/", "NVIDIA RTX Blackwell GPU Architecture whitepaper", CUDA_GPUS],
    confidence="medium",
    notes=f"DERIVED: FP32 = 4608 x 2 x 2.572 GHz; tensor = 36 SMs x 2.572 GHz x Blackwell GeForce per-SM rates; x8192 = {g['bw_tops']} = NVIDIA's 759 AI TOPS. FP16 with FP16 accumulate {round(g['fp16']*2,1)}. 448 GB/s = 28 Gbps x 128-bit. PCIe 5.0 x8.")
derived("nvidia-rtx-5060-ti-16gb", "tflops.fp32/tf32/fp16/bf16/fp8/int8", "36 SMs x 2.572 GHz x Blackwell GeForce per-SM rates (reproduces 759 AI TOPS)")

add(id="nvidia-rtx-2080-ti", vendor="nvidia", name="GeForce RTX 2080 Ti", aliases=["2080 ti", "rtx 2080 ti", "rtx2080ti", "geforce rtx 2080 ti"],
    segment="consumer", architecture="Turing (TU102)", arch_family="turing", year=2018, mem_gb=11, mem_type="GDDR6", bw=616,
    tflops=tf(13.45, None, 56.9, None, None, 227.7), sparsity=1, tdp=250, pcie=pcie(3, 16), ic=ic("nvlink", 100, 2),
    form=GF, sw=cuda_sw("7.5"), video=vid(False, 1), price=msrp(999, "2018-09", "NVIDIA launch announcement (Founders Edition $1,199; also Epoch AI 'Release price')"),
    sources=[EPOCH + " (row 'NVIDIA GeForce RTX 2080 Ti 11GB': Tensor-FP16 113.8, INT8 227.7, FP32 13.45, 616 GB/s, 250 W)", "NVIDIA Turing GPU Architecture whitepaper (Appendix A)", CUDA_GPUS],
    confidence="medium",
    notes="DERIVED fp16: Epoch's 113.8 is FP16 with FP16 accumulate; GeForce Turing runs FP32 accumulate at half rate -> 56.9. No BF16/TF32/FP8 (Turing). INT8 227.7 dense (Epoch). NVLink bridge 100 GB/s total (2 x 25 GB/s x 2 directions), 2 cards.")
derived("nvidia-rtx-2080-ti", "tflops.fp16", "Epoch 113.8 (FP16-accumulate) / 2 for GeForce FP32 accumulate = 56.9")

add(id="nvidia-titan-rtx", vendor="nvidia", name="NVIDIA TITAN RTX", aliases=["titan rtx", "titanrtx", "nvidia titan rtx"],
    segment="workstation", architecture="Turing (TU102)", arch_family="turing", year=2018, mem_gb=24, mem_type="GDDR6", bw=672,
    tflops=tf(16.3, None, 130.5, None, None, 261), sparsity=1, tdp=280, pcie=pcie(3, 16), ic=ic("nvlink", 100, 2),
    form="PCIe dual-slot desktop card", sw=cuda_sw("7.5"), video=vid(False, 1), price=msrp(2499, "2018-12", "NVIDIA launch announcement"),
    sources=["NVIDIA TITAN RTX spec page (130 Tensor TFLOPS, 24 GB GDDR6, 672 GB/s, NVLink 100 GB/s) https://www.nvidia.com/en-us/deep-learning-ai/products/titan-rtx/", "NVIDIA Turing GPU Architecture whitepaper", CUDA_GPUS],
    confidence="medium",
    notes="Full-rate FP32 accumulate (TITAN, unlike GeForce 2080 Ti): 72 SMs x 1.77 GHz x 1024 = 130.5 (NVIDIA quotes 130 TFLOPS). INT8 = 2x FP16 = 261 (DERIVED, Turing INT8 rate). No BF16/TF32/FP8. Values as recalled from NVIDIA's page (medium).")
derived("nvidia-titan-rtx", "tflops.int8", "2 x FP16 tensor rate (Turing INT8 = 2x FP16) = 261")

add(id="nvidia-quadro-rtx-8000", vendor="nvidia", name="Quadro RTX 8000", aliases=["quadro rtx 8000", "rtx 8000", "rtx8000", "quadro-rtx-8000"],
    segment="workstation", architecture="Turing (TU102)", arch_family="turing", year=2018, mem_gb=48, mem_type="GDDR6", bw=672, ecc=True,
    tflops=tf(16.3, None, 130.5, None, None, 261), sparsity=1, tdp=260, pcie=pcie(3, 16), ic=ic("nvlink", 100, 2),
    form="PCIe dual-slot, blower", sw=cuda_sw("7.5"), video=vid(False, 1), price=None,
    sources=["NVIDIA Quadro RTX 8000 datasheet (48 GB GDDR6 ECC, 672 GB/s, 16.3 TFLOPS FP32, 130.5 Tensor TFLOPS, NVLink 100 GB/s, 295 W board / 260 W graphics)", EPOCH + " (row 'NVIDIA Quadro RTX 8000': 48 GB, 672 GB/s, 260 W, 16.3 TFLOPS)", CUDA_GPUS],
    confidence="medium",
    notes="Tensor 130.5 TFLOPS (FP16, full-rate pro card); INT8 = 2x FP16 = 261 (DERIVED). No BF16/TF32/FP8. Launch price varied by report -> null.")
derived("nvidia-quadro-rtx-8000", "tflops.int8", "2 x FP16 tensor rate (Turing INT8 = 2x FP16) = 261")

# ---------------------------- NVIDIA data center -----------------------------
add(id="nvidia-v100-pcie-16gb", vendor="nvidia", name="Tesla V100 PCIe 16GB", aliases=["v100 pcie 16gb", "v100-pcie-16gb", "tesla v100 pcie 16gb"],
    segment="datacenter", architecture="Volta (GV100)", arch_family="volta", year=2017, mem_gb=16, mem_type="HBM2", bw=900, ecc=True,
    tflops=tf(14, None, 112, None, None, None), sparsity=1, tdp=250, pcie=pcie(3, 16),
    form="PCIe FHFL dual-slot, passive", sw=cuda_sw("7.0"), video=vid(False),
    price=street(10664, "2017-06", "Epoch AI 'Release price' column (source: Microway V100 price analysis)"),
    sources=[V100_DS + " (V100 PCIe column)", EPOCH + " (row 'NVIDIA Tesla V100 PCIe 16 GB')", CUDA_GPUS],
    confidence="high",
    notes="112 TFLOPS = FP16 tensor with FP32 accumulate (datasheet 'Tensor Performance'). No BF16/TF32/FP8, no tensor INT8. Datasheet bandwidth 900 GB/s (Epoch/TechPowerUp list 897). No NVLink on the PCIe card. NVENC count not recorded.")

add(id="nvidia-v100-pcie-32gb", vendor="nvidia", name="Tesla V100 PCIe 32GB", aliases=["v100 pcie 32gb", "v100-pcie-32gb", "tesla v100 pcie 32gb"],
    segment="datacenter", architecture="Volta (GV100)", arch_family="volta", year=2018, mem_gb=32, mem_type="HBM2", bw=900, ecc=True,
    tflops=tf(14, None, 112, None, None, None), sparsity=1, tdp=250, pcie=pcie(3, 16),
    form="PCIe FHFL dual-slot, passive", sw=cuda_sw("7.0"), video=vid(False),
    price=street(11458, "2018-03", "Epoch AI 'Release price' column (source: Microway V100 price analysis)"),
    sources=[V100_DS + " (V100 PCIe column)", EPOCH + " (row 'NVIDIA Tesla V100 PCIe 32 GB')", CUDA_GPUS],
    confidence="high",
    notes="Same GPU and clocks as the 16 GB PCIe card. 112 TFLOPS FP16 tensor (FP32 accumulate). No BF16/TF32/FP8/tensor INT8. Datasheet 900 GB/s (Epoch 897).")

add(id="nvidia-v100-sxm2-16gb", vendor="nvidia", name="Tesla V100 SXM2 16GB", aliases=["v100 sxm2 16gb", "v100-sxm2-16gb", "tesla v100 sxm2 16gb"],
    segment="datacenter", architecture="Volta (GV100)", arch_family="volta", year=2017, mem_gb=16, mem_type="HBM2", bw=900, ecc=True,
    tflops=tf(15.7, None, 125, None, None, None), sparsity=1, tdp=300, pcie=pcie(3, 16), ic=ic("nvlink", 300, 8),
    form="SXM2", sw=cuda_sw("7.0"), video=vid(False),
    price=street(11500, "2017-07", "Epoch AI 'Release price' column (row 'NVIDIA Tesla V100 SXM2', 16 GB; no price source given there)"),
    sources=[V100_DS + " (V100 SXM2 column)", EPOCH + " (rows 'NVIDIA Tesla V100 SXM2' / 'SXM2 16 GB')", "gpu_specs.csv row nvidia-v100-sxm2-32gb (same compute)", CUDA_GPUS],
    confidence="high",
    notes="Same figures as the 32 GB SXM2 reference row except memory: 125 TFLOPS FP16 tensor (FP32 accumulate), 15.7 FP32, NVLink 2.0 300 GB/s (6 links x 50). max_gpus 8 = DGX-1 hybrid cube-mesh. Datasheet 900 GB/s (Epoch 897).")

add(id="nvidia-a10g", vendor="nvidia", name="A10G (AWS)", aliases=["a10g", "nvidia a10g", "a10-g"],
    segment="datacenter", architecture="Ampere (GA102)", arch_family="ampere", year=2021, mem_gb=24, mem_type="GDDR6", bw=600,
    tflops=tf(31.5, None, None, None, None, None), sparsity=2, tdp=None, pcie=pcie(4, 16),
    form="PCIe card in AWS EC2 G5 instances (not sold separately)", sw=cuda_sw("8.6"), video=vid(False),
    sources=[EPOCH + " (row 'NVIDIA A10G': 24 GB, 600.2 GB/s, 31.5 TFLOPS FP32)", "Baseten, 'NVIDIA A10 vs A10G for ML model inference' https://www.baseten.co/blog/nvidia-a10-vs-a10g-for-ml-model-inference/ (24 GB GDDR6, 600 GB/s; tensor specs differ from A10)", CUDA_GPUS],
    confidence="low",
    notes="AWS-specific GA102 variant; NVIDIA publishes no A10G datasheet. Tensor TF32/FP16/BF16/INT8 rates are not published by NVIDIA and are reported to differ from the A10 -> null (do not assume A10's 125 TFLOPS). tdp null: Epoch lists 150 W but nvidia-smi on G5 instances reports a 300 W limit (AWS instance table). sparsity_multiplier 2 = Ampere 2:4 sparsity hardware.")

add(id="nvidia-a40", vendor="nvidia", name="A40", aliases=["a40", "nvidia a40", "a40 48gb", "a40-pcie"],
    segment="datacenter", architecture="Ampere (GA102)", arch_family="ampere", year=2020, mem_gb=48, mem_type="GDDR6", bw=696, ecc=True,
    tflops=tf(37.4, 74.8, 149.7, 149.7, None, 299.3), sparsity=2, tdp=300, pcie=pcie(4, 16), ic=ic("nvlink", 112.5, 2),
    form="PCIe FHFL dual-slot, passive", sw=cuda_sw("8.6"), video=vid(False, 1),
    sources=["NVIDIA A40 datasheet https://images.nvidia.com/content/Solutions/data-center/a40/nvidia-a40-datasheet.pdf (quoted on https://www.ecer.com/corp/details-uuuedqa-p1bsay9-multi-display-setups-supported-by-48gb-gddr6-ecc-memory-nvidia-a40-gpu-and-vga-outputs.html)", EPOCH + " (row 'NVIDIA A40 PCIe': BF16 149.7, TF32 74.8, INT8 299.3, 695.8 GB/s, 300 W)", CUDA_GPUS],
    confidence="high",
    notes="Datasheet: FP32 37.4; TF32 74.8 | 149.6 sparse; BF16 with FP32 accumulate 149.7 | 299.4; FP16 149.7 | 299.4; INT8 299.3 | 598.6. NVLink 112.5 GB/s bidirectional (2 cards). 1 NVENC / 2 NVDEC (AV1 decode only).")

add(id="nvidia-a100-sxm4-40gb", vendor="nvidia", name="A100 40GB SXM4", aliases=["a100-sxm4-40gb", "a100 sxm4 40gb", "a100 40gb sxm", "a100-40gb-sxm", "a100-40gb-sxm4"],
    segment="datacenter", architecture="Ampere (GA100)", arch_family="ampere", year=2020, mem_gb=40, mem_type="HBM2", bw=1555, ecc=True,
    tflops=tf(19.5, 156, 312, 312, None, 624), sparsity=2, tdp=400, pcie=pcie(4, 16), ic=ic("nvlink", 600, 8),
    form="SXM4", sw=cuda_sw("8.0"), video=vid(False, 0),
    price=street(15000, "2022-05", "Epoch AI 'Release price' column (source: The Next Platform, 2022-05-09)"),
    sources=["NVIDIA A100 datasheet r4 https://www.nvidia.com/content/dam/en-zz/Solutions/Data-Center/a100/pdf/nvidia-a100-datasheet-us-nvidia-1758950-r4-web.pdf", EPOCH + " (row 'NVIDIA A100 SXM4 40 GB': 1560 GB/s, 400 W)", "gpu_specs.csv rows nvidia-a100-* (same compute); nvidia-a100-80gb-sxm notes (40GB SXM4: HBM2 1555 GB/s)", CUDA_GPUS],
    confidence="high",
    notes="Same compute as the other A100s (108 SMs / 432 Tensor Cores). HBM2 (not HBM2e) 1555 GB/s. max_gpus 8 = HGX A100 NVSwitch. No NVENC.")

add(id="nvidia-a30", vendor="nvidia", name="A30", aliases=["a30", "nvidia a30", "a30 24gb"],
    segment="datacenter", architecture="Ampere (GA100)", arch_family="ampere", year=2021, mem_gb=24, mem_type="HBM2", bw=933, ecc=True,
    tflops=tf(10.3, 82, 165, 165, None, 330), sparsity=2, tdp=165, pcie=pcie(4, 16), ic=ic("nvlink", 200, 2),
    form="PCIe FHFL dual-slot, passive", sw=cuda_sw("8.0"), video=vid(False, 0),
    sources=["NVIDIA A30 Tensor Core GPU datasheet https://www.nvidia.com/content/dam/en-zz/Solutions/data-center/products/a30-gpu/pdf/a30-datasheet.pdf", CUDA_GPUS],
    confidence="medium",
    notes="Datasheet (as recalled; not re-read here): FP32 10.3, TF32 82 | 165 sparse, BF16/FP16 165 | 330, INT8 330 | 661, 933 GB/s HBM2, 165 W, NVLink bridge 200 GB/s between 2 cards, MIG up to 4 instances. No NVENC (GA100).")

add(id="nvidia-a2", vendor="nvidia", name="A2", aliases=["a2", "nvidia a2", "a2 16gb"],
    segment="datacenter", architecture="Ampere (GA107)", arch_family="ampere", year=2021, mem_gb=16, mem_type="GDDR6", bw=200,
    tflops=tf(4.5, 9, 18, 18, None, 36), sparsity=2, tdp=60, pcie=pcie(4, 8),
    form="PCIe low-profile single-slot, passive", sw=cuda_sw("8.6"), video=vid(False, 1),
    sources=["NVIDIA A2 Tensor Core GPU datasheet https://www.nvidia.com/content/dam/en-zz/solutions/data-center/a2/pdf/a2-datasheet.pdf", "hmc-tech.com A2 spec comparison (FP16 tensor 18.13, INT8 36.25, TF32 9.06 dense) https://hmc-tech.com/gpu/nvidia-a2-vs-nvidia-a40", CUDA_GPUS],
    confidence="medium",
    notes="Datasheet: FP32 4.5, TF32 9 | 18 sparse, BF16/FP16 18 | 36, INT8 36 | 72; 16 GB GDDR6 200 GB/s; configurable 40-60 W (tdp = 60 max); PCIe 4.0 x8. ECC support not recorded (null).")

add(id="nvidia-h20-96gb", vendor="nvidia", name="H20 96GB (HGX)", aliases=["h20", "nvidia h20", "hgx h20", "h20 96gb"],
    segment="datacenter", architecture="Hopper (GH100, cut-down)", arch_family="hopper", year=2024, mem_gb=96, mem_type="HBM3", bw=4000, ecc=True,
    tflops=tf(44, 74, 148, 148, 296, 296), sparsity=2, tdp=400, pcie=pcie(5, 16), ic=ic("nvlink", 900, 8),
    form="SXM (HGX H20 8-GPU baseboard)", sw=cuda_sw("9.0"), video=vid(False, 0),
    price=street(12000, "2024-01", "Epoch AI 'Release price' column (source: Tom's Hardware distributor report, ~$12k)"),
    sources=[EPOCH + " (row 'NVIDIA HGX H20': 96 GB, 4.0 TB/s, FP32 44, TF32 74, BF16 148, INT8 296, 400 W)", "Viperatech HGX H20 product page (Epoch's datasheet link) https://viperatech.com/shop/nvidia-hgx-h20/", CUDA_GPUS],
    confidence="medium",
    notes="China-market Hopper; NVIDIA publishes no public datasheet. DERIVED fp8 = 2 x BF16 dense (Hopper FP8 rate = 2x FP16/BF16) = 296 (Epoch has no FP8 value). Epoch release date 2023-11 (announcement); volume shipments 2024 -> launch_year 2024. NVLink 900 GB/s (18 NVLink 4 links, HGX 8-GPU) and PCIe Gen5 as listed by the reseller spec page Epoch links, not re-read here. No NVENC.")
derived("nvidia-h20-96gb", "tflops.fp8", "2 x BF16 dense (Hopper FP8 = 2x FP16) = 296")

for mem, bw, mt, alias_extra, yr, n, note_ic in [
    (96, 4000, "HBM3", ["gh200 96gb", "gh200-96gb", "grace hopper 96gb"], 2023, 256,
     "max_gpus 256 = DGX GH200 (256 superchips in one NVLink Switch System domain); most GH200 nodes hold 1-4 superchips."),
    (144, 4900, "HBM3e", ["gh200 144gb", "gh200-144gb", "grace hopper 144gb"], 2024, 2,
     "max_gpus 2 = GH200 NVL2 (two superchips joined by NVLink: 288 GB HBM3e, ~10 TB/s)."),
]:
    add(id=f"nvidia-gh200-{mem}gb", vendor="nvidia", name=f"GH200 Grace Hopper Superchip ({mem}GB {mt})", aliases=alias_extra,
        segment="datacenter", architecture="Hopper (GH100) + Grace CPU", arch_family="hopper", year=yr, mem_gb=mem, mem_type=mt, bw=bw,
        unified=True, ecc=True, tflops=tf(67, 494.7, 989.4, 989.4, 1978.9, 1978.9), sparsity=2, tdp=700, pcie=pcie(),
        ic=ic("nvlink", 900, n), form="GH200 superchip module (72-core Grace CPU + Hopper GPU, NVLink-C2C)", sw=cuda_sw("9.0"), video=vid(False, 0),
        sources=["NVIDIA GH200 Grace Hopper Superchip datasheet https://resources.nvidia.com/en-us-data-center-overview-mc/en-us-data-center-overview/grace-hopper-superchip-datasheet-partner",
                 EPOCH + " (row 'NVIDIA GH200': 4.9 TB/s, FP32 66.91, TF32 494.5, BF16 989.5, INT8 1979, 700 W)",
                 "gpu_specs.csv row nvidia-h100-sxm5 (same GPU compute)"]
        + (["gpuadvise seed fact-check (FACTCHECK.md, claim 14: ~4 TB/s belongs to GH200-96GB)"] if mem == 96 else
           ["NVIDIA GH200 NVL2 announcement (2 superchips, 288 GB HBM3e, ~10 TB/s)"]) + [CUDA_GPUS],
        confidence="medium",
        notes=f"GPU compute = H100 SXM5 (gpu_specs.csv). memory_bytes counts GPU HBM only; unified_memory: the GPU also addresses the Grace CPU's LPDDR5X (up to 480 GB) coherently over NVLink-C2C at 900 GB/s. tdp_watts 700 from Epoch; NVIDIA's module power (CPU+GPU+memory) is configurable up to 1000 W. Host PCIe: none (NVLink-C2C to Grace) -> null. {note_ic} No NVENC.")

add(id="nvidia-b100", vendor="nvidia", name="B100 (HGX B100, per GPU)", aliases=["b100", "nvidia b100", "hgx b100"],
    segment="datacenter", architecture="Blackwell (GB100 dual-die)", arch_family="blackwell", year=2024, mem_gb=192, mem_type="HBM3e", bw=8000, ecc=True,
    tflops=tf(None, 875, 1750, 1750, 3500, 3500), sparsity=2, tdp=700, pcie=pcie(5, 16), ic=ic("nvlink", 1800, 8),
    form="SXM (HGX B100 8-GPU baseboard, H100-compatible 700 W)", sw=cuda_sw("10.0"), video=vid(False, 0),
    price=street(35000, "2024-11", "Epoch AI 'Release price' column (source: Hyperstack B100 page, web.archive.org 2024-08-09)"),
    sources=[EPOCH + " (row 'NVIDIA B100': 192 GB, 8 TB/s, 700 W, dense BF16 1750, FP8 3500, TF32 875, INT8 3500)", "AnandTech, 'NVIDIA Blackwell Architecture and B200/B100 Accelerators Announced' (Epoch's datasheet link) https://www.anandtech.com/show/21310/", CUDA_GPUS],
    confidence="medium",
    notes="All figures from Epoch (dense, per GPU). FP32 vector not given there -> null. NVLink 5 at 1800 GB/s per GPU and the 8-GPU HGX baseboard as announced at GTC 2024 (AnandTech article above). Availability of the B100 as a shipping product is unclear (HGX B200 largely replaced it). No NVENC.")

add(id="nvidia-l40", vendor="nvidia", name="L40", aliases=["l40", "nvidia l40", "l40 48gb"],
    segment="datacenter", architecture="Ada Lovelace (AD102)", arch_family="ada", year=2022, mem_gb=48, mem_type="GDDR6", bw=864, ecc=True,
    tflops=tf(90.5, 90.5, 181.05, 181.05, 362, 362), sparsity=2, tdp=300, pcie=pcie(4, 16),
    form="PCIe FHFL dual-slot, passive", sw=cuda_sw("8.9"), video=vid(True, 3),
    sources=["NVIDIA L40 / L40S datasheet table (quoted on https://www.mullet.se/product.html?product_id=355414): L40 FP32 90.5, TF32 90.5 | 181*, BF16/FP16 181.05 | 362.1*, FP8 362 | 724*, INT8 362 | 724*, 300 W",
             "NVIDIA L40 datasheet https://www.nvidia.com/content/dam/en-zz/Solutions/design-visualization/support-guide/NVIDIA-L40-Datasheet-January-2023.pdf",
             EPOCH + " (row 'NVIDIA L40': BF16 181, INT8 362, 864 GB/s, 300 W)", ADA_WP, CUDA_GPUS],
    confidence="high",
    notes="Datacenter Ada: full-rate FP32 accumulate. 142 SMs / 568 Tensor Cores. 3 NVENC / 3 NVDEC with AV1 encode. No NVLink.")

add(id="nvidia-rtx-a4000", vendor="nvidia", name="RTX A4000", aliases=["a4000", "rtx a4000", "rtxa4000", "nvidia rtx a4000"],
    segment="workstation", architecture="Ampere (GA104)", arch_family="ampere", year=2021, mem_gb=16, mem_type="GDDR6", bw=448, ecc=True,
    tflops=tf(19.2, 38.4, 76.7, 76.7, None, 153.4), sparsity=2, tdp=140, pcie=pcie(4, 16),
    form="PCIe single-slot, blower", sw=cuda_sw("8.6"), video=vid(False, 1),
    price=msrp(1000, "2021-04", "NVIDIA launch announcement (via Epoch AI 'Release price', source develop3d.com)"),
    sources=["NVIDIA RTX A4000 datasheet (16 GB GDDR6 ECC, 448 GB/s, 19.2 TFLOPS FP32, 153.4 TFLOPS tensor, 140 W; quoted on https://www.ecer.com/corp/details-uuuedqa-p1bsb03-pci-express-3-0-x16-nvidia-rtx-a4000-16g-graphics-card-for-professional-video-editing.html)", EPOCH + " (row 'NVIDIA RTX A4000': $1000)", CUDA_GPUS],
    confidence="medium",
    notes="DERIVED: datasheet 'Tensor performance 153.4 TFLOPS' is FP16 sparse -> 76.7 dense (= 48 SMs x 1.56 GHz x 1024, pro full-rate FP32 accumulate); TF32 = half of FP16 = 38.4; INT8 = 2x FP16 = 153.4 dense (GA10x ratios, as RTX A6000 in gpu_specs.csv). No NVLink.")
derived("nvidia-rtx-a4000", "tflops.tf32/fp16/bf16/int8", "datasheet 153.4 TFLOPS sparse FP16 / 2 = 76.7; TF32 = FP16/2; INT8 = 2 x FP16 (GA10x ratios)")

add(id="nvidia-rtx-a5000", vendor="nvidia", name="RTX A5000", aliases=["a5000", "rtx a5000", "rtxa5000", "nvidia rtx a5000"],
    segment="workstation", architecture="Ampere (GA102)", arch_family="ampere", year=2021, mem_gb=24, mem_type="GDDR6", bw=768, ecc=True,
    tflops=tf(27.8, 55.6, 111.1, 111.1, None, 222.2), sparsity=2, tdp=230, pcie=pcie(4, 16), ic=ic("nvlink", 112.5, 2),
    form="PCIe dual-slot, blower", sw=cuda_sw("8.6"), video=vid(False, 1),
    price=msrp(2250, "2021-04", "NVIDIA launch announcement (via Epoch AI 'Release price', source develop3d.com)"),
    sources=["NVIDIA RTX A5000 datasheet (24 GB GDDR6 ECC, 768 GB/s, 27.8 TFLOPS FP32, 222.2 TFLOPS tensor, 230 W, NVLink 112.5 GB/s)", EPOCH + " (row 'NVIDIA RTX A5000': 24 GB, 768 GB/s, 230 W, 27.77 TFLOPS, $2250)", CUDA_GPUS],
    confidence="medium",
    notes="DERIVED: datasheet tensor 222.2 TFLOPS is FP16 sparse -> 111.1 dense (= 64 SMs x 1.695 GHz x 1024); TF32 = FP16/2 = 55.6; INT8 = 2x FP16 = 222.2 dense. NVLink bridge, 2 cards.")
derived("nvidia-rtx-a5000", "tflops.tf32/fp16/bf16/int8", "datasheet 222.2 TFLOPS sparse FP16 / 2 = 111.1; TF32 = FP16/2; INT8 = 2 x FP16")

add(id="nvidia-rtx-4000-ada", vendor="nvidia", name="RTX 4000 Ada Generation", aliases=["rtx 4000 ada", "rtx4000 ada", "4000 ada", "rtx 4000 ada generation"],
    segment="workstation", architecture="Ada Lovelace (AD104)", arch_family="ada", year=2023, mem_gb=20, mem_type="GDDR6", bw=360, ecc=True,
    tflops=tf(26.7, 41.0, 81.9, 81.9, 163.8, 163.8), sparsity=2, tdp=130, pcie=pcie(4, 16),
    form="PCIe single-slot, blower", sw=cuda_sw("8.9"), video=vid(True, 2),
    price=msrp(1250, "2023-08", "NVIDIA launch announcement (SIGGRAPH 2023)"),
    sources=["NVIDIA RTX 4000 Ada Generation datasheet (20 GB GDDR6 ECC, 360 GB/s, 26.7 TFLOPS FP32, 327.6 TFLOPS tensor, 130 W) https://www.nvidia.com/en-us/design-visualization/rtx-4000/", ADA_WP, CUDA_GPUS],
    confidence="low",
    notes="DERIVED from datasheet 'Tensor performance 327.6 TFLOPS' read as FP8 sparse (as for RTX 6000 Ada, 1457 = FP8 sparse): FP8 dense 163.8, FP16/BF16 (FP32-acc, pro full rate) 81.9, TF32 41.0, INT8 163.8. Note: 48 SMs x 2.175 GHz boost x 1024 would give 106.9 FP16; NVIDIA's 327.6 implies ~1.67 GHz, so the tensor figures are conservative. No NVLink.")
derived("nvidia-rtx-4000-ada", "tflops.tf32/fp16/bf16/fp8/int8", "datasheet 327.6 TFLOPS (FP8 sparse) / 2 = FP8 163.8; /4 = FP16 81.9; /8 = TF32 41.0; INT8 = FP8")

add(id="nvidia-rtx-5000-ada", vendor="nvidia", name="RTX 5000 Ada Generation", aliases=["rtx 5000 ada", "rtx5000 ada", "5000 ada", "rtx 5000 ada generation"],
    segment="workstation", architecture="Ada Lovelace (AD102)", arch_family="ada", year=2023, mem_gb=32, mem_type="GDDR6", bw=576, ecc=True,
    tflops=tf(65.3, 130.6, 261.1, 261.1, 522.2, 522.2), sparsity=2, tdp=250, pcie=pcie(4, 16),
    form="PCIe dual-slot, blower", sw=cuda_sw("8.9"), video=vid(True, 2),
    price=msrp(4000, "2023-08", "NVIDIA launch announcement (SIGGRAPH 2023)"),
    sources=["NVIDIA RTX 5000 Ada Generation datasheet (32 GB GDDR6 ECC, 576 GB/s, 65.3 TFLOPS FP32, 1044.4 TFLOPS tensor, 250 W) https://www.nvidia.com/en-us/design-visualization/rtx-5000/", ADA_WP, CUDA_GPUS],
    confidence="medium",
    notes="DERIVED from datasheet 'Tensor performance 1044.4 TFLOPS' (FP8 sparse; = 100 SMs x 2.55 GHz x 4096): FP8 dense 522.2, FP16/BF16 261.1 (pro full-rate FP32 accumulate), TF32 130.6, INT8 522.2. No NVLink.")
derived("nvidia-rtx-5000-ada", "tflops.tf32/fp16/bf16/fp8/int8", "datasheet 1044.4 TFLOPS (FP8 sparse) / 2 = FP8 522.2; /4 = FP16 261.1; /8 = TF32 130.6; INT8 = FP8")

# ---------------------------------- AMD -------------------------------------
add(id="amd-mi100", vendor="amd", name="Instinct MI100", aliases=["mi100", "instinct mi100", "amd mi100"],
    segment="datacenter", architecture="CDNA 1 (Arcturus)", arch_family="cdna1", year=2020, mem_gb=32, mem_type="HBM2", bw=1228.8, ecc=True,
    tflops=tf(23.1, None, 184.6, 92.3, None, 184.6), sparsity=1, tdp=300, pcie=pcie(4, 16), ic=ic("infinity-fabric", 276, 4),
    form="PCIe FHFL dual-slot, passive", sw=rocm_sw("gfx908"), video=vid(None),
    sources=["AMD Instinct MI100 specifications (AMD table reproduced by Notebookcheck) https://www.notebookcheck.net/AMD-announces-CDNA-based-Instinct-MI100-GPU-with-120-CUs-for-HPC-promises-up-to-2-1x-more-performance-per-dollar-compared-to-the-NVIDIA-A100.504329.0.html",
             "AMD ROCm docs, MI100 hardware (hive of four GPUs over Infinity Fabric bridge)"],
    confidence="high",
    notes="AMD table: 120 CUs, FP32 vector 23.1, FP32 matrix 46.1, FP16 matrix 184.6, BF16 92.3 (half the FP16 rate on CDNA1), INT8 184.6, 32 GB HBM2 4096-bit 1.2288 TB/s, 3 Infinity Fabric links = 276 GB/s, 300 W. No TF32/FP8. max_gpus 4 (hive of four).")

add(id="amd-mi250", vendor="amd", name="Instinct MI250", aliases=["mi250", "instinct mi250", "amd mi250"],
    segment="datacenter", architecture="CDNA 2 (2x Aldebaran GCD)", arch_family="cdna2", year=2021, mem_gb=128, mem_type="HBM2e", bw=3277, ecc=True,
    tflops=tf(45.3, None, 362.1, 362.1, None, 362.1), sparsity=1, tdp=500, pcie=pcie(4, 16), ic=ic("infinity-fabric", 600, 4),
    form="OAM", sw=rocm_sw("gfx90a", "ROCm 4.5+"), video=vid(None),
    sources=["AMD Instinct MI200 series specification table (MI250: 208 CUs, FP32 vector 45.3, FP32 matrix 90.5, FP16/BF16 362.1, INT8 362.1, 128 GB HBM2e, 3.2 TB/s; reproduced on https://zexron.com/amd-mi250-x-aldebaran-as-mcm-with-up-to-479-teraflop-s-and-560-watt-tdp)",
             "AMD Instinct MI250 product page https://www.amd.com/en/products/accelerators/instinct/mi200/mi250.html", "gpu_specs.csv row amd-mi250x (link convention)"],
    confidence="medium",
    notes="Appears to software as 2 GPUs x 64 GB. 6 Infinity Fabric links (MI250X has 8) x 100 GB/s = 600 GB/s, no memory coherence over the links. TDP 500 W typical (560 W peak, as MI250X in gpu_specs.csv). Bandwidth 3276.8 GB/s written 3277 as the MI250X row. No TF32/FP8 (CDNA2). max_gpus 4 = typical 4-OAM node.")

add(id="amd-mi250x-1gcd", vendor="amd", name="Instinct MI250X (one GCD, as seen by software)", aliases=["mi250x 1gcd", "mi250x-gcd", "mi250x one gcd", "mi250x-1gcd"],
    segment="datacenter", architecture="CDNA 2 (one Aldebaran GCD)", arch_family="cdna2", year=2021, mem_gb=64, mem_type="HBM2e", bw=1638.4, ecc=True,
    tflops=tf(23.95, None, 191.5, 191.5, None, 191.5), sparsity=1, tdp=250, pcie=pcie(4, 16), ic=ic("infinity-fabric", 400, 8),
    form="half of an MI250X OAM module (logical GPU)", sw=rocm_sw("gfx90a", "ROCm 4.5+"), video=vid(None),
    sources=["gpu_specs.csv row amd-mi250x (halved)", "AMD ROCm docs, 'AMD Instinct MI250 microarchitecture' (1.6 TB/s HBM2e per GCD; 110 CUs on MI250X GCD) https://rocm.docs.amd.com/en/latest/conceptual/gpu-arch/mi250.html"],
    confidence="medium",
    notes="DERIVED: one of the two GCDs of an MI250X, which ROCm/PyTorch expose as separate devices (used by measurements that report per-GCD results). Memory 64 GB and bandwidth 1638.4 GB/s per GCD (AMD: 1.6 TB/s per GCD); compute = MI250X / 2; tdp = 500 W / 2 (nominal split, not a published figure); interconnect = 4 of the 8 external links (400 GB/s) and max_gpus 8 GCDs in a 4-OAM node.")
derived("amd-mi250x-1gcd", "memory_bandwidth_gbps, tflops.*, tdp_watts, interconnect", "MI250X figures / 2 (one of two GCDs); 1638.4 GB/s = 3276.8 / 2 (AMD: 1.6 TB/s per GCD); tdp 250 = 500 / 2; 4 of 8 IF links")

add(id="amd-mi300a", vendor="amd", name="Instinct MI300A APU", aliases=["mi300a", "instinct mi300a", "amd mi300a"],
    segment="datacenter", architecture="CDNA 3 + Zen 4 APU", arch_family="cdna3", year=2023, mem_gb=128, mem_type="HBM3", bw=5300, unified=True, ecc=True,
    tflops=tf(61.3, 490.3, 980.6, 980.6, 1961.2, 1961.2), sparsity=2, tdp=760, pcie=pcie(), ic=ic("infinity-fabric", None, 4),
    form="SH5 socket APU (24 Zen 4 cores + 228 CDNA3 CUs)", sw=rocm_sw("gfx942", "ROCm 6.0+"), video=vid(None),
    sources=["AMD Instinct MI300A data sheet https://www.amd.com/content/dam/amd/en/documents/instinct-tech-docs/data-sheets/amd-instinct-mi300a-data-sheet.pdf",
             EPOCH + " (row 'AMD Instinct MI300A': 128 GB, 5.3 TB/s, BF16 980.6, TF32 490.3, FP32 matrix 122.6, INT8 1961.2, 760 W)"],
    confidence="medium",
    notes="Unified HBM3 shared by CPU and GPU (unified_memory true). Epoch's FP32 122.6 is matrix FP32; vector FP32 = 61.3 (half, as MI300X 81.7 vs 163.4) - DERIVED. DERIVED fp8 = 2 x FP16 (CDNA3 FP8 = INT8 rate) = 1961.2. tdp 760 W from Epoch (AMD data sheet not re-read here). Infinity Fabric link bandwidth not recorded (null); 4 APUs per node (El Capitan). PCIe lanes depend on the platform (null).")
derived("amd-mi300a", "tflops.fp32", "Epoch FP32 matrix 122.6 / 2 (CDNA3 vector = half of matrix FP32)")
derived("amd-mi300a", "tflops.fp8", "2 x FP16 dense (CDNA3) = 1961.2, equal to the INT8 rate")

add(id="amd-mi350x", vendor="amd", name="Instinct MI350X", aliases=["mi350x", "instinct mi350x", "amd mi350x"],
    segment="datacenter", architecture="CDNA 4", arch_family="cdna4", year=2025, mem_gb=288, mem_type="HBM3E", bw=8000, ecc=True,
    tflops=tf(144.2, None, 2309.6, 2309.6, 4600, 4614), sparsity=2, tdp=1000, pcie=pcie(5, 16), ic=ic("infinity-fabric", 1075, 8),
    form="OAM (air-cooled)", sw=rocm_sw("gfx950", "ROCm 7.0+"), video=vid(None),
    sources=[EPOCH + " (row 'AMD Instinct MI350X': 288 GB, 8 TB/s, 1000 W, Tensor-FP16/BF16 2309.6, FP8 4600, INT8 4614)", "AMD Instinct MI350X brochure https://www.amd.com/content/dam/amd/en/documents/instinct-tech-docs/product-briefs/amd-instinct-mi350x-gpu-brochure.pdf", "gpu_specs.csv row amd-mi355x (link, TF32 status)"],
    confidence="medium",
    notes="Air-cooled sibling of the MI355X (lower clock and power). DERIVED fp32 vector = MI355X 157.3 x 2.2/2.4 GHz = 144.2. tf32 null (CDNA4 TF32 not confirmed, as MI355X). Infinity Fabric as MI355X (7 links, 1075 GB/s - 'verify' in gpu_specs.csv). FP8 4600 is Epoch's rounded value.")
derived("amd-mi350x", "tflops.fp32", "MI355X vector FP32 157.3 x (2.2 GHz / 2.4 GHz) = 144.2")

add(id="amd-rx-7900-xt", vendor="amd", name="Radeon RX 7900 XT", aliases=["7900 xt", "rx 7900 xt", "rx7900xt", "radeon rx 7900 xt"],
    segment="consumer", architecture="RDNA 3 (Navi 31)", arch_family="rdna3", year=2022, mem_gb=20, mem_type="GDDR6", bw=800,
    tflops=tf(51.6, None, 103.2, 103.2, None, None), sparsity=1, tdp=315, pcie=pcie(4, 16),
    form="PCIe desktop card", sw=rocm_sw("gfx1100"), video=vid(True), price=msrp(899, "2022-12", "AMD launch announcement"),
    sources=["AMD Radeon RX 7900 XT product page (84 CUs, 2.4 GHz boost, 20 GB GDDR6 320-bit, 800 GB/s, 315 W) https://www.amd.com/en/products/graphics/desktops/radeon/7000-series/amd-radeon-rx-7900xt.html", "gpu_specs.csv row amd-rx-7900-xtx (RDNA3 rates)"],
    confidence="medium",
    notes="DERIVED: FP32 = 84 CUs x 256 FLOP/clk (dual-issue, as marketed) x 2.4 GHz = 51.6; FP16/BF16 (WMMA) = 2x FP32 = 103.2 (same ratio as RX 7900 XTX). No FP8; INT8 WMMA rate not in AMD spec sheets -> null.")
derived("amd-rx-7900-xt", "tflops.fp32/fp16/bf16", "84 CUs x 256 FLOP/clk x 2.4 GHz = 51.6; FP16/BF16 = 2 x FP32")

add(id="amd-rx-7900-gre", vendor="amd", name="Radeon RX 7900 GRE", aliases=["7900 gre", "rx 7900 gre", "rx7900gre", "radeon rx 7900 gre"],
    segment="consumer", architecture="RDNA 3 (Navi 31)", arch_family="rdna3", year=2023, mem_gb=16, mem_type="GDDR6", bw=576,
    tflops=tf(46.0, None, 92.0, 92.0, None, None), sparsity=1, tdp=260, pcie=pcie(4, 16),
    form="PCIe desktop card", sw=rocm_sw("gfx1100"), video=vid(True), price=msrp(549, "2024-02", "AMD global launch announcement"),
    sources=["AMD Radeon RX 7900 GRE product page (80 CUs, 2245 MHz boost, 16 GB GDDR6 256-bit, 576 GB/s, 260 W) https://www.amd.com/en/products/graphics/desktops/radeon/7000-series/amd-radeon-rx-7900-gre.html", "gpu_specs.csv row amd-rx-7900-xtx (RDNA3 rates)"],
    confidence="medium",
    notes="DERIVED: FP32 = 80 CUs x 256 x 2.245 GHz = 46.0; FP16/BF16 = 2x FP32. Launched in China July 2023, globally Feb 2024 at $549. No FP8; INT8 WMMA null.")
derived("amd-rx-7900-gre", "tflops.fp32/fp16/bf16", "80 CUs x 256 FLOP/clk x 2.245 GHz = 46.0; FP16/BF16 = 2 x FP32")

add(id="amd-rx-7800-xt", vendor="amd", name="Radeon RX 7800 XT", aliases=["7800 xt", "rx 7800 xt", "rx7800xt", "radeon rx 7800 xt"],
    segment="consumer", architecture="RDNA 3 (Navi 32)", arch_family="rdna3", year=2023, mem_gb=16, mem_type="GDDR6", bw=624,
    tflops=tf(37.3, None, 74.6, 74.6, None, None), sparsity=1, tdp=263, pcie=pcie(4, 16),
    form="PCIe desktop card", sw=rocm_sw("gfx1101"), video=vid(True), price=msrp(499, "2023-09", "AMD launch announcement"),
    sources=["AMD Radeon RX 7800 XT product page (60 CUs, 2430 MHz boost, 16 GB GDDR6 256-bit, 624 GB/s, 263 W) https://www.amd.com/en/products/graphics/desktops/radeon/7000-series/amd-radeon-rx-7800-xt.html", "gpu_specs.csv row amd-rx-7900-xtx (RDNA3 rates)"],
    confidence="medium",
    notes="DERIVED: FP32 = 60 CUs x 256 x 2.43 GHz = 37.3; FP16/BF16 = 2x FP32. No FP8; INT8 WMMA null.")
derived("amd-rx-7800-xt", "tflops.fp32/fp16/bf16", "60 CUs x 256 FLOP/clk x 2.43 GHz = 37.3; FP16/BF16 = 2 x FP32")

add(id="amd-radeon-pro-w7800", vendor="amd", name="Radeon PRO W7800", aliases=["w7800", "radeon pro w7800", "pro w7800"],
    segment="workstation", architecture="RDNA 3 (Navi 31)", arch_family="rdna3", year=2023, mem_gb=32, mem_type="GDDR6", bw=576, ecc=True,
    tflops=tf(45.2, None, 90.5, 90.5, None, None), sparsity=1, tdp=260, pcie=pcie(4, 16),
    form="PCIe dual-slot workstation card (active)", sw=rocm_sw("gfx1100"), video=vid(True), price=msrp(2499, "2023-04", "AMD launch announcement"),
    sources=["AMD Radeon PRO W7800 product page (70 CUs, 45.2 TFLOPS FP32, 90.5 TFLOPS FP16, 32 GB GDDR6 ECC 256-bit, 576 GB/s, 260 W) https://www.amd.com/en/products/graphics/workstations/radeon-pro/w7800.html"],
    confidence="medium",
    notes="AMD peak single/half precision as published (FP16 = WMMA/dual-issue peak, like W7900 in gpu_specs.csv). BF16 taken equal to FP16 (RDNA3 WMMA). No FP8; INT8 WMMA not in spec sheet -> null.")

add(id="amd-rx-6900-xt", vendor="amd", name="Radeon RX 6900 XT", aliases=["6900 xt", "rx 6900 xt", "rx6900xt", "radeon rx 6900 xt"],
    segment="consumer", architecture="RDNA 2 (Navi 21)", arch_family="rdna2", year=2020, mem_gb=16, mem_type="GDDR6", bw=512,
    tflops=tf(23.04, None, 46.08, None, None, None), sparsity=1, tdp=300, pcie=pcie(4, 16),
    form="PCIe desktop card", sw=rocm_sw("gfx1030"), video=vid(False), price=msrp(999, "2020-12", "AMD launch announcement"),
    sources=["AMD Radeon RX 6900 XT product page (80 CUs, 2250 MHz boost, 16 GB GDDR6 256-bit, 512 GB/s, 128 MB Infinity Cache, 300 W) https://www.amd.com/en/products/graphics/amd-radeon-rx-6900-xt"],
    confidence="medium",
    notes="RDNA2 has no matrix units: fp16 46.08 is AMD's packed-FP16 vector peak (2x FP32), not a tensor rate. No native BF16/TF32/FP8 matrix path; INT8 dot-product rate not published -> null. AV1 decode only.")

add(id="amd-radeon-pro-w6800", vendor="amd", name="Radeon PRO W6800", aliases=["w6800", "radeon pro w6800", "pro w6800"],
    segment="workstation", architecture="RDNA 2 (Navi 21)", arch_family="rdna2", year=2021, mem_gb=32, mem_type="GDDR6", bw=512, ecc=True,
    tflops=tf(17.83, None, 35.66, None, None, None), sparsity=1, tdp=250, pcie=pcie(4, 16),
    form="PCIe dual-slot workstation card (active)", sw=rocm_sw("gfx1030"), video=vid(False), price=msrp(2249, "2021-06", "AMD launch announcement"),
    sources=["AMD Radeon PRO W6800 product page (60 CUs, 17.83 TFLOPS FP32, 35.66 TFLOPS FP16, 32 GB GDDR6 ECC, 512 GB/s, 250 W) https://www.amd.com/en/products/graphics/workstations/radeon-pro/w6800.html"],
    confidence="medium",
    notes="fp16 = packed-FP16 vector peak (RDNA2 has no matrix units). No BF16/TF32/FP8 matrix path; INT8 null.")

# ---------------------------------- Intel -----------------------------------
ARC_SPECS = "Intel Arc A-series official specifications (Intel blog, Sept 2022; summarised by 3DCenter) http://www.3dcenter.org/news/intel-gibt-die-spezifikationen-von-arc-a580-a750-und-a770-bekannt"


def xmx_hpg(n_xmx, ghz):
    return round(n_xmx * 128 * ghz / 1000, 1), round(n_xmx * 256 * ghz / 1000, 1)


fp16, i8 = xmx_hpg(448, 2.05)
add(id="intel-arc-a750", vendor="intel", name="Arc A750", aliases=["a750", "arc a750", "arca750", "intel arc a750"],
    segment="consumer", architecture="Xe-HPG (Alchemist ACM-G10)", arch_family="xe-hpg", year=2022, mem_gb=8, mem_type="GDDR6", bw=512,
    tflops=tf(14.7, None, fp16, fp16, None, i8), sparsity=1, tdp=225, pcie=pcie(4, 16),
    form="PCIe desktop dual-slot", sw=oneapi_sw(), video=vid(True), price=msrp(289, "2022-10", "Intel launch announcement"),
    sources=[ARC_SPECS, "Intel ARK Arc A750 https://www.intel.com/content/www/us/en/products/sku/227954/intel-arc-a750-graphics/specifications.html", "gpu_specs.csv row intel-arc-a770-16gb (XMX rates)"],
    confidence="medium",
    notes=f"28 Xe-cores / 448 XMX @ 2.05 GHz, 8 GB GDDR6 256-bit 512 GB/s, 225 W. DERIVED XMX: 448 x 2.05 GHz x 128 FP16 / 256 INT8 ops per clock = {fp16} / {i8}. No TF32/FP8 XMX.")
derived("intel-arc-a750", "tflops.fp16/bf16/int8", "448 XMX x 2.05 GHz x (128 FP16 / 256 INT8 ops per clock)")

fp16, i8 = xmx_hpg(384, 1.7)
add(id="intel-arc-a580", vendor="intel", name="Arc A580", aliases=["a580", "arc a580", "arca580", "intel arc a580"],
    segment="consumer", architecture="Xe-HPG (Alchemist ACM-G10)", arch_family="xe-hpg", year=2023, mem_gb=8, mem_type="GDDR6", bw=512,
    tflops=tf(10.4, None, fp16, fp16, None, i8), sparsity=1, tdp=175, pcie=pcie(4, 16),
    form="PCIe desktop dual-slot (board-partner designs)", sw=oneapi_sw(), video=vid(True), price=msrp(179, "2023-10", "Intel launch announcement"),
    sources=[ARC_SPECS, "gpu_specs.csv row intel-arc-a770-16gb (XMX rates)"],
    confidence="medium",
    notes=f"24 Xe-cores / 384 XMX @ 1.7 GHz, 8 GB GDDR6 256-bit 512 GB/s, 175 W. DERIVED XMX: 384 x 1.7 GHz x 128 / 256 = {fp16} / {i8}. Announced 2022, on sale Oct 2023.")
derived("intel-arc-a580", "tflops.fp16/bf16/int8", "384 XMX x 1.7 GHz x (128 FP16 / 256 INT8 ops per clock)")

add(id="intel-arc-a770-8gb", vendor="intel", name="Arc A770 8GB", aliases=["a770 8gb", "arc a770 8gb", "a770-8gb", "arc-a770-8gb"],
    segment="consumer", architecture="Xe-HPG (Alchemist ACM-G10)", arch_family="xe-hpg", year=2022, mem_gb=8, mem_type="GDDR6", bw=512,
    tflops=tf(17.2, None, 137.6, 137.6, None, 275.2), sparsity=1, tdp=225, pcie=pcie(4, 16),
    form="PCIe desktop dual-slot", sw=oneapi_sw(), video=vid(True), price=msrp(329, "2022-10", "Intel launch announcement"),
    sources=[ARC_SPECS, "Intel ARK Arc A770 (8 GB: 16 Gbps, 512 GB/s)", "gpu_specs.csv row intel-arc-a770-16gb (same compute)"],
    confidence="medium",
    notes="Same GPU and clocks as the 16 GB model (DERIVED XMX figures copied from gpu_specs.csv); 8 GB at 16 Gbps = 512 GB/s (16 GB model: 17.5 Gbps, 560 GB/s).")
derived("intel-arc-a770-8gb", "tflops.fp16/bf16/int8", "copied from the 16 GB model's derived XMX figures (512 XMX x 2.1 GHz)")

fp16, i8 = xmx_hpg(128, 2.0)
add(id="intel-arc-a380", vendor="intel", name="Arc A380", aliases=["a380", "arc a380", "arca380", "intel arc a380"],
    segment="consumer", architecture="Xe-HPG (Alchemist ACM-G11)", arch_family="xe-hpg", year=2022, mem_gb=6, mem_type="GDDR6", bw=186,
    tflops=tf(4.1, None, fp16, fp16, None, i8), sparsity=1, tdp=75, pcie=pcie(4, 8),
    form="PCIe desktop card", sw=oneapi_sw(), video=vid(True), price=None,
    sources=["Intel Arc A-series official specifications (A380: 8 Xe-cores, 128 XMX, 2.0 GHz, 6 GB GDDR6, 186 GB/s; reported by https://www.svethardware.cz/intel-zverejnil-oficialni-specifikace-grafickych-karet-arc/58344)", "Intel ARK Arc A380", "gpu_specs.csv row intel-arc-a770-16gb (XMX rates)"],
    confidence="medium",
    notes=f"DERIVED: FP32 = 8 Xe-cores x 256 FLOP/clk x 2.0 GHz = 4.1; XMX = 128 x 2.0 GHz x 128 / 256 = {fp16} / {i8}. TBP 75 W. US price not recorded (null).")
derived("intel-arc-a380", "tflops.fp32/fp16/bf16/int8", "8 Xe-cores x 256 FLOP/clk x 2.0 GHz; 128 XMX x 2.0 GHz x (128 / 256 ops per clock)")

fp16, i8 = xmx_hpg(256, 2.05)
add(id="intel-arc-pro-a60", vendor="intel", name="Arc Pro A60", aliases=["pro a60", "arc pro a60", "arcproa60"],
    segment="workstation", architecture="Xe-HPG (Alchemist ACM-G12)", arch_family="xe-hpg", year=2023, mem_gb=12, mem_type="GDDR6", bw=384,
    tflops=tf(8.4, None, fp16, fp16, None, i8), sparsity=1, tdp=130, pcie=pcie(4, 16),
    form="PCIe single-slot workstation card", sw=oneapi_sw(), video=vid(True), price=None,
    sources=["Intel Arc Pro A60 announcement (16 Xe-cores, 256 XMX, 16 RT units, 12 GB GDDR6 192-bit) https://tech.everyeye.it/notizie/intel-ufficiali-nulove-intel-arc-pro-a60-a60m-pc-laptop-653471.html", "Intel ARK Arc Pro A60 (2.05 GHz, 384 GB/s, 130 W)", "gpu_specs.csv row intel-arc-a770-16gb (XMX rates)"],
    confidence="medium",
    notes=f"DERIVED: FP32 = 16 x 256 x 2.05 GHz = 8.4; XMX = 256 x 2.05 GHz x 128 / 256 = {fp16} / {i8}. No public MSRP.")
derived("intel-arc-pro-a60", "tflops.fp32/fp16/bf16/int8", "16 Xe-cores x 256 x 2.05 GHz; 256 XMX x 2.05 GHz x (128 / 256 ops per clock)")

add(id="intel-arc-b570", vendor="intel", name="Arc B570", aliases=["b570", "arc b570", "arcb570", "intel arc b570"],
    segment="consumer", architecture="Xe2-HPG (Battlemage BMG-G21)", arch_family="xe2", year=2025, mem_gb=10, mem_type="GDDR6", bw=380,
    tflops=tf(11.5, None, 101.5, 101.5, None, 203), sparsity=1, tdp=150, pcie=pcie(4, 8),
    form="PCIe desktop dual-slot", sw=oneapi_sw(), video=vid(True), price=msrp(219, "2025-01", "Intel launch announcement (2024-12-03)"),
    sources=["Intel Arc B-series launch specifications (B570: 18 Xe2-cores, 10 GB GDDR6 160-bit, 380 GB/s, 203 TOPS, 150 W, $219) https://www.techcommand.uk/the-new-intel-arc-b580-and-b570-graphics-are-now-official-price-and-specifications/", "Intel ARK Arc B570 (2.5 GHz graphics clock)", "gpu_specs.csv row intel-arc-b580 (FP16 = INT8/2 convention)"],
    confidence="medium",
    notes="DERIVED: FP32 = 18 Xe2-cores x 256 FLOP/clk x 2.5 GHz = 11.5; FP16/BF16 XMX = Intel's 203 INT8 TOPS / 2 = 101.5. tf32 null (Xe2 XMX TF32 not confirmed). PCIe 4.0 x8.")
derived("intel-arc-b570", "tflops.fp32/fp16/bf16", "18 Xe2-cores x 256 x 2.5 GHz = 11.5; FP16 = 203 INT8 TOPS / 2")

add(id="intel-arc-pro-b50", vendor="intel", name="Arc Pro B50 16GB", aliases=["pro b50", "arc pro b50", "b50", "arc pro b50 16gb"],
    segment="workstation", architecture="Xe2-HPG (Battlemage BMG-G21)", arch_family="xe2", year=2025, mem_gb=16, mem_type="GDDR6", bw=224,
    tflops=tf(10.6, None, 85, 85, None, 170), sparsity=1, tdp=70, pcie=pcie(5, 8),
    form="PCIe low-profile dual-slot, slot-powered", sw=oneapi_sw(), video=vid(True), price=msrp(349, "2025-09", "Intel suggested retail price (Architosh review, 2025-09)"),
    sources=["Intel Arc Pro B50 specifications (16 Xe2-cores, 128 XMX, 16 GB GDDR6 128-bit, 224 GB/s, up to 170 INT8 TOPS, 70 W)", "Architosh, 'Product review: Intel Arc Pro B50 GPU' (MSRP $349; XMX 2048 FP16 / 4096 INT8 ops per clock) https://architosh.com/2025/09/product-review-intel-arc-pro-b50-gpu", "technical.city Arc Pro B50 page (224 GB/s, PCIe 5.0 x8, 2.6 GHz boost)"],
    confidence="low",
    notes="DERIVED: FP16/BF16 = 170 INT8 TOPS / 2 = 85 (gpu_specs.csv B-series convention); FP32 = 16 Xe2-cores x 256 x 2.6 GHz = 10.6 (2.6 GHz from a third-party spec page). tf32 null.")
derived("intel-arc-pro-b50", "tflops.fp32/fp16/bf16", "16 Xe2-cores x 256 x 2.6 GHz = 10.6; FP16 = 170 INT8 TOPS / 2")

# ---------------------------------- Apple -----------------------------------
def apple(id_, name, fam, year, mem, mtype, bw, seg, aliases, sources, conf="medium", notes=""):
    add(id=id_, vendor="apple", name=name, aliases=aliases, segment=seg, architecture=f"Apple GPU ({fam.replace('apple-', '').upper()} family)",
        arch_family=fam, year=year, mem_gb=mem, mem_type=mtype, bw=bw, unified=True, tflops=tf(), sparsity=1, tdp=None,
        pcie=pcie(), ic=ic("none"), form="SoC (unified memory shared with the CPU)", sw=METAL_SW, video=vid(False), sources=sources,
        confidence=conf,
        notes=(notes + " " if notes else "") + "Unified memory: the GPU can use most but not all of it (macOS keeps a share for the system). Apple publishes no per-precision TFLOPS or TDP -> null; no sourced GPU price (Apple sells systems). No hardware AV1 encode.")


apple("apple-m1-7c-8gb", "M1 (7-core GPU, 8GB)", "apple-m1", 2020, 8, "LPDDR4X", 66.7, "consumer",
      ["m1 7-core 8gb", "m1-7c-8gb", "apple m1 8gb 7-core"],
      ["Apple newsroom, M2 announcement (2022-06): M2 has 100 GB/s unified memory bandwidth, '50 percent more than M1'", "Apple MacBook Air (M1, 2020) tech specs: 7-core GPU, 8 GB unified memory"],
      conf="low",
      notes="DERIVED bandwidth: Apple never stated the M1's figure; 100 GB/s / 1.5 = 66.7 GB/s from Apple's M2 comparison (third-party sources give 68.25 GB/s = LPDDR4X-4266 x 128-bit).")
derived("apple-m1-7c-8gb", "memory_bandwidth_gbps", "Apple: M2's 100 GB/s is '50% more than M1' -> 100 / 1.5 = 66.7 GB/s")
apple("apple-m1-max-32c-64gb", "M1 Max (32-core GPU, 64GB)", "apple-m1", 2021, 64, "LPDDR5", 400, "workstation",
      ["m1 max 64gb", "m1-max-32c-64gb", "apple m1 max 64gb"],
      ["Apple newsroom, 'Introducing M1 Pro and M1 Max' (2021-10): up to 32-core GPU, 400 GB/s, up to 64 GB unified memory", "Apple MacBook Pro (2021) / Mac Studio (2022) tech specs"])
apple("apple-m1-ultra-64c-128gb", "M1 Ultra (64-core GPU, 128GB)", "apple-m1", 2022, 128, "LPDDR5", 800, "workstation",
      ["m1 ultra 128gb", "m1-ultra-64c-128gb", "apple m1 ultra 128gb"],
      ["Apple newsroom, M1 Ultra announcement (2022-03): up to 64-core GPU, 800 GB/s, up to 128 GB unified memory", "Mac Studio (2022) tech specs"])
apple("apple-m2-max-38c-96gb", "M2 Max (38-core GPU, 96GB)", "apple-m2", 2023, 96, "LPDDR5", 400, "workstation",
      ["m2 max 96gb", "m2-max-38c-96gb", "apple m2 max 96gb"],
      ["Apple newsroom, M2 Pro/M2 Max announcement (2023-01): up to 38-core GPU, 400 GB/s, up to 96 GB", "Ars Technica via blog.patti.tech (M2 Max: 38-core GPU, up to 96 GB, 400 GB/s)"])
apple("apple-m2-ultra-76c-192gb", "M2 Ultra (76-core GPU, 192GB)", "apple-m2", 2023, 192, "LPDDR5", 800, "workstation",
      ["m2 ultra 192gb", "m2-ultra-76c-192gb", "apple m2 ultra 192gb"],
      ["Apple newsroom, 'Apple introduces M2 Ultra' (2023-06-05): up to 76-core GPU, 192 GB unified memory, 800 GB/s (reported by https://lowyat.net/2023/301593/apples-m2-ultra-chipset-official and others)", "Mac Studio / Mac Pro (2023) tech specs"])
apple("apple-m3-max-40c-64gb", "M3 Max (40-core GPU, 64GB)", "apple-m3", 2023, 64, "LPDDR5", 400, "workstation",
      ["m3 max 64gb", "m3-max-40c-64gb", "apple m3 max 64gb"],
      ["Apple MacBook Pro (M3 Max, Nov 2023) tech specs: 16-core CPU / 40-core GPU with 48, 64 or 128 GB, 400 GB/s", "macmegasite.com (M3 Max: 40-core GPU, 400 GB/s) https://macmegasite.com/2024/10/30/m4-max-chip-has-16-core-cpu-40-core-gpu-and-35-increase-in-memory-bandwidth"])
apple("apple-m3-max-40c-128gb", "M3 Max (40-core GPU, 128GB)", "apple-m3", 2023, 128, "LPDDR5", 400, "workstation",
      ["m3 max 128gb", "m3-max-40c-128gb", "apple m3 max 128gb"],
      ["Apple MacBook Pro (M3 Max, Nov 2023) tech specs: 16-core CPU / 40-core GPU with 48, 64 or 128 GB, 400 GB/s"])
apple("apple-m4-pro-20c-64gb", "M4 Pro (20-core GPU, 64GB)", "apple-m4", 2024, 64, "LPDDR5X", 273, "consumer",
      ["m4 pro 64gb", "m4-pro-20c-64gb", "apple m4 pro 64gb"],
      ["Apple newsroom, M4 Pro announcement (2024-10): up to 20-core GPU, 273 GB/s, up to 64 GB (Mac mini)", "goodnewsapodcast.com M4-family table (M4 Pro 24/48/64 GB, 273 GB/s)"])

# ----------------------------------------------------------------------------
CSV_KEYS = ["id", "vendor", "name", "aliases", "segment", "architecture", "arch_family", "launch_year", "memory_bytes",
        "memory_type", "memory_bandwidth_gbps", "unified_memory", "ecc", "tflops", "sparsity_multiplier", "tdp_watts",
        "pcie", "interconnect", "form_factor", "software", "video", "price", "sources", "confidence", "notes"]
FAMILIES = {"volta", "turing", "ampere", "ada", "hopper", "blackwell", "cdna1", "cdna2", "cdna3", "cdna4", "rdna2", "rdna3",
            "rdna4", "xe-hpg", "xe-hpc", "xe2", "gaudi2", "gaudi3", "apple-m1", "apple-m2", "apple-m3", "apple-m4", "orin"}
FP8_OK = {"ada", "hopper", "blackwell", "cdna3", "cdna4", "rdna4", "gaudi2", "gaudi3"}
PLATFORM = {"nvidia": "cuda", "amd": "rocm", "intel": None, "apple": "metal"}


def normalize(s):
    return re.sub(r"[\s\-_.]", "", s.lower())


def validate_csv_build(gpus):
    errs = []
    seen = {}
    for e in gpus:
        if list(e.keys()) != CSV_KEYS:
            errs.append(f"{e['id']}: keys {list(e.keys())}")
        if not re.fullmatch(r"[a-z0-9]+(-[a-z0-9]+)*", e["id"]):
            errs.append(f"{e['id']}: bad id")
        if e["vendor"] not in PLATFORM:
            errs.append(f"{e['id']}: vendor")
        if e["segment"] not in ("consumer", "workstation", "datacenter"):
            errs.append(f"{e['id']}: segment")
        if e["arch_family"] not in FAMILIES:
            errs.append(f"{e['id']}: family")
        if e["confidence"] not in ("high", "medium", "low"):
            errs.append(f"{e['id']}: confidence")
        if not isinstance(e["memory_bytes"], int) or e["memory_bytes"] % (2 ** 30):
            errs.append(f"{e['id']}: memory_bytes")
        bw = e["memory_bandwidth_gbps"]
        if not isinstance(bw, (int, float)) or not (0 < bw <= 20000):
            errs.append(f"{e['id']}: bandwidth {bw}")
        t = e["tflops"]
        if list(t.keys()) != ["fp32", "tf32", "fp16", "bf16", "fp8", "int8"]:
            errs.append(f"{e['id']}: tflops keys")
        if t["fp8"] is not None and e["arch_family"] not in FP8_OK:
            errs.append(f"{e['id']}: fp8 on {e['arch_family']}")
        if e["arch_family"] in ("volta", "turing") and (t["bf16"] is not None or t["tf32"] is not None):
            errs.append(f"{e['id']}: bf16/tf32 on volta/turing")
        if e["sparsity_multiplier"] not in (1, 2):
            errs.append(f"{e['id']}: sparsity")
        if list(e["pcie"].keys()) != ["gen", "lanes"]:
            errs.append(f"{e['id']}: pcie keys")
        i = e["interconnect"]
        if list(i.keys()) != ["type", "bandwidth_gbps", "max_gpus"] or i["type"] not in ("nvlink", "infinity-fabric", "xe-link", "ethernet", "none"):
            errs.append(f"{e['id']}: interconnect")
        if i["type"] == "none" and (i["max_gpus"] != 1 or i["bandwidth_gbps"] is not None):
            errs.append(f"{e['id']}: interconnect none")
        if i["type"] != "none" and not (isinstance(i["max_gpus"], int) and i["max_gpus"] >= 2):
            errs.append(f"{e['id']}: max_gpus")
        s = e["software"]
        if list(s.keys()) != ["platform", "compute_capability", "gfx_target", "min_stack"]:
            errs.append(f"{e['id']}: software keys")
        exp = PLATFORM[e["vendor"]]
        if exp and s["platform"] != exp:
            errs.append(f"{e['id']}: platform")
        if e["vendor"] == "intel" and s["platform"] not in ("oneapi", "habana"):
            errs.append(f"{e['id']}: intel platform")
        if list(e["video"].keys()) != ["av1_encode", "nvenc"]:
            errs.append(f"{e['id']}: video keys")
        if e["vendor"] != "nvidia" and e["video"]["nvenc"] is not None:
            errs.append(f"{e['id']}: nvenc on non-nvidia")
        p = e["price"]
        if p is not None:
            if list(p.keys()) != ["usd", "kind", "date", "source"] or p["kind"] not in ("msrp", "street-estimate") or not re.fullmatch(r"\d{4}-\d{2}", p["date"]):
                errs.append(f"{e['id']}: price")
        if not e["sources"]:
            errs.append(f"{e['id']}: sources")
        if e["id"] in DERIVED and "DERIVED" not in e["notes"]:
            errs.append(f"{e['id']}: DERIVED not in notes")
        if e["confidence"] == "high" and e["id"] in DERIVED and e["id"] not in ("amd-mi250x-1gcd",):
            pass
        names = {normalize(e["id"])} | {normalize(a) for a in e["aliases"]}
        for a in [e["id"]] + e["aliases"]:
            if a != a.strip() or not a:
                errs.append(f"{e['id']}: alias {a!r}")
        for nname in names:
            if nname in seen and seen[nname] != e["id"]:
                errs.append(f"name collision {nname!r}: {seen[nname]} vs {e['id']}")
            seen[nname] = e["id"]
    # forbidden ambiguous aliases
    for bad in ["a100", "h100", "h200", "v100", "gh200", "3080", "a770", "4060ti", "rtx6000", "m3max", "a10080gb", "a10040gb"]:
        if bad in seen:
            errs.append(f"ambiguous alias {bad!r} used by {seen[bad]}")
    return errs


VENDOR_ORDER = {"nvidia": 0, "amd": 1, "intel": 2, "apple": 3}


def build():
    gpus = convert_csv() + ADDED
    gpus.sort(key=lambda e: (e["vendor"], e["id"]))  # alphabetical: amd, apple, intel, nvidia
    return gpus


def doc_tables(gpus):
    by_id = {e["id"]: e for e in gpus}
    lines = ["| card (id) | field(s) | how |", "|---|---|---|"]
    for e in gpus:
        for field, how in DERIVED.get(e["id"], []):
            lines.append(f"| {e['name']} (`{e['id']}`) | {field} | {how} |")
    derived_tbl = "\n".join(lines)
    rows = ["| id | name | memory | GB/s | FP16/BF16 dense (FP32 acc) | confidence | in reference CSV |", "|---|---|---|---|---|---|---|"]
    csv_ids = {r["id"] for r in csv.DictReader(open(CSV_PATH, newline=""))}
    for e in gpus:
        t = e["tflops"]
        f16 = t["bf16"] if t["bf16"] is not None else t["fp16"]
        rows.append(f"| `{e['id']}` | {e['name']} | {e['memory_bytes'] // GIB} GB | {e['memory_bandwidth_gbps']} | {f16 if f16 is not None else '-'} | {e['confidence']} | {'yes' if e['id'] in csv_ids else 'added'} |")
    return derived_tbl, "\n".join(rows), by_id



# ============================================================================
# 2026-12 extension. data/gpus.json is the catalog's source of truth: it was
# first written by build() above and has been edited since (form, cooling,
# PCI ids, street prices, regions). This part of the script no longer writes
# the file from the CSV; it applies the hand-sourced changes below to the JSON
# as it is (PATCHES for existing entries, EXTENSION for new ones), validates
# the result and refreshes the generated tables of docs/catalog.md. Running it
# twice changes nothing; --check fails when the JSON and this script disagree.
# ============================================================================

# Key order of an entry in data/gpus.json. Keys in brackets in ENTRY_OPTIONAL
# appear only when they have a value.
ENTRY_KEYS = ["id", "vendor", "name", "aliases", "segment", "architecture", "arch_family", "launch_year",
              "memory_bytes", "memory_type", "memory_bandwidth_gbps", "unified_memory", "unified_pool", "ecc",
              "tflops", "sparsity_multiplier", "tdp_watts", "power", "pcie", "interconnect", "form_factor", "form",
              "cooling", "software", "video", "price", "launch_price", "pci_ids", "sources", "confidence", "notes",
              "region", "cloud_only"]
ENTRY_OPTIONAL = {"cooling", "launch_price", "pci_ids", "region", "cloud_only"}
TFLOPS_KEYS = ["fp32", "tf32", "fp16", "bf16", "fp8", "fp4", "int8"]
ALL_FAMILIES = FAMILIES | {"maxwell", "pascal", "gcn5", "rdna3.5"}
PRICE_KINDS = {"msrp", "street", "used", "list", "street-estimate"}

TURING_WP = "NVIDIA Turing GPU Architecture whitepaper (Appendix A: GeForce RTX 2080 Ti / 2080 / 2070 Founders Edition and reference tables) https://images.nvidia.com/aem-dam/en-zz/Solutions/design-visualization/technologies/turing-architecture/NVIDIA-Turing-Architecture-Whitepaper.pdf"
RTX_BW_WP = "NVIDIA RTX Blackwell GPU Architecture whitepaper https://images.nvidia.com/aem-dam/Solutions/geforce/blackwell/nvidia-rtx-blackwell-gpu-architecture.pdf"
NV_LAPTOP40 = "NVIDIA GeForce RTX 40 Series laptops spec comparison (CUDA cores, boost clock range, memory, TGP range, AI TOPS) https://www.nvidia.com/en-us/geforce/laptops/40-series/"
NV_LAPTOP50 = "NVIDIA GeForce RTX 50 Series laptops spec comparison https://www.nvidia.com/en-us/geforce/laptops/50-series/"
NEOWIN_50L = "Neowin, 'RTX 50-powered laptops promise double the performance' (2025-01-07): AI TOPS 1824/1334/992/798, CUDA cores 10496/7680/5888/4608, power 95-150/80-150/60-115/50-100 W, 24GB 256-bit / 16GB 256-bit / 12GB 192-bit / 8GB 128-bit GDDR7 https://www.neowin.net/news/rtx-50-powered-laptops-promise-double-the-performance-and-40-better-battery-life/"
HMC = "hmc-tech.com GPU database (third-party, per-TGP laptop clocks) https://hmc-tech.com/gpu/"
AMD_RX7000 = "AMD Radeon RX 7000 series product pages https://www.amd.com/en/products/graphics/desktops/radeon.html"
AMD_RX6000 = "AMD Radeon RX 6000 series product pages https://www.amd.com/en/products/graphics/desktops/radeon.html"
AMD_RX9000 = "AMD Radeon RX 9060 XT product page https://www.amd.com/en/products/graphics/desktops/radeon/9000-series/amd-radeon-rx-9060xt.html"
STRIX = "AMD Ryzen AI Max 300 specifications (Ryzen AI Max+ 395: Radeon 8060S 40 CUs 2900 MHz; Max 390 / 385: Radeon 8050S 32 CUs 2800 MHz; cTDP 45-120 W), AMD CES 2025 table as reproduced by Comptoir Hardware (2025-02) https://www.comptoir-hardware.com/actus/processeurs/47986-lapu-strix-halo-decortique-et-teste--promesse-tenuen.html"
STRIX_PAGE = "AMD Ryzen AI Max+ 395 product page https://www.amd.com/en/products/processors/laptop/ryzen/ai-300-series/amd-ryzen-ai-max-plus-395.html"
STRIX_MEM = "svethardware.cz, AMD Ryzen AI Max (Strix Halo) launch: LPDDR5X-8000, 256-bit, 256 GB/s, default TDP 55 W configurable 45-120 W https://www.svethardware.cz/amd-predstavuje-ryzen-ai-max-strix-halo-s-az-16-jadry-a-gpu-se-40-cu/61477"
AMD_VGM = "AMD blog, 'FAQs: AMD Variable Graphics Memory, VRAM, AI Model Sizes' (2025-07-29): Ryzen AI Max+ 395 (128GB) with 96GB of Variable Graphics Memory https://www.amd.com/en/blogs/2025/faqs-amd-variable-graphics-memory-vram-ai-model-sizes-quantization-mcp-more.html"
ROCM_STRIX = "AMD ROCm docs, 'AMD Strix Halo system optimization' (2026-02-20): GTT is the pool of system RAM mapped for GPU compute (PyTorch); amdgpu.gttsize / ttm.pages_limit set its size https://rocm.docs.amd.com/en/latest/how-to/system-optimization/strixhalo.html"
STRIX_GTT_DEFAULT = "StrixHaloMemory.md (Framework Desktop notes, 2026-05): 'GTT ... default size on recent Linux is roughly half of system RAM' https://g.o00.io/noisedestroyers/localgenai/raw/branch/main/StrixHaloMemory.md"
JETSON = "NVIDIA Jetson AGX Orin Series Technical Brief v1.2 and Jetson modules comparison (GPU cores, GPU max frequency, sparse INT8 TOPS, memory, power modes) https://developer.nvidia.com/embedded/jetson-modules"
APPLE_WSS = ("Metal recommendedMaxWorkingSetSize as printed by llama.cpp: 21845.34 MiB on 32 GB Macs (ggml-org/llama.cpp#2011, ollama/ollama#434) "
             "and 5461.34 MiB on an 8 GB Mac (ggml-org/llama.cpp#5207) = 2/3; 96 GB of 128 GB and 48 GB of 64 GB = 3/4 "
             "(https://stencel.io/posts/apple-silicon-limitations-with-usage-on-local-llm%20.html; gpustack/gpustack#1375: '75% of total RAM'); "
             "36 GB -> ~27 GB (https://www.thinkdifferent.blog/blog/the-macbook-pro-setting-that-doubles-your-ai-performance/). "
             "macOS 26 has been measured higher on some machines (107.52 GiB of 128 GiB, antirez/ds4#893), so these are conservative defaults")
APPLE_WIRED = "sudo sysctl iogpu.wired_limit_mb=<MiB> (macOS 14+, until reboot; 0 = the default)"
METAL_BENCH = "philipturner/metal-benchmarks README (GPU clock, cores, GOPS32 = GOPS16 for M1/M2) https://github.com/philipturner/metal-benchmarks"
APPLEGPUINFO_M3 = "philipturner/applegpuinfo#4 (M3 Max powermetrics: GPU clock 1.380 GHz) and #15 (M3: 1.38 GHz) https://github.com/philipturner/applegpuinfo/issues/4"
HMC_M4 = "hmc-tech.com Apple GPU pages (third-party: M4 / M4 Pro GPU 1470 MHz, M4 Max 1678 MHz) https://hmc-tech.com/gpu/apple-10-core-m4-fl-vs-apple-8-core-m4-fl"


def tf_all(fp32=None, tf32=None, fp16=None, bf16=None, fp8=None, fp4=None, int8=None):
    return {"fp32": fp32, "tf32": tf32, "fp16": fp16, "bf16": bf16, "fp8": fp8, "fp4": fp4, "int8": int8}


def r1(x):
    return round(x, 1)


def geforce_tensor(sms, ghz, family):
    """Dense per-SM rates of GeForce parts (FP32 accumulate at half rate): TF32 256, FP16/BF16 512, FP8 1024,
    INT8 2048 FLOP/clk/SM (Ada, Blackwell). Ampere GeForce has no FP8. Turing: FP16 512 (FP32 acc), INT8 2048."""
    k = sms * ghz / 1000.0
    if family == "turing":
        return dict(fp16=r1(k * 512), int8=r1(k * 2048))
    out = dict(tf32=r1(k * 256), fp16=r1(k * 512), bf16=r1(k * 512), int8=r1(k * 2048))
    if family in ("ada", "blackwell"):
        out["fp8"] = r1(k * 1024)
    return out


def rocm(gfx, min_stack=None):
    return {"platform": "rocm", "compute_capability": None, "gfx_target": gfx, "min_stack": min_stack}


def cuda(cc, min_stack=None):
    return {"platform": "cuda", "compute_capability": cc, "gfx_target": None,
            "min_stack": min_stack if min_stack is not None else CUDA_MIN.get(cc)}


def pcie3(gen=None, lanes=None, p2p=None):
    return {"gen": gen, "lanes": lanes, "p2p": p2p}


def link(type_="none", bw=None, n=1, topology=None):
    if topology is None:
        topology = "none" if type_ == "none" else "bridge"
    return {"type": type_, "bandwidth_gbps": bw, "max_gpus": n, "topology": topology}


def dated(kind, usd, date, source):
    assert kind in PRICE_KINDS
    return {"usd": usd, "kind": kind, "date": date, "source": source}


def power_range(lo, hi, at, source):
    return {"min_watts": lo, "max_watts": hi, "tflops_at_watts": at, "source": source}


def pool(default, max_share, setting, source):
    return {"default_share": default, "max_share": max_share, "setting": setting, "source": source}


def entry(id_, vendor, name, aliases, segment, architecture, family, year, mem_gb, mem_type, bw, *, tflops, sources,
          confidence, notes, unified=False, unified_pool=None, ecc=None, sparsity=1, tdp=None, power=None,
          pcie=None, ic=None, form_factor="PCIe desktop card", form="card", cooling=None, sw=None, video=None,
          price=None, launch_price=None, pci_ids=None, region=None, cloud_only=None, derived_how=None):
    e = {"id": id_, "vendor": vendor, "name": name, "aliases": aliases, "segment": segment,
         "architecture": architecture, "arch_family": family, "launch_year": year,
         "memory_bytes": int(round(mem_gb * GIB)), "memory_type": mem_type, "memory_bandwidth_gbps": bw,
         "unified_memory": unified, "unified_pool": unified_pool, "ecc": ecc, "tflops": tflops,
         "sparsity_multiplier": sparsity, "tdp_watts": tdp, "power": power,
         "pcie": pcie or pcie3(), "interconnect": ic or link(), "form_factor": form_factor, "form": form,
         "cooling": cooling, "software": sw, "video": video or {"av1_encode": None, "nvenc": None},
         "price": price, "launch_price": launch_price, "pci_ids": pci_ids, "sources": sources,
         "confidence": confidence, "notes": notes, "region": region, "cloud_only": cloud_only}
    if derived_how:
        for field, how in derived_how:
            derived(id_, field, how)
    return e


EXTENSION = []


def ext(*a, **k):
    EXTENSION.append(entry(*a, **k))


# ------------------------------ NVIDIA GeForce desktop ---------------------------------------------
def geforce(id_, name, aliases, arch, family, year, mem_gb, mem_type, bw, sms, cores, ghz, tdp, pcie_gen, lanes, cc,
            price, sources, notes, nvenc=1, av1=None, ic=None, confidence="medium", check=None, region=None):
    t = geforce_tensor(sms, ghz, family)
    fp32 = r1(cores * 2 * ghz / 1000.0)
    how = f"{sms} SMs x {ghz} GHz x GeForce per-SM rates; FP32 = {cores} x 2 x {ghz} GHz = {fp32}"
    if check:
        how += f"; {check}"
    ext(id_, "nvidia", name, aliases, "consumer", arch, family, year, mem_gb, mem_type, bw,
        tflops=tf_all(fp32=fp32, tf32=t.get("tf32"), fp16=t["fp16"], bf16=t.get("bf16"), fp8=t.get("fp8"),
                      int8=t["int8"]),
        sparsity=1 if family == "turing" else 2, tdp=tdp, pcie=pcie3(pcie_gen, lanes, False), ic=ic,
        sw=cuda(cc), video={"av1_encode": av1 if av1 is not None else family in ("ada", "blackwell"), "nvenc": nvenc},
        price=price, sources=sources, confidence=confidence, region=region,
        notes=f"DERIVED: {how}. " + notes, derived_how=[("tflops.*", how)])


ADA_DS = [ADA_WP, CUDA_GPUS]
AMPERE_DS = [GA102_WP, CUDA_GPUS]

geforce("nvidia-rtx-4060-8gb", "GeForce RTX 4060", ["4060", "rtx 4060", "rtx4060", "geforce rtx 4060", "rtx 4060 8gb"],
        "Ada Lovelace (AD107)", "ada", 2023, 8, "GDDR6", 272, 24, 3072, 2.46, 115, 4, 8, "8.9",
        dated("msrp", 299, "2023-06", "NVIDIA launch announcement (RTX 4060 family, availability 2023-06-29)"),
        ["NVIDIA GeForce RTX 4060 family spec page (3072 CUDA cores, 2.46 GHz boost, 8 GB GDDR6 128-bit, 242 AI TOPS, 115 W) https://www.nvidia.com/en-us/geforce/graphics-cards/40-series/rtx-4060-4060ti/"] + ADA_DS,
        "272 GB/s = 17 Gbps x 128-bit. PCIe 4.0 x8. FP16/FP8 with FP16 accumulate 60.5/120.9 (twice the FP32-accumulate figures).",
        check="x4096 = 241.8 = NVIDIA's 242 AI TOPS")
geforce("nvidia-rtx-3060-ti", "GeForce RTX 3060 Ti", ["3060 ti", "rtx 3060 ti", "rtx3060ti", "geforce rtx 3060 ti"],
        "Ampere (GA104)", "ampere", 2020, 8, "GDDR6", 448, 38, 4864, 1.665, 200, 4, 16, "8.6",
        dated("msrp", 399, "2020-12", "NVIDIA launch announcement (RTX 3060 Ti, 2020-12-02)"),
        ["NVIDIA GeForce RTX 3060 family spec page (4864 CUDA cores, 1.665 GHz boost, 8 GB GDDR6 256-bit, 200 W) https://www.nvidia.com/en-us/geforce/graphics-cards/30-series/rtx-3060-3060ti/"] + AMPERE_DS,
        "448 GB/s = 14 Gbps x 256-bit (a 2022 GDDR6X variant has 608 GB/s and is not a separate entry). FP16 with FP16 accumulate 64.8. No FP8.")
geforce("nvidia-rtx-3060-8gb", "GeForce RTX 3060 8GB", ["rtx 3060 8gb", "3060 8gb", "rtx3060 8gb"],
        "Ampere (GA106)", "ampere", 2022, 8, "GDDR6", 240, 28, 3584, 1.777, 170, 4, 16, "8.6", None,
        ["NVIDIA GeForce RTX 3060 family spec page (RTX 3060 8GB: 3584 CUDA cores, 1.777 GHz boost, 8 GB GDDR6 128-bit) https://www.nvidia.com/en-us/geforce/graphics-cards/30-series/rtx-3060-3060ti/",
         "gpu_specs.csv row nvidia-rtx-3060-12gb (same GA106 configuration and clocks)"] + AMPERE_DS,
        "Same GPU as the 12 GB card with a 128-bit bus: 240 GB/s = 15 Gbps x 128-bit (the 12 GB card has 360 GB/s). price null: NVIDIA announced no MSRP for the 8 GB model (2022-10).")
geforce("nvidia-rtx-3050-8gb", "GeForce RTX 3050 8GB", ["3050", "rtx 3050", "rtx3050", "geforce rtx 3050", "rtx 3050 8gb"],
        "Ampere (GA106/GA107)", "ampere", 2022, 8, "GDDR6", 224, 20, 2560, 1.777, 130, 4, 8, "8.6",
        dated("msrp", 249, "2022-01", "NVIDIA launch announcement (CES 2022, availability 2022-01-27)"),
        ["NVIDIA GeForce RTX 3050 family spec page (2560 CUDA cores, 1.777 GHz boost, 8 GB GDDR6 128-bit, 130 W) https://www.nvidia.com/en-us/geforce/graphics-cards/30-series/rtx-3050/"] + AMPERE_DS,
        "224 GB/s = 14 Gbps x 128-bit. PCIe 4.0 x8. The 6 GB RTX 3050 (2024, 70 W) is a different card and not in the catalog.")
geforce("nvidia-rtx-5060-8gb", "GeForce RTX 5060", ["5060", "rtx 5060", "rtx5060", "geforce rtx 5060", "rtx 5060 8gb"],
        "Blackwell (GB206)", "blackwell", 2025, 8, "GDDR7", 448, 30, 3840, 2.497, 145, 5, 8, "12.0",
        dated("msrp", 299, "2025-05", "NVIDIA launch announcement (RTX 5060, availability 2025-05-19)"),
        ["NVIDIA GeForce RTX 5060 family spec page (3840 CUDA cores, 2.50 GHz boost, 8 GB GDDR7 128-bit, 614 AI TOPS, 145 W) https://www.nvidia.com/en-us/geforce/graphics-cards/50-series/rtx-5060-family/", RTX_BW_WP, CUDA_GPUS],
        "448 GB/s = 28 Gbps x 128-bit. PCIe 5.0 x8. FP16 with FP16 accumulate 76.7.",
        check="x8192 = 613.7 = NVIDIA's 614 AI TOPS (FP4 sparse)")
geforce("nvidia-rtx-5050", "GeForce RTX 5050", ["5050", "rtx 5050", "rtx5050", "geforce rtx 5050", "rtx 5050 8gb"],
        "Blackwell (GB207)", "blackwell", 2025, 8, "GDDR6", 320, 20, 2560, 2.572, 130, 5, 8, "12.0",
        dated("msrp", 249, "2025-07", "NVIDIA launch announcement (RTX 5050 desktop, availability 2025-07)"),
        ["NVIDIA GeForce RTX 5050 spec page (2560 CUDA cores, 2.57 GHz boost, 8 GB GDDR6 128-bit, 421 AI TOPS, 130 W) https://www.nvidia.com/en-us/geforce/graphics-cards/50-series/rtx-5050/", RTX_BW_WP, CUDA_GPUS],
        "GDDR6 (not GDDR7): 320 GB/s = 20 Gbps x 128-bit. PCIe 5.0 x8.",
        check="x8192 = 421.4 = NVIDIA's 421 AI TOPS")
geforce("nvidia-rtx-2080", "GeForce RTX 2080", ["2080", "rtx 2080", "rtx2080", "geforce rtx 2080"],
        "Turing (TU104)", "turing", 2018, 8, "GDDR6", 448, 46, 2944, 1.71, 215, 3, 16, "7.5",
        dated("msrp", 699, "2018-09", "NVIDIA launch announcement (reference $699, Founders Edition $799)"),
        [TURING_WP, "NVIDIA GeForce RTX 2080 spec page (2944 CUDA cores, 1710 MHz reference boost, 8 GB GDDR6 256-bit, 448 GB/s, 215 W)", CUDA_GPUS],
        "Reference clock 1.71 GHz (Founders Edition 1.80 GHz, 225 W). Turing whitepaper reference figures: FP16 tensor with FP16 accumulate 80.5, with FP32 accumulate 40.3, INT8 161.1. No BF16/TF32/FP8. NVLink bridge: one x8 link, 50 GB/s total, 2 cards.",
        ic=link("nvlink", 50, 2))
geforce("nvidia-rtx-2080-super", "GeForce RTX 2080 SUPER", ["2080 super", "rtx 2080 super", "rtx2080super", "geforce rtx 2080 super"],
        "Turing (TU104)", "turing", 2019, 8, "GDDR6", 496, 48, 3072, 1.815, 250, 3, 16, "7.5",
        dated("msrp", 699, "2019-07", "NVIDIA launch announcement (RTX SUPER series, availability 2019-07-23)"),
        ["NVIDIA GeForce RTX 2080 SUPER spec page (3072 CUDA cores, 1815 MHz boost, 8 GB GDDR6 15.5 Gbps 256-bit, 496 GB/s, 250 W)", TURING_WP, CUDA_GPUS],
        "496 GB/s = 15.5 Gbps x 256-bit. FP16 with FP16 accumulate 89.2. No BF16/TF32/FP8. NVLink bridge: one x8 link, 50 GB/s total, 2 cards.",
        ic=link("nvlink", 50, 2))
geforce("nvidia-rtx-2060-12gb", "GeForce RTX 2060 12GB", ["rtx 2060 12gb", "2060 12gb", "rtx2060 12gb"],
        "Turing (TU106)", "turing", 2021, 12, "GDDR6", 336, 34, 2176, 1.65, 184, 3, 16, "7.5", None,
        ["NVIDIA GeForce RTX 2060 12GB specifications (2176 CUDA cores, 1650 MHz boost, 12 GB GDDR6 192-bit, 184 W), NVIDIA GeForce RTX 20 series spec page https://www.nvidia.com/en-us/geforce/graphics-cards/compare/?section=compare-20", TURING_WP, CUDA_GPUS],
        "Launched 2021-12 without an NVIDIA MSRP (price null). 336 GB/s = 14 Gbps x 192-bit. No BF16/TF32/FP8.")

# GTX 1080 Ti: Pascal, no tensor cores.
ext("nvidia-gtx-1080-ti", "nvidia", "GeForce GTX 1080 Ti", ["1080 ti", "gtx 1080 ti", "gtx1080ti", "geforce gtx 1080 ti"],
    "consumer", "Pascal (GP102)", "pascal", 2017, 11, "GDDR5X", 484,
    tflops=tf_all(fp32=11.3, int8=45.4), sparsity=1, tdp=250, pcie=pcie3(3, 16, False),
    sw=cuda("6.1", "CUDA 8.0+"), video={"av1_encode": False, "nvenc": None},
    price=dated("msrp", 699, "2017-03", "NVIDIA launch announcement (GDC 2017)"),
    sources=["NVIDIA GeForce GTX 1080 Ti spec page (3584 CUDA cores, 1582 MHz boost, 11 GB GDDR5X 352-bit, 11 Gbps, 250 W) https://www.nvidia.com/en-gb/geforce/products/10series/geforce-gtx-1080-ti/",
             "NVIDIA Tesla P40 datasheet (GP102 INT8 = 4x FP32 via DP4A: 47 TOPS at 12 TFLOPS)", CUDA_GPUS],
    confidence="medium",
    notes="No tensor cores. DERIVED: FP32 = 3584 x 2 x 1.582 GHz = 11.3; INT8 = 4 x FP32 (DP4A dot product, as the GP102-based P40) = 45.4 TOPS. "
          "fp16 null: GP102 runs FP16 at 1/64 of FP32 (~0.18 TFLOPS), so engines compute in FP32 or INT8 on it. No BF16/TF32/FP8. "
          "484 GB/s = 11 Gbps x 352-bit. CUDA 13.0 no longer builds for Pascal (sm_61); use CUDA 12.x.",
    derived_how=[("tflops.fp32/int8", "3584 x 2 x 1.582 GHz = 11.3; INT8 = 4 x FP32 (DP4A) = 45.4")])

# ------------------------------ AMD Radeon desktop ---------------------------------------------------
def radeon(id_, name, aliases, arch, family, year, mem_gb, bw, cus, ghz, tdp, gfx, price, sources, notes,
           pcie=(4, 16), ai_tops=None, min_stack=None, confidence="medium"):
    fp32 = r1(cus * 256 * ghz / 1000.0) if family != "rdna2" else round(cus * 128 * ghz / 1000.0, 2)
    if family == "rdna2":
        t = tf_all(fp32=fp32, fp16=round(2 * fp32, 2))
        how = f"{cus} CUs x 128 FLOP/clk x {ghz} GHz = {fp32}; packed FP16 = 2 x FP32"
    elif family == "rdna4":
        t = tf_all(fp32=fp32, fp16=r1(ai_tops / 8), bf16=r1(ai_tops / 8), fp8=r1(ai_tops / 4), int8=r1(ai_tops / 4))
        how = (f"FP32 = {cus} CUs x 256 FLOP/clk x {ghz} GHz = {fp32}; from AMD's {ai_tops} AI TOPS (INT4 sparse): "
               f"INT8/FP8 dense = /4 = {r1(ai_tops / 4)}, FP16/BF16 = /8 = {r1(ai_tops / 8)} (as amd-rx-9070-xt)")
    else:
        t = tf_all(fp32=fp32, fp16=r1(2 * fp32), bf16=r1(2 * fp32))
        how = f"{cus} CUs x 256 FLOP/clk x {ghz} GHz = {fp32}; FP16/BF16 (WMMA) = 2 x FP32"
    ext(id_, "amd", name, aliases, "consumer", arch, family, year, mem_gb, "GDDR6", bw, tflops=t,
        sparsity=2 if family == "rdna4" else 1, tdp=tdp, pcie=pcie3(pcie[0], pcie[1]),
        sw=rocm(gfx, min_stack), video={"av1_encode": family != "rdna2", "nvenc": None}, price=price,
        sources=sources, confidence=confidence, notes=f"DERIVED: {how}. " + notes,
        derived_how=[("tflops.*", how)])


radeon("amd-rx-7600", "Radeon RX 7600", ["7600", "rx 7600", "rx7600", "radeon rx 7600"], "RDNA 3 (Navi 33)", "rdna3", 2023,
       8, 288, 32, 2.655, 165, "gfx1102", dated("msrp", 269, "2023-05", "AMD launch announcement (2023-05-24, $269)"),
       ["AMD Radeon RX 7600 product page (32 CUs, 2655 MHz boost, 21.75 TFLOPS FP32, 43.5 TFLOPS FP16, 8 GB GDDR6 128-bit, 288 GB/s, 165 W) https://www.amd.com/en/products/graphics/desktops/radeon/7000-series/amd-radeon-rx-7600.html", AMD_RX7000],
       "AMD gives 21.75 TFLOPS FP32 / 43.5 TFLOPS FP16 (rounded here to one decimal). PCIe 4.0 x8. gfx1102 is not on ROCm's official support list (HSA_OVERRIDE_GFX_VERSION is commonly used); no FP8; INT8 WMMA null.",
       pcie=(4, 8))
radeon("amd-rx-7600-xt", "Radeon RX 7600 XT", ["7600 xt", "rx 7600 xt", "rx7600xt", "radeon rx 7600 xt"], "RDNA 3 (Navi 33)", "rdna3", 2024,
       16, 288, 32, 2.755, 190, "gfx1102", dated("msrp", 329, "2024-01", "AMD launch announcement (CES 2024, availability 2024-01-24)"),
       ["AMD Radeon RX 7600 XT product page (32 CUs, 2755 MHz boost, 22.57 TFLOPS FP32, 16 GB GDDR6 128-bit, 288 GB/s, 190 W) https://www.amd.com/en/products/graphics/desktops/radeon/7000-series/amd-radeon-rx-7600-xt.html", AMD_RX7000],
       "PCIe 4.0 x8. Same GPU as the RX 7600 with 16 GB and higher clocks. gfx1102 is not on ROCm's official support list; no FP8.",
       pcie=(4, 8))
for mem, tbp, usd in ((8, 150, 299), (16, 160, 349)):
    radeon(f"amd-rx-9060-xt-{mem}gb", f"Radeon RX 9060 XT {mem}GB", [f"9060 xt {mem}gb", f"rx 9060 xt {mem}gb", f"rx9060xt {mem}gb", f"radeon rx 9060 xt {mem}gb"],
           "RDNA 4 (Navi 44)", "rdna4", 2025, mem, 320, 32, 3.13, tbp, "gfx1200",
           dated("msrp", usd, "2025-06", f"AMD launch announcement (Computex 2025; availability 2025-06-05, {mem} GB ${usd})"),
           [f"AMD Radeon RX 9060 XT product page (32 CUs, 3130 MHz boost, 821 AI TOPS, {mem} GB GDDR6 20 Gbps 128-bit, 320 GB/s, {tbp} W) https://www.amd.com/en/products/graphics/desktops/radeon/9000-series/amd-radeon-rx-9060xt.html",
            "gpu_specs.csv row amd-rx-9070-xt (RDNA4 AI TOPS convention)"],
           "PCIe 5.0 x16. vLLM lists RX 9000 (gfx1200/1201). Check: 821 = 1557 (RX 9070 XT) x 32/64 CUs x 3.13/2.97 GHz.",
           pcie=(5, 16), ai_tops=821, min_stack="ROCm 6.4.1+", confidence="low")
radeon("amd-rx-6700-xt", "Radeon RX 6700 XT", ["6700 xt", "rx 6700 xt", "rx6700xt", "radeon rx 6700 xt"], "RDNA 2 (Navi 22)", "rdna2", 2021,
       12, 384, 40, 2.581, 230, "gfx1031", dated("msrp", 479, "2021-03", "AMD launch announcement (2021-03-18)"),
       ["AMD Radeon RX 6700 XT product page (40 CUs, 2581 MHz boost, 13.21 TFLOPS FP32, 12 GB GDDR6 192-bit, 384 GB/s, 230 W) https://www.amd.com/en/products/graphics/amd-radeon-rx-6700-xt", AMD_RX6000],
       "RDNA2 has no matrix units: fp16 is the packed-FP16 vector peak. gfx1031 is not on ROCm's support list (HSA_OVERRIDE_GFX_VERSION=10.3.0 is commonly used). No BF16/TF32/FP8; INT8 null.")
radeon("amd-rx-6800", "Radeon RX 6800", ["6800", "rx 6800", "rx6800", "radeon rx 6800"], "RDNA 2 (Navi 21)", "rdna2", 2020,
       16, 512, 60, 2.105, 250, "gfx1030", dated("msrp", 579, "2020-11", "AMD launch announcement (2020-11-18)"),
       ["AMD Radeon RX 6800 product page (60 CUs, 2105 MHz boost, 16.17 TFLOPS FP32, 16 GB GDDR6 256-bit, 512 GB/s, 250 W) https://www.amd.com/en/products/graphics/amd-radeon-rx-6800", AMD_RX6000],
       "RDNA2 has no matrix units: fp16 is the packed-FP16 vector peak. 128 MB Infinity Cache. No BF16/TF32/FP8; INT8 null.")
radeon("amd-rx-6800-xt", "Radeon RX 6800 XT", ["6800 xt", "rx 6800 xt", "rx6800xt", "radeon rx 6800 xt"], "RDNA 2 (Navi 21)", "rdna2", 2020,
       16, 512, 72, 2.25, 300, "gfx1030", dated("msrp", 649, "2020-11", "AMD launch announcement (2020-11-18)"),
       ["AMD Radeon RX 6800 XT product page (72 CUs, 2250 MHz boost, 20.74 TFLOPS FP32, 16 GB GDDR6 256-bit, 512 GB/s, 300 W) https://www.amd.com/en/products/graphics/amd-radeon-rx-6800-xt", AMD_RX6000],
       "RDNA2 has no matrix units: fp16 is the packed-FP16 vector peak. No BF16/TF32/FP8; INT8 null.")


# ------------------------------ Older and used data-center cards -------------------------------------
PASCAL_NOTE = "CUDA 13.0 no longer builds for Maxwell, Pascal and Volta; use CUDA 12.x (and a PyTorch build that still ships their kernels)."
ext("nvidia-tesla-p40", "nvidia", "Tesla P40", ["p40", "tesla p40", "nvidia p40", "tesla p40 24gb"],
    "datacenter", "Pascal (GP102)", "pascal", 2016, 24, "GDDR5", 346,
    tflops=tf_all(fp32=12, int8=47), ecc=True, tdp=250, pcie=pcie3(3, 16, True),
    form_factor="PCIe FHFL dual-slot, passive", cooling="passive", sw=cuda("6.1", "CUDA 8.0+"),
    video={"av1_encode": False, "nvenc": None},
    price=dated("used", 295, "2026-06", "https://localaimaster.com/blog/tesla-p40-local-llm (2026-06-20): used P40 'often around $260-$330 as of June 2026' (mean of the range); eBay listings"),
    sources=["NVIDIA Tesla P40 datasheet (3840 CUDA cores, 12 TFLOPS FP32, 47 TOPS INT8, 24 GB GDDR5, 346 GB/s, 250 W)",
             EPOCH + " (row 'NVIDIA P40': 24 GB, 250 W, 11.76 TFLOPS FP32 at 1531 MHz)", CUDA_GPUS],
    confidence="medium",
    notes="No tensor cores; INT8 47 TOPS is the DP4A dot-product rate. fp16 null: GP102 runs FP16 at 1/64 of FP32, so llama.cpp computes in FP32/INT8 on it. "
          "Epoch lists 694.3 GB/s, twice the datasheet's 346 GB/s (24 GB GDDR5 on a 384-bit bus at 7.2 Gbps): the catalog uses the datasheet. " + PASCAL_NOTE)
ext("nvidia-tesla-p100-16gb", "nvidia", "Tesla P100 PCIe 16GB", ["p100", "tesla p100", "p100 16gb", "tesla p100 16gb", "p100 pcie"],
    "datacenter", "Pascal (GP100)", "pascal", 2016, 16, "HBM2", 732,
    tflops=tf_all(fp32=9.3, fp16=18.7), ecc=True, tdp=250, pcie=pcie3(3, 16, True),
    form_factor="PCIe FHFL dual-slot, passive", cooling="passive", sw=cuda("6.0", "CUDA 8.0+"),
    video={"av1_encode": False, "nvenc": None},
    price=dated("used", 60, "2026-02", "https://gpudojo.pages.dev/articles/tesla-p100-16gb-ai-review.html (last updated 2026-02): '732 GB/s bandwidth for ~$60' used (eBay)"),
    sources=["NVIDIA Tesla P100 PCIe datasheet (9.3 TFLOPS FP32, 18.7 TFLOPS FP16, 16 GB CoWoS HBM2, 732 GB/s, 250 W) https://images.nvidia.com/content/tesla/pdf/nvidia-tesla-p100-PCIe-datasheet.pdf",
             EPOCH + " (row 'NVIDIA P100 PCIe 16GB': 732 GB/s, 250 W)", CUDA_GPUS],
    confidence="high",
    notes="fp16 18.7 is GP100's packed-FP16 vector rate (no tensor cores). No DP4A on GP100 (sm_60): INT8 null. No BF16/TF32/FP8. The SXM2 module (NVLink, 300 W, 10.6/21.2 TFLOPS) is not a separate entry. " + PASCAL_NOTE)
ext("nvidia-tesla-m40-24gb", "nvidia", "Tesla M40 24GB", ["m40", "tesla m40", "m40 24gb", "tesla m40 24gb"],
    "datacenter", "Maxwell (GM200)", "maxwell", 2016, 24, "GDDR5", 288,
    tflops=tf_all(fp32=6.8), ecc=True, tdp=250, pcie=pcie3(3, 16, True),
    form_factor="PCIe FHFL dual-slot, passive", cooling="passive", sw=cuda("5.2", "CUDA 7.5+"),
    video={"av1_encode": False, "nvenc": None},
    price=dated("used", 90, "2025-12", "https://gpudojo.pages.dev/articles/tesla-p40-best-budget-gpu.html (last updated 2025-12): Tesla M40 24GB ~$90 used (eBay)"),
    sources=["NVIDIA Tesla M40 24GB product brief (3072 CUDA cores, up to 7 TFLOPS FP32, 24 GB GDDR5, 288 GB/s, 250 W)",
             EPOCH + " (row 'NVIDIA M40': 288 GB/s, 250 W, 6.83 TFLOPS at 1112 MHz)", CUDA_GPUS],
    confidence="medium",
    notes="DERIVED fp32 = 3072 x 2 x 1.112 GHz = 6.8 (NVIDIA: 'up to 7'). Maxwell: no FP16 fast path, no DP4A, no tensor cores (fp16/int8 null). "
          "The 12 GB M40 (2015-11) has the same bandwidth. " + PASCAL_NOTE,
    derived_how=[("tflops.fp32", "3072 x 2 x 1.112 GHz boost = 6.8")])

MI50_SRC = ("AMD press release 'AMD Unveils World's First 7nm Datacenter GPUs' (2018-11-06): MI60 FP16 29.5 / FP32 14.7 / FP64 7.4 TFLOPS, INT8 59 TOPS, 32 GB HBM2 1 TB/s; "
            "MI50 FP16 26.5 / FP32 13.3 / FP64 6.6 TFLOPS, INT8 53 TOPS; Infinity Fabric Link up to 200 GB/s peer-to-peer, hives of 4 GPUs; PCIe 4.0")
for id_, name, aliases, cus, mhz, fp16, fp32, i8 in (
        ("amd-mi50-32gb", "Radeon Instinct MI50 32GB", ["mi50", "instinct mi50", "mi50 32gb", "radeon instinct mi50"], 60, 1725, 26.5, 13.3, 53),
        ("amd-mi60", "Radeon Instinct MI60", ["mi60", "instinct mi60", "radeon instinct mi60"], 64, 1800, 29.5, 14.7, 59)):
    ext(id_, "amd", name, aliases, "datacenter", "GCN 5 (Vega 20)", "gcn5", 2018, 32, "HBM2", 1024,
        tflops=tf_all(fp32=fp32, fp16=fp16, int8=i8), ecc=True, tdp=300, pcie=pcie3(4, 16),
        ic=link("infinity-fabric", 200, 4), form_factor="PCIe FHFL dual-slot, passive", cooling="passive",
        sw=rocm("gfx906"), video={"av1_encode": False, "nvenc": None},
        sources=[MI50_SRC, f"AMD {name} product page ({cus} CUs, {mhz} MHz peak engine clock, 32 GB HBM2, 1024 GB/s, 300 W)"],
        confidence="medium",
        notes="fp16 is the packed-FP16 vector rate (Vega 20 has no matrix cores); INT8 is the dot-product rate. No BF16/TF32/FP8. "
              "min_stack null: AMD moved gfx906 to maintenance after ROCm 5.7; recent ROCm releases and LM Studio's ROCm runtime do not list it (lmstudio-ai/lms#228), "
              "llama.cpp still runs on it (ROCm builds for gfx906 or Vulkan). Infinity Fabric Link bridges join hives of 4 at up to 200 GB/s peer-to-peer. "
              "price null: no dated used-price source for the 32 GB card was found (the 16 GB MI50 sold for CNY 500-600 on Xianyu in 2025-01, https://v2ex.com/amp/t/1102193).")

ext("nvidia-a16", "nvidia", "A16 (one of the board's four GPUs)", ["a16", "nvidia a16", "a16 16gb"],
    "datacenter", "Ampere (4x GA107)", "ampere", 2021, 16, "GDDR6", 200,
    tflops=tf_all(fp32=4.5, tf32=9, fp16=17.9, bf16=17.9, int8=35.9), ecc=True, sparsity=2, tdp=62.5,
    pcie=pcie3(4, 16, True), form_factor="PCIe FHFL dual-slot, passive; four GPUs on one board", cooling="passive",
    sw=cuda("8.6"), video={"av1_encode": False, "nvenc": 1},
    sources=["NVIDIA A16 datasheet (4x GPUs, 4x 16 GB GDDR6, 4x 200 GB/s, FP32 4x 4.5 TF, TF32 4x 9 | 4x 18* TF, FP16 4x 17.9 | 4x 35.9* TF, INT8 4x 35.9 | 4x 71.8* TOPS, 250 W board) https://www.nvidia.com/content/dam/en-zz/Solutions/Data-Center/a16/pdf/a16-datasheet.pdf", CUDA_GPUS],
    confidence="medium",
    notes="One entry is one of the four GPUs software sees on an A16 board (64 GB in all, each GPU with its own 16 GB and 200 GB/s, joined only by the board's PCIe switch). "
          "DERIVED tdp = 250 W board / 4 = 62.5. Figures are the datasheet's dense per-GPU values. Made for VDI; price null (no sourced board price).",
    derived_how=[("tdp_watts", "250 W board / 4 GPUs = 62.5")])

# ------------------------------ China-market SKUs (region cn) ----------------------------------------
A800_SRC = EPOCH + " (rows 'NVIDIA A800 SXM' / 'NVIDIA A800 PCIe 80 GB': BF16 311.8, TF32 155.9, FP32 19.49 TFLOPS, 2.04 / 1.94 TB/s, 400 / 250 W; datasheet links to TechPowerUp https://www.techpowerup.com/gpu-specs/a800-sxm4-80-gb.c3966)"
ext("nvidia-a800-80gb-sxm", "nvidia", "A800 80GB SXM4", ["a800 sxm", "a800 80gb sxm", "a800-sxm4-80gb", "a800 sxm4"],
    "datacenter", "Ampere (GA100)", "ampere", 2022, 80, "HBM2e", 2039,
    tflops=tf_all(fp32=19.5, tf32=156, fp16=312, bf16=312, int8=624), ecc=True, sparsity=2, tdp=400,
    pcie=pcie3(4, 16), ic=link("nvlink", 400, 8, "switch"), form_factor="SXM4 (HGX A800 8-GPU baseboard)", form="module",
    sw=cuda("8.0"), video={"av1_encode": False, "nvenc": 0}, region="cn",
    sources=[A800_SRC, "gpu_specs.csv row nvidia-a100-80gb-sxm (same GA100 compute and memory)", CUDA_GPUS],
    confidence="medium",
    notes="China-market A100 with NVLink cut from 600 to 400 GB/s for export rules; compute and memory as the A100 80GB SXM4 (Epoch's 311.8/155.9/19.49 round to the A100's 312/156/19.5). INT8 624 as A100. No NVENC.")
ext("nvidia-a800-80gb-pcie", "nvidia", "A800 80GB PCIe", ["a800 pcie", "a800 80gb pcie", "a800-pcie-80gb"],
    "datacenter", "Ampere (GA100)", "ampere", 2022, 80, "HBM2e", 1935,
    tflops=tf_all(fp32=19.5, tf32=156, fp16=312, bf16=312, int8=624), ecc=True, sparsity=2, tdp=250,
    pcie=pcie3(4, 16, True), ic=link("nvlink", 400, 2), form_factor="PCIe FHFL dual-slot, passive", cooling="passive",
    sw=cuda("8.0"), video={"av1_encode": False, "nvenc": 0}, region="cn",
    sources=[A800_SRC, "gpu_specs.csv row nvidia-a100-80gb-pcie (same GA100 compute and memory)", CUDA_GPUS],
    confidence="low",
    notes="China-market A100 80GB PCIe with a 400 GB/s NVLink bridge (2 cards). Bandwidth 1935 GB/s as the A100 80GB PCIe (Epoch: 1.94 TB/s). tdp 250 W is Epoch's (TechPowerUp) figure; the A100 80GB PCIe is 300 W, so it is low confidence. No NVENC.")
ext("nvidia-h800-sxm5", "nvidia", "H800 SXM5 80GB", ["h800", "h800 sxm", "h800 sxm5", "nvidia h800", "h800 80gb"],
    "datacenter", "Hopper (GH100)", "hopper", 2023, 80, "HBM3", 3350,
    tflops=tf_all(fp32=59.3, tf32=454.5, fp16=989, bf16=989, fp8=1978, int8=1979), ecc=True, sparsity=2, tdp=700,
    pcie=pcie3(5, 16), ic=link("nvlink", 400, 8, "switch"), form_factor="SXM5 (HGX H800 8-GPU baseboard)", form="module",
    sw=cuda("9.0"), video={"av1_encode": False, "nvenc": 0}, region="cn",
    sources=[EPOCH + " (row 'NVIDIA H800 SXM5': 80 GB, 3.36 TB/s, BF16 989, TF32 454.5, FP32 59.3, INT8 1979, 700 W; datasheet link TechPowerUp https://www.techpowerup.com/gpu-specs/h800-sxm5.c3975)",
             "gpu_specs.csv row nvidia-h100-sxm5 (same GH100 configuration)", CUDA_GPUS],
    confidence="medium",
    notes="China-market H100 SXM5 with NVLink cut to 400 GB/s (8 GPUs per HGX board) and FP64 cut to ~1 TFLOPS. Bandwidth 3350 GB/s as the H100 SXM5 datasheet (Epoch 3.36). "
          "DERIVED fp8 = 2 x BF16 (Hopper) = 1978. Epoch's TF32 454.5 and FP32 59.3 use TechPowerUp's 1755 MHz boost; the H100 SXM5 datasheet gives 494.7 / 67 at NVIDIA's boost. No NVENC.",
    derived_how=[("tflops.fp8", "2 x BF16 dense (Hopper) = 1978")])
ext("nvidia-l20", "nvidia", "L20", ["l20", "nvidia l20", "l20 48gb"],
    "datacenter", "Ada Lovelace (AD102)", "ada", 2023, 48, "GDDR6", 864,
    tflops=tf_all(fp32=59.4, tf32=59.8, fp16=119.5, bf16=119.5, fp8=239, int8=239), ecc=True, sparsity=2, tdp=275,
    pcie=pcie3(4, 16, True), form_factor="PCIe FHFL dual-slot, passive", cooling="passive",
    sw=cuda("8.9"), video={"av1_encode": True, "nvenc": None}, region="cn",
    price=dated("street-estimate", 4299, "2023-09", "Epoch AI 'Release price' column (source: https://viperatech.com/shop/nvidia-l20-pcie/)"),
    sources=[EPOCH + " (row 'NVIDIA L20 PCle': 48 GB, 864 GB/s, FP32 59.35, TF32 59.8, BF16 119.5, INT8 239, 275 W, 2520 MHz, $4,299; datasheet link https://www.techpowerup.com/gpu-specs/l20.c4206)", ADA_WP, CUDA_GPUS],
    confidence="medium",
    notes="China-market Ada data-center card (cut-down AD102). DERIVED fp8 = INT8 rate (Ada data-center FP8 = INT8, as the L40S) = 239. Figures are dense (Epoch). NVENC count not recorded.",
    derived_how=[("tflops.fp8", "Ada data-center FP8 = INT8 rate = 239")])
geforce("nvidia-rtx-4090d", "GeForce RTX 4090 D", ["4090d", "4090 d", "rtx 4090d", "rtx 4090 d", "geforce rtx 4090 d"],
        "Ada Lovelace (AD102)", "ada", 2023, 24, "GDDR6X", 1008, 114, 14592, 2.52, 425, 4, 16, "8.9",
        dated("msrp", 1830, "2023-12", "NVIDIA China launch price CNY 12,999 (2023-12-28), converted at 7.10 CNY/USD (approximate)"),
        ["NVIDIA China GeForce RTX 4090 D page (14592 CUDA cores, 2.52 GHz boost, 24 GB GDDR6X 384-bit, 425 W) https://www.nvidia.cn/geforce/graphics-cards/40-series/rtx-4090-d/", ADA_WP, CUDA_GPUS],
        "China-market RTX 4090 with 114 of 128 SMs for export rules; memory and bandwidth as the RTX 4090 (21 Gbps x 384-bit). FP16 with FP16 accumulate 294.2.",
        nvenc=2, region="cn")

# ------------------------------ Newest data-center and workstation -----------------------------------
ext("nvidia-b300", "nvidia", "B300 (HGX B300, per GPU)", ["b300", "nvidia b300", "hgx b300", "blackwell ultra", "b300 sxm"],
    "datacenter", "Blackwell Ultra (GB110 dual-die)", "blackwell", 2025, 270, "HBM3e", 7700,
    tflops=tf_all(fp32=75, tf32=1100, fp16=2250, bf16=2250, fp8=4500, fp4=14000, int8=157.5), ecc=True, sparsity=2, tdp=1100,
    ic=link("nvlink", 1800, 8, "switch"), form_factor="SXM (HGX B300 8-GPU baseboard)", form="module",
    sw=cuda("10.3", "CUDA 12.9+"), video={"av1_encode": False, "nvenc": 0},
    sources=[EPOCH + " (row 'NVIDIA B300 (Blackwell Ultra)': 270 GB, 7.7 TB/s, 1.8 TB/s NVLink, 1100 W; dense FP32 75, TF32 1100, BF16 2250, FP8 4500, FP4 14000 TFLOPS, INT8 157.5 TOPS)",
             "NVIDIA Blackwell Ultra datasheet https://resources.nvidia.com/en-us-blackwell-architecture/blackwell-ultra-datasheet", CUDA_GPUS],
    confidence="medium",
    notes="Figures per GPU, dense, from Epoch (which cites NVIDIA's Blackwell Ultra datasheet and technical blog). memory_bytes = 270 GB x 2^30, Epoch's usable HGX figure (288 GB physical HBM3e, like the B200's 180 of 192). "
          "Blackwell Ultra cuts INT8 to 157.5 TOPS (FP4/FP8 carry inference). Host PCIe not recorded (null). No NVENC.")
ext("nvidia-gb300-gpu", "nvidia", "GB300 (per Blackwell Ultra GPU in NVL72)", ["gb300", "nvidia gb300", "gb300 gpu", "gb300-nvl72", "gb300 nvl72"],
    "datacenter", "Blackwell Ultra + Grace CPU", "blackwell", 2025, 288, "HBM3e", 8000, unified=True,
    tflops=tf_all(fp32=80, tf32=1250, fp16=2500, bf16=2500, fp8=5000, fp4=15000, int8=165), ecc=True, sparsity=2, tdp=1400,
    ic=link("nvlink", 1800, 72, "switch"), form_factor="GB300 superchip (2 Blackwell Ultra GPUs + 1 Grace CPU) in a GB300 NVL72 rack", form="module",
    sw=cuda("10.3", "CUDA 12.9+"), video={"av1_encode": False, "nvenc": 0},
    sources=[EPOCH + " (row 'NVIDIA GB300 (Blackwell Ultra)': per GPU 287.5 GB, 8 TB/s, 1.8 TB/s NVLink, 1400 W; dense FP32 80, TF32 1250, BF16 2500, FP8 5000, FP4 15000, INT8 165)",
             "NVIDIA GB300 NVL72 page https://www.nvidia.com/en-us/data-center/gb300-nvl72/", CUDA_GPUS],
    confidence="medium",
    notes="Per GPU of a GB300 NVL72 rack (Epoch: GB300 is only sold in systems of two or more GPUs). memory_bytes = nominal 288 GB x 2^30 (Epoch 287.5 GB). unified_memory: coherent with the Grace CPU's LPDDR5X over NVLink-C2C; memory_bytes counts HBM only. "
          "max_gpus 72 = NVL72 rack. Host PCIe: none (NVLink-C2C to Grace). No NVENC.")

RTXPRO_SRC = "NVIDIA RTX PRO Blackwell desktop GPUs (GTC 2025): RTX PRO 6000 Workstation / Max-Q / Server Edition share GB202 with 188 SMs, 96 GB GDDR7 ECC 512-bit, 1792 GB/s; PRO 5000: 110 SMs, 48 GB 384-bit, 1344 GB/s, 300 W (as reported by https://www.purepc.pl/nvidia-rtx-pro-6000-rtx-pro-6000-max-q-rtx-pro-5000-rtx-pro-4500-oraz-rtx-pro-4000-profesjonalne-karty-graficzne-blackwell)"


def rtx_pro(id_, name, aliases, arch, mem_gb, bw, tdp, t, how, sources, notes, confidence="low", cooling=None,
            form_factor="PCIe dual-slot", nvenc=None, price=None, year=2025):
    ext(id_, "nvidia", name, aliases, "workstation" if "Server" not in name else "datacenter", arch, "blackwell", year,
        mem_gb, "GDDR7", bw, tflops=t, ecc=True, sparsity=2, tdp=tdp, pcie=pcie3(5, 16, True),
        form_factor=form_factor, cooling=cooling, sw=cuda("12.0"), video={"av1_encode": True, "nvenc": nvenc},
        price=price, sources=sources + [CUDA_GPUS], confidence=confidence, notes=f"DERIVED: {how}. " + notes,
        derived_how=[("tflops.*", how)])


def from_ai_tops(ai, fp32=None):
    return tf_all(fp32=fp32 if fp32 is not None else r1(ai / 32), tf32=r1(ai / 16), fp16=r1(ai / 8), bf16=r1(ai / 8),
                  fp8=r1(ai / 4), fp4=r1(ai / 2), int8=r1(ai / 4))


rtx_pro("nvidia-rtx-pro-6000-blackwell-server", "RTX PRO 6000 Blackwell Server Edition",
        ["rtx pro 6000 server", "rtx pro 6000 blackwell server", "rtx pro 6000 server edition", "pro 6000 server"],
        "Blackwell (GB202)", 96, 1792, 600,
        tf_all(fp32=125, tf32=252, fp16=504, bf16=504, fp8=1008, int8=1008),
        "copied from the Workstation Edition (nvidia-rtx-pro-6000-blackwell: same GB202 with 188 SMs and the same 600 W maximum)",
        [RTXPRO_SRC, "NVIDIA RTX PRO 6000 Blackwell Server Edition page https://www.nvidia.com/en-us/data-center/rtx-pro-6000-blackwell-server-edition/"],
        "Passive card for servers (configurable power up to 600 W; the range is not recorded). The Server Edition's own datasheet peaks were not stored; treat the tensor figures as the Workstation Edition's. MIG up to 4 instances. 4 NVENC.",
        cooling="passive", form_factor="PCIe FHFL dual-slot, passive", nvenc=4)
rtx_pro("nvidia-rtx-pro-6000-blackwell-max-q", "RTX PRO 6000 Blackwell Max-Q Workstation Edition",
        ["rtx pro 6000 max-q", "rtx pro 6000 blackwell max-q", "pro 6000 max-q", "rtx pro 6000 maxq"],
        "Blackwell (GB202)", 96, 1792, 300, from_ai_tops(3511, fp32=110),
        "from NVIDIA's 3511 AI TOPS (FP4 sparse) with pro full-rate FP32 accumulate: FP16/BF16 = /8 = 438.9, FP8/INT8 = /4 = 877.8, TF32 = /16 = 219.4, FP4 dense = /2; FP32 110 is NVIDIA's",
        [RTXPRO_SRC, "NVIDIA RTX PRO 6000 Blackwell Max-Q Workstation Edition datasheet (110 TFLOPS FP32, 3511 AI TOPS, 300 W), summarised by https://blog.us.fixstars.com/what-kind-of-gpu-is-the-nvidia-rtx-pro-6000-blackwell-max-q"],
        "Same GPU and memory as the Workstation Edition at half the power (lower clocks). Blower cooler. 4 NVENC.",
        form_factor="PCIe dual-slot, blower", nvenc=4)
for mem, gb_note, year in ((48, "", 2025), (72, " 72GB", 2025)):
    rtx_pro("nvidia-rtx-pro-5000-blackwell" + ("-72gb" if mem == 72 else ""), "RTX PRO 5000 Blackwell" + gb_note,
            (["rtx pro 5000 48gb", "rtx pro 5000 blackwell 48gb", "pro 5000 blackwell 48gb"] if mem == 48 else
             ["rtx pro 5000 72gb", "rtx pro 5000 blackwell 72gb", "pro 5000 blackwell 72gb"]),
            "Blackwell (GB202)", mem, 1344, 300, from_ai_tops(2064),
            "from NVIDIA's 2064 AI TOPS (FP4 sparse) with pro full-rate FP32 accumulate: FP16/BF16 = /8 = 258.0, FP8/INT8 = /4 = 516.0, TF32 = /16 = 129.0, FP32 = /32 = 64.5 (/32 reproduces the PRO 6000's 125 TFLOPS from its 4000 AI TOPS), FP4 dense = /2",
            [RTXPRO_SRC, "grokipedia summary of NVIDIA's RTX PRO 5000 Blackwell page (48 and 72 GB GDDR7 ECC, 1344 GB/s, 2064 AI TOPS, 300 W, 3 NVENC; 72 GB generally available 2025-12-18) https://grokipedia.com/page/Nvidia_RTX_Pro_5000_Blackwell",
             "technical.city RTX PRO 5000 72 GB (14080 CUDA cores, 2377 MHz boost, 66.9 TFLOPS FP32) https://technical.city/en/video/RTX-PRO-4500-Blackwell-vs-RTX-PRO-5000-72-GB-Blackwell"],
            "110 SMs / 14080 CUDA cores, 384-bit GDDR7 at 28 Gbps. " + ("The 72 GB model uses 3 GB GDDR7 chips on the same bus." if mem == 72 else "A 72 GB model exists (nvidia-rtx-pro-5000-blackwell-72gb)."),
            form_factor="PCIe dual-slot, blower", nvenc=3, year=year)
for id_, name, aliases, sms, cores, mem, bw, tdp, ff in (
        ("nvidia-rtx-pro-4500-blackwell", "RTX PRO 4500 Blackwell", ["rtx pro 4500", "rtx pro 4500 blackwell", "pro 4500 blackwell"], 82, 10496, 32, 896, 200, "PCIe dual-slot, blower"),
        ("nvidia-rtx-pro-4000-blackwell", "RTX PRO 4000 Blackwell", ["rtx pro 4000", "rtx pro 4000 blackwell", "pro 4000 blackwell"], 70, 8960, 24, 672, 140, "PCIe single-slot, blower")):
    k = sms * 2.617
    t = tf_all(fp32=r1(cores * 2 * 2.617 / 1000), tf32=r1(k * 512 / 1000), fp16=r1(k * 1024 / 1000), bf16=r1(k * 1024 / 1000),
               fp8=r1(k * 2048 / 1000), int8=r1(k * 2048 / 1000))
    rtx_pro(id_, name, aliases, "Blackwell (GB203)", mem, bw, tdp, t,
            f"{sms} SMs x 2.617 GHz (third-party boost clock) x Blackwell pro per-SM rates (TF32 512, FP16/BF16 1024 with FP32 accumulate, FP8/INT8 2048 FLOP/clk; they reproduce the PRO 6000's 504 TFLOPS from 188 SMs at 2.617 GHz); FP32 = {cores} x 2 x 2.617 GHz",
            [RTXPRO_SRC, f"technical.city {name} ({cores} CUDA cores, 2617 MHz boost, {tdp} W, {mem} GB GDDR7 {bw} GB/s) https://technical.city/en/video/RTX-PRO-4000-Blackwell-vs-RTX-PRO-5000-72-GB-Blackwell"],
            f"GB203 with {sms} SMs, {mem} GB GDDR7 ECC at {bw} GB/s. NVIDIA's AI TOPS for this card were not stored, so the figures rest on a third-party boost clock (low).",
            form_factor=ff, nvenc=None)


# ------------------------------ Laptop GPUs -------------------------------------------------------------
def laptop(id_, name, aliases, arch, family, year, mem_gb, mem_type, bw, lanes, sms, cores, ghz, lo, hi, ai, cc, sources,
           notes, nvenc, clock_source, from_ai=False, confidence="low"):
    if from_ai:
        t = tf_all(fp32=r1(ai / 32), tf32=r1(ai / 32), fp16=r1(ai / 16), bf16=r1(ai / 16), fp8=r1(ai / 8), int8=r1(ai / 4))
        how = (f"from NVIDIA's {ai} AI TOPS (FP4 sparse; GeForce Blackwell ratios as the desktop RTX 5070): FP32/TF32 = /32 = {t['fp32']}, "
               f"FP16/BF16 = /16 = {t['fp16']}, FP8 = /8 = {t['fp8']}, INT8 = /4 = {t['int8']}, at the {hi} W top of the TGP range; no boost clock was found, "
               "and on the other RTX 50 laptop GPUs NVIDIA's AI TOPS exceed the clock-derived figures by 15-26 %, so these are an upper bound")
    else:
        g = geforce_tensor(sms, ghz, family)
        t = tf_all(fp32=r1(cores * 2 * ghz / 1000), tf32=g["tf32"], fp16=g["fp16"], bf16=g["bf16"], fp8=g["fp8"], int8=g["int8"])
        how = (f"{sms} SMs x {ghz} GHz ({clock_source}, at the {hi} W top of the TGP range) x GeForce per-SM rates; FP32 = {cores} x 2 x {ghz} GHz = {t['fp32']}")
        if ai:
            ratio = ai / (sms * ghz * (4096 if family == "ada" else 8192) / 1000)
            how += f"; NVIDIA's {ai} AI TOPS = {ratio:.2f} x the clock-derived figure"
    ext(id_, "nvidia", name, aliases, "consumer", arch, family, year, mem_gb, mem_type, bw, tflops=t, sparsity=2,
        tdp=hi, power=power_range(lo, hi, hi, (NV_LAPTOP40 if family == "ada" else NEOWIN_50L) + f" (TGP {lo}-{hi} W; laptop makers set it, Dynamic Boost can add 15-25 W)"),
        pcie=pcie3(4 if family == "ada" else 5, lanes, False), form_factor="laptop GPU (soldered, with its own memory)",
        form="laptop", sw=cuda(cc), video={"av1_encode": True, "nvenc": nvenc}, sources=sources + [CUDA_GPUS],
        confidence=confidence,
        notes=f"DERIVED: {how}. Speed scales with the laptop's TGP setting: configured at {lo} W it runs well below these figures. "
              "price null: laptop GPUs are sold only inside laptops. " + notes,
        derived_how=[("tflops.*", how)])


L40_SRC = [NV_LAPTOP40, "data-check.eu / notebookcheck summaries of the RTX 40 laptop GPUs (TGP and boost ranges) https://data-check.eu/en/nvidia-geforce-rtx-4070-laptop-gpu/", ADA_WP]
laptop("nvidia-rtx-4050-laptop", "GeForce RTX 4050 Laptop GPU", ["4050 laptop", "rtx 4050 laptop", "rtx 4050 mobile", "geforce rtx 4050 laptop"],
       "Ada Lovelace (AD107)", "ada", 2023, 6, "GDDR6", 192, 8, 20, 2560, 2.37, 35, 115, 194, "8.9", L40_SRC,
       "6 GB GDDR6 96-bit, 192 GB/s (16 Gbps). Boost 1605-2370 MHz across the TGP range.", 1, "NVIDIA's top boost clock",
       confidence="medium")
laptop("nvidia-rtx-4060-laptop", "GeForce RTX 4060 Laptop GPU", ["4060 laptop", "rtx 4060 laptop", "rtx 4060 mobile", "geforce rtx 4060 laptop"],
       "Ada Lovelace (AD107)", "ada", 2023, 8, "GDDR6", 256, 8, 24, 3072, 2.37, 35, 115, 233, "8.9", L40_SRC,
       "8 GB GDDR6 128-bit, 256 GB/s. Boost 1470-2370 MHz across the TGP range.", 1, "NVIDIA's top boost clock",
       confidence="medium")
laptop("nvidia-rtx-4070-laptop", "GeForce RTX 4070 Laptop GPU", ["4070 laptop", "rtx 4070 laptop", "rtx 4070 mobile", "geforce rtx 4070 laptop"],
       "Ada Lovelace (AD106)", "ada", 2023, 8, "GDDR6", 256, 8, 36, 4608, 2.175, 35, 115, 321, "8.9", L40_SRC,
       "8 GB GDDR6 128-bit, 256 GB/s. Boost 1230 MHz at 35 W to 2175 MHz at 115 W (notebookcheck via data-check.eu).", 1, "NVIDIA's top boost clock",
       confidence="medium")
laptop("nvidia-rtx-4080-laptop", "GeForce RTX 4080 Laptop GPU", ["4080 laptop", "rtx 4080 laptop", "rtx 4080 mobile", "geforce rtx 4080 laptop"],
       "Ada Lovelace (AD104)", "ada", 2023, 12, "GDDR6", 432, 16, 58, 7424, 2.28, 60, 150, 542, "8.9", L40_SRC,
       "12 GB GDDR6 192-bit, 432 GB/s (18 Gbps). Boost 1350-2280 MHz across the TGP range.", 2, "NVIDIA's top boost clock",
       confidence="medium")
laptop("nvidia-rtx-4090-laptop", "GeForce RTX 4090 Laptop GPU", ["4090 laptop", "rtx 4090 laptop", "rtx 4090 mobile", "geforce rtx 4090 laptop"],
       "Ada Lovelace (AD103)", "ada", 2023, 16, "GDDR6", 576, 16, 76, 9728, 2.04, 80, 150, 686, "8.9",
       L40_SRC + ["data-check.eu RTX 4090 Laptop GPU (AD103, 9728 shaders, 16 GB GDDR6 256-bit at 20 Gbps effective, TGP 80-150 W + 15 W Dynamic Boost) https://data-check.eu/en/nvidia-geforce-rtx-4090-laptop-gpu/", HMC + "nvidia-geforce-rtx-4090-laptop-140w (576 GB/s, 76 SMs)"],
       "16 GB GDDR6 256-bit, 576 GB/s (18 Gbps; one summary says 20 Gbps). Boost 1455-2040 MHz. NVIDIA's 686 AI TOPS implies ~2.2 GHz, above the 2040 MHz spec boost; the catalog uses the spec clock.", 2, "NVIDIA's top boost clock")
L50_SRC = [NEOWIN_50L, NV_LAPTOP50, RTX_BW_WP]
laptop("nvidia-rtx-5070-laptop", "GeForce RTX 5070 Laptop GPU", ["5070 laptop", "rtx 5070 laptop", "rtx 5070 mobile", "geforce rtx 5070 laptop"],
       "Blackwell (GB206)", "blackwell", 2025, 8, "GDDR7", 384, 8, 36, 4608, 2.347, 50, 100, 798, "12.0",
       L50_SRC + ["tinhte.vn summary: RTX 5070 Laptop GB206, 4608 cores, 1425-2347 MHz, 8 GB GDDR7 128-bit, 798 AI TOPS https://tinhte.mywebsite.vn/threads/nvidia-geforce-rtx-5070-laptop-hieu-nang-va-thong-so.5079/post-5286"],
       "8 GB GDDR7 128-bit; 384 GB/s assumes 24 Gbps GDDR7 (the speed is not in the stored sources).", 1, "third-party top boost clock")
laptop("nvidia-rtx-5070-ti-laptop", "GeForce RTX 5070 Ti Laptop GPU", ["5070 ti laptop", "rtx 5070 ti laptop", "rtx 5070 ti mobile", "geforce rtx 5070 ti laptop"],
       "Blackwell (GB205)", "blackwell", 2025, 12, "GDDR7", 672, 8, 46, 5888, None, 60, 115, 992, "12.0", L50_SRC,
       "12 GB GDDR7 192-bit; 672 GB/s assumes 28 Gbps GDDR7.", 1, None, from_ai=True)
laptop("nvidia-rtx-5080-laptop", "GeForce RTX 5080 Laptop GPU", ["5080 laptop", "rtx 5080 laptop", "rtx 5080 mobile", "geforce rtx 5080 laptop"],
       "Blackwell (GB203)", "blackwell", 2025, 16, "GDDR7", 896, 16, 60, 7680, 2.287, 80, 150, 1334, "12.0",
       L50_SRC + [HMC + "nvidia-geforce-rtx-5080-laptop-150w-vs-nvidia-geforce-rtx-4050-laptop-100w (7680 shaders, 2287 MHz at 150 W, 35.13 TFLOPS FP32)"],
       "16 GB GDDR7 256-bit; 896 GB/s assumes 28 Gbps GDDR7.", 2, "hmc-tech's 150 W boost clock")
laptop("nvidia-rtx-5090-laptop", "GeForce RTX 5090 Laptop GPU", ["5090 laptop", "rtx 5090 laptop", "rtx 5090 mobile", "geforce rtx 5090 laptop"],
       "Blackwell (GB203)", "blackwell", 2025, 24, "GDDR7", 896, 16, 82, 10496, 2.16, 95, 150, 1824, "12.0",
       L50_SRC + [HMC + "nvidia-geforce-rtx-5090-laptop-150w-vs-nvidia-rtx-5000-max-q (10496 shaders, 24 GB GDDR7, 2160 MHz at 150 W, 45.34 TFLOPS FP32, 896 GB/s)"],
       "24 GB GDDR7 256-bit (3 GB chips), 896 GB/s.", 3, "hmc-tech's 150 W boost clock")

# ------------------------------ APUs and unified-memory machines ----------------------------------------
NONE_SETTING = "none: the CPU and GPU allocate from one pool; what the OS and its services use comes out of it"
STRIX_POOL = pool(0.5, 0.75,
                  "Linux: amdgpu.gttsize / ttm.pages_limit (GTT, the pool ROCm and PyTorch allocate from); BIOS: UMA carve-out "
                  "(AMD Variable Graphics Memory, up to 96 GB of 128 GB)",
                  STRIX_GTT_DEFAULT + "; " + ROCM_STRIX + "; " + AMD_VGM + ". max_share 0.75 is the documented carve-out (96 of 128 GB); GTT can be raised further with ttm.pages_limit")


def strix(id_, name, aliases, gpu_name, cus, mhz, mem, price, notes, confidence="medium"):
    fp32 = r1(cus * 256 * mhz / 1e6)
    how = f"{cus} CUs x 256 FLOP/clk x {mhz / 1000} GHz = {fp32}; FP16/BF16 (WMMA) = 2 x FP32 (RDNA3 convention)"
    ext(id_, "amd", name, aliases, "consumer", f"RDNA 3.5 (Strix Halo, {gpu_name}, {cus} CUs) + Zen 5", "rdna3.5", 2025, mem,
        "LPDDR5X", 256, unified=True, unified_pool=STRIX_POOL,
        tflops=tf_all(fp32=fp32, fp16=r1(2 * fp32), bf16=r1(2 * fp32)), tdp=120,
        power=power_range(45, 120, 120, STRIX + " (cTDP 45-120 W, default 55 W)"),
        form_factor="APU (mini PC or laptop; LPDDR5X-8000 soldered, 256-bit)", form="soc",
        sw=rocm("gfx1151"), video={"av1_encode": True, "nvenc": None}, price=price,
        sources=[STRIX, STRIX_PAGE, STRIX_MEM, ROCM_STRIX, AMD_VGM], confidence=confidence,
        notes=f"DERIVED: {how}. The clock is AMD's maximum; tflops_at_watts is the top of the cTDP range (sustained clocks at lower power are lower). "
              "256 GB/s = LPDDR5X-8000 x 256-bit. Unified memory: the GPU's share is the GTT size on Linux (half of RAM by default) or the BIOS carve-out; "
              "see unified_pool. min_stack null: ROCm support for gfx1151 arrived during 2025 (see the ROCm Strix Halo page); llama.cpp also runs on Vulkan. " + notes,
        derived_how=[("tflops.fp32/fp16/bf16", how)])


strix("amd-ryzen-ai-max-plus-395-128gb", "Ryzen AI Max+ 395 128GB (Radeon 8060S)",
      ["ryzen ai max+ 395 128gb", "ryzen ai max 395 128gb", "ai max+ 395 128gb", "strix halo 128gb", "radeon 8060s 128gb"],
      "Radeon 8060S", 40, 2900, 128,
      dated("msrp", 1999, "2025-02", "Framework Desktop, Ryzen AI Max+ 395 with 128 GB, $1,999 at launch (https://matthewjayhunter.com/post/reviews/hardware/framework_desktop; announced 2025-02-25)"),
      "Price is a whole Framework Desktop (other mini PCs and laptops use the same APU).")
strix("amd-ryzen-ai-max-plus-395-64gb", "Ryzen AI Max+ 395 64GB (Radeon 8060S)",
      ["ryzen ai max+ 395 64gb", "ryzen ai max 395 64gb", "ai max+ 395 64gb", "strix halo 64gb", "radeon 8060s 64gb"],
      "Radeon 8060S", 40, 2900, 64, None,
      "price null: no dated price of a 64 GB configuration was stored.")
strix("amd-ryzen-ai-max-390-32gb", "Ryzen AI Max 390 32GB (Radeon 8050S)",
      ["ryzen ai max 390 32gb", "ai max 390 32gb", "ryzen ai max 390"],
      "Radeon 8050S", 32, 2800, 32, None,
      "AMD's Ryzen AI Max 390 supports 32-128 GB; this entry is the 32 GB configuration (laptops such as the 2025 ASUS ROG Flow Z13 are sold with it). price null.",
      confidence="low")
strix("amd-ryzen-ai-max-385-32gb", "Ryzen AI Max 385 32GB (Radeon 8050S)",
      ["ryzen ai max 385 32gb", "ai max 385 32gb", "ryzen ai max 385"],
      "Radeon 8050S", 32, 2800, 32,
      dated("msrp", 1100, "2025-02", "Framework Desktop 'starts at US$1,100' with the Ryzen AI Max 385 and 32 GB (https://capitaldailynews.com/pt-us/categoria/ciencia-e-tecnologia/o-framework-desktop-e-um-pc-(semi)-modular-mas-me-lembra-um-gamecube-145152, 2025-02)"),
      "Price is a whole Framework Desktop.")

ext("nvidia-dgx-spark", "nvidia", "DGX Spark (GB10, 128GB)", ["dgx spark", "spark", "gb10", "nvidia gb10", "dgx spark 128gb", "project digits"],
    "workstation", "Blackwell (GB10 Grace Blackwell superchip, 20 Arm cores)", "blackwell", 2025, 128, "LPDDR5X", 273,
    unified=True, unified_pool=pool(1.0, 1.0, NONE_SETTING,
                                    "NVIDIA DGX Spark: 128 GB LPDDR5X 'unified and coherent CPU-GPU' memory (https://dgx-spark.warehack.ing/hardware/; https://ai-infrastructure.net/dgx-spark/)"),
    tflops=tf_all(fp32=31, tf32=31.3, fp16=62.5, bf16=62.5, fp8=125, fp4=500, int8=250), sparsity=2, tdp=140,
    form_factor="desktop system (150 x 150 x 50.5 mm, 240 W power supply)", form="soc",
    sw=cuda("12.1", None), video={"av1_encode": True, "nvenc": None},
    price=dated("msrp", 3999, "2025-10", "NVIDIA DGX Spark Founders Edition ~$3,999 (https://ai-infrastructure.net/dgx-spark/, verified against the NVIDIA product page 2026-06)"),
    sources=["GB10 at Hot Chips 2025 (NVIDIA/MediaTek): up to 1 PFLOP FP4 with sparsity, ~31 TFLOPS FP32, 6144 CUDA cores, 140 W SoC, LPDDR5X-9400 at 273-301 GB/s (reported by https://meterpreter.org/a-supercomputer-on-your-desk-nvidia-unveils-the-dgx-spark-ai-superchip)",
             "NVIDIA DGX Spark product page and hardware guide (128 GB unified LPDDR5X, 273 GB/s, sm_121) https://www.nvidia.com/en-us/products/workstations/dgx-spark/", CUDA_GPUS],
    confidence="low",
    notes="DERIVED from NVIDIA's 1000 TFLOPS FP4 sparse with the GeForce Blackwell ratios (GB10 is sm_121, a consumer-class Blackwell SM): FP4 dense = /2 = 500, INT8 = /4 = 250, FP8 = /8 = 125, "
          "FP16/BF16 = /16 = 62.5 (FP32 accumulate at half rate), TF32 = /32 = 31.3; FP32 31 is NVIDIA's. If GB10 runs FP32 accumulate at full rate, FP16/BF16 is 125. "
          "273 GB/s is NVIDIA's figure (Hot Chips gave 273-301). The whole 128 GB is shared with DGX OS (unified_pool). Two units can be joined over ConnectX-7 (2x 200 GbE); not modelled as a link. "
          "min_stack null: needs a CUDA that targets sm_121 (DGX OS ships it).",
    derived_how=[("tflops.tf32/fp16/bf16/fp8/fp4/int8", "NVIDIA's 1000 TFLOPS FP4 sparse with GeForce Blackwell ratios (/2, /4, /8, /16, /32)")])

JETSON_POOL_SRC = "NVIDIA Jetson: CPU and GPU share the module's DRAM (https://docs.nvidia.com/cuda/cuda-for-tegra-appnote/index.html: 'the same physical memory is shared between the CPU and the integrated GPU')"
for id_, name, aliases, mem, cores, sms, ghz, tops, lo, hi, price in (
        ("nvidia-jetson-agx-orin-64gb", "Jetson AGX Orin 64GB", ["jetson agx orin", "agx orin 64gb", "jetson agx orin 64gb", "orin 64gb"], 64, 2048, 16, 1.3, 170, 15, 60,
         dated("msrp", 1999, "2022-03", "NVIDIA GTC 2022 announcement: Jetson AGX Orin Developer Kit (64 GB module) $1,999")),
        ("nvidia-jetson-agx-orin-32gb", "Jetson AGX Orin 32GB", ["agx orin 32gb", "jetson agx orin 32gb", "orin 32gb"], 32, 1792, 14, 0.93, 108, 15, 40, None)):
    fp16 = r1(tops / 4)
    ext(id_, "nvidia", name, aliases, "workstation", "Ampere (GA10B, Orin SoC, 12-core Arm)", "orin", 2022 if mem == 64 else 2023, mem,
        "LPDDR5", 204.8, unified=True, unified_pool=pool(1.0, 1.0, NONE_SETTING, JETSON_POOL_SRC),
        tflops=tf_all(fp32=r1(cores * 2 * ghz / 1000), tf32=r1(fp16 / 2), fp16=fp16, bf16=fp16, int8=r1(tops / 2)), sparsity=2, tdp=hi,
        power=power_range(lo, hi, hi, JETSON + f" (power modes {lo}-{hi} W; MAXN at {hi} W)"),
        form_factor="embedded module (developer kit or carrier board)", form="soc", sw=cuda("8.7", "JetPack 5.0+ (CUDA 11.4+)"),
        video={"av1_encode": False, "nvenc": None}, price=price,
        sources=[JETSON, "llmperf.net Jetson GPU summary (Ampere tensor cores, sparse = 2x dense) https://llmperf.net/categories/gpu/Nvidia-Jetson"],
        confidence="low",
        notes=f"GPU only (the DLAs are not counted): {cores} CUDA cores / {sms} SMs at up to {ghz} GHz, {tops} sparse INT8 TOPS. DERIVED: INT8 dense = {tops}/2 = {r1(tops / 2)}; "
              f"FP16/BF16 = INT8/2 = {fp16} (= {sms} SMs x {ghz} GHz x 2048, the A100-class per-SM rate); TF32 = FP16/2; FP32 = {cores} x 2 x {ghz} GHz. "
              "204.8 GB/s = LPDDR5-6400 x 256-bit. The OS shares the pool (unified_pool). " + ("price is the developer kit." if price else "price null (module sold to OEMs; no dated price stored)."),
        derived_how=[("tflops.*", f"{tops} sparse INT8 TOPS / 2 = INT8 dense; FP16 = INT8/2; TF32 = FP16/2; FP32 = {cores} x 2 x {ghz} GHz")])

ext("nvidia-jetson-thor", "nvidia", "Jetson AGX Thor (T5000, 128GB)", ["jetson thor", "agx thor", "jetson agx thor", "thor t5000", "jetson t5000"],
    "workstation", "Blackwell (Thor SoC, 14-core Arm Neoverse-V3AE)", "blackwell", 2025, 128, "LPDDR5X", 273,
    unified=True, unified_pool=pool(1.0, 1.0, NONE_SETTING, JETSON_POOL_SRC),
    tflops=tf_all(fp16=258.8, bf16=258.8, fp8=517.5, fp4=1035), sparsity=2, tdp=130,
    power=power_range(40, 130, 130, "NVIDIA Jetson AGX Thor: configurable 40-130 W (https://learnaivisually.com/ai-explained/jetson-thor-edge-blackwell)"),
    form_factor="embedded module (developer kit or carrier board)", form="soc", sw=cuda("11.0", "JetPack 7 (CUDA 13.0)"),
    video={"av1_encode": True, "nvenc": None},
    price=dated("msrp", 3499, "2025-08", "NVIDIA Jetson AGX Thor Developer Kit launch price $3,499 (2025-08-25)"),
    sources=["NVIDIA Jetson AGX Thor: 2560-core Blackwell GPU with 96 fifth-generation Tensor Cores, 2070 FP4 TFLOPS (sparse), 128 GB LPDDR5X 256-bit 273 GB/s, 40-130 W https://www.nvidia.com/en-us/autonomous-machines/embedded-systems/jetson-thor/",
             "RidgeRun Jetson AGX Thor Blackwell GPU notes (2560 CUDA cores, 96 Tensor Cores, MIG) https://developer.ridgerun.com/wiki/index.php/NVIDIA_Jetson_AGX_Thor/Blackwell_GPU",
             "NVIDIA developer forum: the dev kit reports 20 SMs (2560 CUDA cores) https://forums.developer.nvidia.com/t/clarification-on-cuda-core-and-tensor-core-counts-for-jetson-agx-thor/356355", CUDA_GPUS],
    confidence="low",
    notes="DERIVED from NVIDIA's 2070 FP4 TFLOPS (sparse): FP4 dense = 1035; FP8 = FP4/2 = 517.5; FP16/BF16 = FP8/2 = 258.8 (data-center Blackwell ratios: 20 SMs deliver 2070 sparse FP4 only with B200-class tensor cores). "
          "fp32/tf32/int8 null: the GPU clock was not stored and Blackwell's INT8 rate on Thor is not published. The whole 128 GB is shared with the OS (unified_pool). Compute capability 11.0 (CUDA 13 numbering).",
    derived_how=[("tflops.fp16/bf16/fp8/fp4", "2070 FP4 TFLOPS sparse / 2 = 1035 dense; FP8 = /2; FP16 = /4 (data-center Blackwell ratios)")])


# ------------------------------ Apple silicon: every configuration sold ---------------------------------
# (chip, family, year, memory type, GPU clock GHz, clock source, Apple's published TFLOPS for the top bin or None,
#  segment, [(GPU cores, bandwidth GB/s, [memory GB ...]), ...], spec sources)
APPLE_SPECS = "Apple Mac tech specs (support.apple.com; configurations as listed for MacBook Air/Pro, Mac mini, iMac, Mac Studio)"
HFJS_MEM = "huggingface/huggingface.js#1937 (Apple memory options checked against the Apple tech-spec pages: M1 Pro 16/32, M1 Max 32/64, M1 Ultra 64/128, M2 Pro 16/32, M2 Ultra 64/128/192, M4 Max 36/48/64/128)"
APPLE_CHIPS = [
    ("M1", "apple-m1", 2020, "LPDDR4X", 1.278, METAL_BENCH, (8, 2.6), "consumer",
     [(7, 66.7, [8, 16]), (8, 66.7, [8, 16])],
     ["Apple newsroom, 'Apple unleashes M1' (2020-11): 8-core GPU, 2.6 teraflops", APPLE_SPECS]),
    ("M1 Pro", "apple-m1", 2021, "LPDDR5", 1.296, METAL_BENCH, (16, 5.2), "consumer",
     [(14, 200, [16, 32]), (16, 200, [16, 32])],
     ["Apple newsroom, 'Introducing M1 Pro and M1 Max' (2021-10): M1 Pro up to 16-core GPU, 5.2 teraflops, 200 GB/s, up to 32 GB", HFJS_MEM, APPLE_SPECS]),
    ("M1 Max", "apple-m1", 2021, "LPDDR5", 1.296, METAL_BENCH, (32, 10.4), "workstation",
     [(24, 400, [32, 64]), (32, 400, [32, 64])],
     ["Apple newsroom, 'Introducing M1 Pro and M1 Max' (2021-10): M1 Max up to 32-core GPU, 10.4 teraflops, 400 GB/s, up to 64 GB", HFJS_MEM, APPLE_SPECS]),
    ("M1 Ultra", "apple-m1", 2022, "LPDDR5", 1.296, METAL_BENCH, (64, 21), "workstation",
     [(48, 800, [64, 128]), (64, 800, [64, 128])],
     ["Apple newsroom, M1 Ultra announcement (2022-03): up to 64-core GPU, 21 teraflops, 800 GB/s, up to 128 GB", HFJS_MEM, APPLE_SPECS]),
    ("M2", "apple-m2", 2022, "LPDDR5", 1.398, METAL_BENCH, None, "consumer",
     [(8, 100, [8, 16, 24]), (10, 100, [8, 16, 24])],
     ["Apple newsroom, M2 announcement (2022-06): up to 10-core GPU, 100 GB/s, up to 24 GB", APPLE_SPECS]),
    ("M2 Pro", "apple-m2", 2023, "LPDDR5", 1.398, METAL_BENCH, None, "consumer",
     [(16, 200, [16, 32]), (19, 200, [16, 32])],
     ["Apple newsroom, M2 Pro/M2 Max announcement (2023-01): M2 Pro up to 19-core GPU, 200 GB/s, up to 32 GB", HFJS_MEM, APPLE_SPECS]),
    ("M2 Max", "apple-m2", 2023, "LPDDR5", 1.398, METAL_BENCH, None, "workstation",
     [(30, 400, [32, 64]), (38, 400, [32, 64, 96])],
     ["Apple newsroom, M2 Pro/M2 Max announcement (2023-01): M2 Max 30- or 38-core GPU, 400 GB/s, up to 96 GB (96 GB with the 38-core GPU)", APPLE_SPECS]),
    ("M2 Ultra", "apple-m2", 2023, "LPDDR5", 1.398, METAL_BENCH, None, "workstation",
     [(60, 800, [64, 128, 192]), (76, 800, [64, 128, 192])],
     ["Apple newsroom, 'Apple introduces M2 Ultra' (2023-06-05): 60- or 76-core GPU, 800 GB/s, up to 192 GB", HFJS_MEM, APPLE_SPECS]),
    ("M3", "apple-m3", 2023, "LPDDR5", 1.38, APPLEGPUINFO_M3, None, "consumer",
     [(8, 100, [8, 16, 24]), (10, 100, [8, 16, 24])],
     ["Apple newsroom, M3 family announcement (2023-10): M3 8- or 10-core GPU, 100 GB/s, up to 24 GB", APPLE_SPECS]),
    ("M3 Pro", "apple-m3", 2023, "LPDDR5", 1.38, APPLEGPUINFO_M3, None, "consumer",
     [(14, 150, [18, 36]), (18, 150, [18, 36])],
     ["Apple newsroom, M3 family announcement (2023-10): M3 Pro 14- or 18-core GPU, 150 GB/s, 18 or 36 GB", APPLE_SPECS]),
    ("M3 Max", "apple-m3", 2023, "LPDDR5", 1.38, APPLEGPUINFO_M3, None, "workstation",
     [(30, 300, [36, 96]), (40, 400, [48, 64, 128])],
     ["Apple MacBook Pro (Nov 2023) tech specs: M3 Max 14-core CPU / 30-core GPU with 36 or 96 GB (300 GB/s); 16-core CPU / 40-core GPU with 48, 64 or 128 GB (400 GB/s)", APPLE_SPECS]),
    ("M3 Ultra", "apple-m3", 2025, "LPDDR5", 1.38, APPLEGPUINFO_M3, None, "workstation",
     [(60, 819, [96, 256]), (80, 819, [96, 256, 512])],
     ["Apple Mac Studio (2025) tech specs: M3 Ultra 28-core CPU / 60-core GPU or 32-core CPU / 80-core GPU, 819 GB/s, 96 or 256 GB (512 GB with the 80-core GPU) https://www.apple.com/mac-studio/specs/", APPLE_SPECS]),
    ("M4", "apple-m4", 2024, "LPDDR5X", 1.47, HMC_M4, None, "consumer",
     [(8, 120, [16, 24]), (10, 120, [16, 24, 32])],
     ["Apple newsroom, M4 Mac announcements (2024-10): M4 8- or 10-core GPU, 120 GB/s, 16, 24 or 32 GB", APPLE_SPECS]),
    ("M4 Pro", "apple-m4", 2024, "LPDDR5X", 1.47, HMC_M4, None, "consumer",
     [(16, 273, [24, 48, 64]), (20, 273, [24, 48, 64])],
     ["Apple newsroom, M4 Pro announcement (2024-10): 16- or 20-core GPU, 273 GB/s, 24, 48 or 64 GB (Mac mini)", APPLE_SPECS]),
    ("M4 Max", "apple-m4", 2024, "LPDDR5X", 1.678, HMC_M4, None, "workstation",
     [(32, 410, [36]), (40, 546, [48, 64, 128])],
     ["Apple MacBook Pro (2024) / Mac Studio (2025) tech specs: M4 Max 14-core CPU / 32-core GPU with 36 GB (410 GB/s); 16-core CPU / 40-core GPU with 48, 64 or 128 GB (546 GB/s) https://www.apple.com/macbook-pro/specs/", HFJS_MEM]),
]
# Existing ids stay: (chip, cores, memory) -> id of the entry that already exists.
APPLE_EXISTING = {("M1", 7, 8): "apple-m1-7c-8gb", ("M1 Max", 32, 64): "apple-m1-max-32c-64gb",
                  ("M1 Ultra", 64, 128): "apple-m1-ultra-64c-128gb", ("M2 Max", 38, 96): "apple-m2-max-38c-96gb",
                  ("M2 Ultra", 76, 192): "apple-m2-ultra-76c-192gb", ("M3 Max", 40, 64): "apple-m3-max-40c-64gb",
                  ("M3 Max", 40, 128): "apple-m3-max-40c-128gb", ("M3 Ultra", 80, 512): "apple-m3-ultra-80c",
                  ("M4 Max", 40, 128): "apple-m4-max-40c", ("M4 Pro", 20, 64): "apple-m4-pro-20c-64gb"}


def apple_share(mem_gb):
    return round(2 / 3, 4) if mem_gb <= 32 else 0.75


def apple_tflops(chip, cores, clock, published):
    """FP32 = cores x 128 ALUs x 2 x clock; FP16 = FP32 (Apple GPUs have no double-rate FP16). Apple's own figure
    where it published one for that core count."""
    if published and published[0] == cores:
        v = published[1]
        return v, f"FP32 {v} = Apple's published {v} teraflops for the {cores}-core GPU; FP16 = FP32 (no double-rate FP16 on Apple GPUs: metal-benchmarks GOPS16 = GOPS32)"
    v = round(cores * 128 * 2 * clock / 1000, 2)
    return v, f"FP32 = {cores} cores x 128 ALUs x 2 x {clock} GHz = {v}; FP16 = FP32 (no double-rate FP16 on Apple GPUs: metal-benchmarks GOPS16 = GOPS32)"


APPLE_GENERATED = {}  # id -> entry (new and existing ids), filled by apple_configs()


def apple_configs():
    out = []
    for chip, fam, year, mtype, clock, clock_src, published, seg, bins, sources in APPLE_CHIPS:
        key = chip.lower().replace(" ", "-")
        mems_by_bin = {c: set(m) for c, _, m in bins}
        for cores, bw, mems in bins:
            for mem in mems:
                id_ = APPLE_EXISTING.get((chip, cores, mem), f"apple-{key}-{cores}c-{mem}gb")
                fp, how = apple_tflops(chip, cores, clock, published)
                unique_mem = sum(mem in m for m in mems_by_bin.values()) == 1
                aliases = [f"{chip.lower()} {cores}-core {mem}gb", f"{key}-{cores}c-{mem}gb"]
                if unique_mem:
                    aliases = [f"{chip.lower()} {mem}gb", f"apple {chip.lower()} {mem}gb"] + aliases
                binned = len(bins) > 1 and cores != max(c for c, _, _ in bins)
                conf = "medium" if published and published[0] == cores else "low"
                notes = (f"DERIVED: {how}. "
                         + ("Apple published TFLOPS only for the M1 family's top bins; the clock is measured (metal-benchmarks / applegpuinfo / hmc-tech), so this is an estimate. " if conf == "low" else "")
                         + (f"Binned {chip}: {cores} of {max(c for c, _, _ in bins)} GPU cores" + (f", {bw} GB/s instead of {max(b for _, b, _ in bins)}" if bw != max(b for _, b, _ in bins) else "") + ". " if binned else "")
                         + f"Unified memory: macOS lets the GPU wire {'2/3' if mem <= 32 else '3/4'} of it by default (unified_pool); iogpu.wired_limit_mb raises it. "
                         + "bf16 null: Metal exposes bfloat (3.1+) but a hardware BF16 rate is not published; the estimator uses the FP16 figure. No TDP or GPU-only price is published (Apple sells systems); no hardware AV1 encode.")
                # The core count stays out of parentheses: name matching (detect, lookup) drops
                # parenthesised remarks, and the bins of one chip differ only by it.
                e = entry(id_, "apple", f"{chip}, {cores}-core GPU, {mem}GB", aliases, seg, f"Apple GPU ({fam.split('-')[1].upper()} family)", fam,
                          year, mem, mtype, bw, unified=True,
                          unified_pool=pool(apple_share(mem), None, APPLE_WIRED, APPLE_WSS),
                          tflops=tf_all(fp32=fp, fp16=fp), form_factor="SoC (unified memory shared with the CPU)", form="soc",
                          sw=METAL_SW, video={"av1_encode": False, "nvenc": None}, sources=sources + [clock_src],
                          confidence=conf, notes=notes,
                          derived_how=[("tflops.fp32/fp16", how)] if conf == "low" else None)
                APPLE_GENERATED[id_] = e
                out.append(e)
    return out


EXTENSION_APPLE = apple_configs()


# ------------------------------ Changes to existing entries ---------------------------------------------
M1_BW_NOTE = "DERIVED bandwidth: Apple never stated the M1's figure; 100 GB/s / 1.5 = 66.7 GB/s from Apple's M2 comparison (third-party sources give 68.25 GB/s = LPDDR4X-4266 x 128-bit). "
AMBIGUOUS_NOW = {"m1 max 64gb", "apple m1 max 64gb", "m1 ultra 128gb", "apple m1 ultra 128gb", "m2 ultra 192gb",
                 "apple m2 ultra 192gb", "m4 pro 64gb", "apple m4 pro 64gb"}


def patch_existing(e):
    """Hand-sourced changes to entries that already exist (ids unchanged)."""
    i = e["id"]
    if i in APPLE_GENERATED:
        g = APPLE_GENERATED[i]
        e["aliases"] = [a for a in e["aliases"] if a not in AMBIGUOUS_NOW]
        for a in g["aliases"]:
            if normalize(a) not in {normalize(x) for x in e["aliases"]}:
                e["aliases"].append(a)
        e["name"] = g["name"]
        e["unified_pool"] = g["unified_pool"]
        e["tflops"] = g["tflops"]
        e["confidence"] = "low" if i == "apple-m1-7c-8gb" else g["confidence"]
        e["notes"] = (M1_BW_NOTE if i == "apple-m1-7c-8gb" else "") + g["notes"] + (
            " Max configurable unified memory." if i in ("apple-m4-max-40c", "apple-m3-ultra-80c") else "")
        for s in g["sources"]:
            if s not in e["sources"]:
                e["sources"].append(s)
    if i in ("nvidia-l4", "nvidia-l40s") and e["price"] and not e["price"]["date"]:
        e["price"]["date"] = "2026-11"
        e["price"]["source"] += "; the page is undated: dated at the 2026-11 catalog review"
    if i == "nvidia-a2":
        e["power"] = power_range(40, 60, 60, "NVIDIA A2 datasheet: max power 40-60 W (configurable)")
    if i == "nvidia-v100-sxm2-16gb" and (e["price"] is None or e["price"]["kind"] != "used"):
        if e["price"] is not None and e.get("launch_price") is None:
            e["launch_price"] = e["price"]
        e["price"] = dated("used", 56, "2025-09",
                           "r/LocalLLaMA post 1nokzcf on V100 SXM2 boards (read via the redlib mirror https://redlib.deleted.directory/r/localllama): "
                           "'as low as around 400 RMB (~56 USD)' on the Chinese domestic market after the Summit decommissioning; month from the thread id")
    if i in ("nvidia-v100-pcie-16gb", "nvidia-v100-pcie-32gb") and "used price" not in e["notes"]:
        e["notes"] += " No dated used price for the PCIe card was found (price null; the 2018 list price is kept as launch_price)."
    return e


def normalize_entry(e):
    """The key order of ENTRY_KEYS; every required key present (new ones null), optional ones only when set."""
    e.setdefault("unified_pool", None)
    e.setdefault("power", None)
    t = e["tflops"]
    e["tflops"] = {k: t.get(k) for k in TFLOPS_KEYS}
    out = {}
    for k in ENTRY_KEYS:
        if k in ENTRY_OPTIONAL:
            if e.get(k) is not None:
                out[k] = e[k]
        else:
            out[k] = e.get(k)
    extra = set(e) - set(ENTRY_KEYS)
    assert not extra, (e["id"], extra)
    return out


def validate_catalog(gpus):
    errs = []
    seen = {}
    for e in gpus:
        i = e["id"]
        keys = [k for k in ENTRY_KEYS if k in e]
        if list(e.keys()) != keys or any(k not in e for k in ENTRY_KEYS if k not in ENTRY_OPTIONAL):
            errs.append(f"{i}: keys {list(e.keys())}")
        if not re.fullmatch(r"[a-z0-9]+(-[a-z0-9]+)*", i):
            errs.append(f"{i}: bad id")
        if e["vendor"] not in PLATFORM or e["segment"] not in ("consumer", "workstation", "datacenter"):
            errs.append(f"{i}: vendor/segment")
        if e["arch_family"] not in ALL_FAMILIES:
            errs.append(f"{i}: family {e['arch_family']}")
        if e["confidence"] not in ("high", "medium", "low"):
            errs.append(f"{i}: confidence")
        if not isinstance(e["memory_bytes"], int) or e["memory_bytes"] % GIB:
            errs.append(f"{i}: memory_bytes")
        if not (0 < e["memory_bandwidth_gbps"] <= 20000):
            errs.append(f"{i}: bandwidth")
        t = e["tflops"]
        if list(t.keys()) != TFLOPS_KEYS:
            errs.append(f"{i}: tflops keys")
        if t["fp8"] is not None and e["arch_family"] not in FP8_OK:
            errs.append(f"{i}: fp8 on {e['arch_family']}")
        if e["arch_family"] in ("volta", "turing", "pascal", "maxwell", "gcn5") and (t["bf16"] is not None or t["tf32"] is not None):
            errs.append(f"{i}: bf16/tf32 on {e['arch_family']}")
        if e["sparsity_multiplier"] not in (1, 2):
            errs.append(f"{i}: sparsity")
        if e["form"] not in ("card", "module", "soc", "laptop"):
            errs.append(f"{i}: form")
        p = e["interconnect"]
        if p["type"] == "none" and (p["max_gpus"] != 1 or p["bandwidth_gbps"] is not None):
            errs.append(f"{i}: interconnect none")
        if p["type"] != "none" and not (isinstance(p["max_gpus"], int) and p["max_gpus"] >= 2):
            errs.append(f"{i}: max_gpus")
        exp = PLATFORM[e["vendor"]]
        if exp and e["software"]["platform"] != exp:
            errs.append(f"{i}: platform")
        if e["vendor"] != "nvidia" and e["video"]["nvenc"] is not None:
            errs.append(f"{i}: nvenc on non-nvidia")
        for key in ("price", "launch_price"):
            pr = e.get(key)
            if pr is None:
                continue
            if list(pr.keys()) != ["usd", "kind", "date", "source"] or pr["kind"] not in PRICE_KINDS \
                    or not re.fullmatch(r"\d{4}-(0[1-9]|1[0-2])", pr["date"] or "") or not pr["source"]:
                errs.append(f"{i}: {key} needs usd, kind, date (YYYY-MM) and source: {pr}")
        up = e["unified_pool"]
        if up is not None:
            if not e["unified_memory"] or list(up.keys()) != ["default_share", "max_share", "setting", "source"] \
                    or not (0 < up["default_share"] <= 1) or (up["max_share"] is not None and not (up["default_share"] <= up["max_share"] <= 1)) \
                    or not up["setting"] or not up["source"]:
                errs.append(f"{i}: unified_pool {up}")
        elif e["form"] == "soc" and i != "amd-mi300a":
            errs.append(f"{i}: a SoC needs a unified_pool")
        pw = e["power"]
        if pw is not None:
            if list(pw.keys()) != ["min_watts", "max_watts", "tflops_at_watts", "source"] or not (0 < pw["min_watts"] <= pw["max_watts"]) \
                    or not (pw["min_watts"] <= pw["tflops_at_watts"] <= pw["max_watts"]) or e["tdp_watts"] != pw["max_watts"] or not pw["source"]:
                errs.append(f"{i}: power {pw}")
        elif e["form"] == "laptop":
            errs.append(f"{i}: a laptop GPU needs a power range")
        if i in DERIVED and "DERIVED" not in e["notes"]:
            errs.append(f"{i}: DERIVED not in notes")
        if not e["sources"]:
            errs.append(f"{i}: sources")
        for a in [i] + e["aliases"]:
            n = normalize(a)
            if a != a.strip() or not a:
                errs.append(f"{i}: alias {a!r}")
            if n in seen and seen[n] != i:
                errs.append(f"name collision {n!r}: {seen[n]} vs {i}")
            seen[n] = i
    for bad in ["a100", "h100", "h200", "v100", "gh200", "3080", "a770", "4060ti", "rtx6000", "m3max", "a10080gb", "a10040gb",
                "a800", "4060", "rtxpro5000", "m1max64gb", "m3ultra96gb", "m4max", "m4pro", "p100sxm2"]:
        if bad in seen and not (bad == "4060" and seen[bad] == "nvidia-rtx-4060-8gb"):
            errs.append(f"ambiguous alias {bad!r} used by {seen[bad]}")
    return errs


def catalog_tables(gpus):
    lines = ["| card (id) | field(s) | how |", "|---|---|---|"]
    for e in gpus:
        for field, how in DERIVED.get(e["id"], []):
            lines.append(f"| {e['name']} (`{e['id']}`) | {field} | {how} |")
    rows = ["| id | name | memory | GB/s | FP16/BF16 dense (FP32 acc) | confidence | source |", "|---|---|---|---|---|---|---|"]
    csv_ids = {r["id"] for r in csv.DictReader(open(CSV_PATH, newline=""))}
    added_2026_12 = {e["id"] for e in EXTENSION + EXTENSION_APPLE} - set(APPLE_EXISTING.values())
    for e in gpus:
        t = e["tflops"]
        f16 = t["bf16"] if t["bf16"] is not None else t["fp16"]
        where = "reference CSV" if e["id"] in csv_ids else ("added 2026-12" if e["id"] in added_2026_12 else "added")
        rows.append(f"| `{e['id']}` | {e['name']} | {e['memory_bytes'] // GIB} GB | {e['memory_bandwidth_gbps']} | "
                    f"{f16 if f16 is not None else '-'} | {e['confidence']} | {where} |")
    return "\n".join(lines), "\n".join(rows)


def apply_changes(doc):
    gpus = [normalize_entry(patch_existing(json.loads(json.dumps(e)))) for e in doc["gpus"]]
    have = {e["id"] for e in gpus}
    for e in EXTENSION + EXTENSION_APPLE:
        if e["id"] in APPLE_EXISTING.values():
            continue
        e = normalize_entry(json.loads(json.dumps(e)))
        if e["id"] in have:
            gpus = [e if g["id"] == e["id"] else g for g in gpus]
        else:
            gpus.append(e)
    for e in gpus:  # M1 base configurations share the derived M1 bandwidth
        if e["arch_family"] == "apple-m1" and e["memory_bandwidth_gbps"] == 66.7 and e["id"] != "apple-m1-7c-8gb":
            if not e["notes"].startswith("DERIVED bandwidth"):
                e["notes"] = M1_BW_NOTE + e["notes"]
            if not any(f == "memory_bandwidth_gbps" for f, _ in DERIVED.get(e["id"], [])):
                derived(e["id"], "memory_bandwidth_gbps", "Apple: M2's 100 GB/s is '50% more than M1' -> 100 / 1.5 = 66.7 GB/s")
    gpus.sort(key=lambda e: (e["vendor"], e["id"]))
    out = dict(doc)
    out["gpus"] = gpus
    return out


def write_doc_tables(gpus):
    d, r = catalog_tables(gpus)
    text = open(DOC_PATH).read()
    for tag, body in (("derived", d), ("entries", r)):
        text = re.sub(r"(<!-- BEGIN GENERATED: %s -->\n).*?(<!-- END GENERATED: %s -->)" % (tag, tag),
                      lambda m: m.group(1) + body + "\n" + m.group(2), text, flags=re.S)
    counts = {}
    for e in gpus:
        counts[e["vendor"]] = counts.get(e["vendor"], 0) + 1
    summary = f"Contents: {len(gpus)} entries — " + ", ".join(
        f"{v} {counts[k]}" for k, v in (("nvidia", "NVIDIA"), ("amd", "AMD"), ("intel", "Intel"), ("apple", "Apple")))
    text = re.sub(r"Contents: \d+ entries — [^.]*\.", summary + ".", text, count=1)
    open(DOC_PATH, "w").write(text)


def dump(doc):
    return json.dumps(doc, indent=2, ensure_ascii=False) + "\n"


def main():
    if "--from-csv" in sys.argv:  # historical: the first catalog, from the CSV and ADDED
        gpus = build()
        errs = validate_csv_build(gpus)
        if errs:
            sys.exit("\n".join(errs))
        out = sys.argv[sys.argv.index("--from-csv") + 1]
        with open(out, "w") as f:
            json.dump({"schema": 1, "gpus": gpus}, f, indent=2, ensure_ascii=False)
        return
    current = json.load(open(OUT_PATH))
    updated = apply_changes(current)
    errs = validate_catalog(updated["gpus"])
    counts = {}
    for e in updated["gpus"]:
        counts[e["vendor"]] = counts.get(e["vendor"], 0) + 1
    print("entries:", len(updated["gpus"]), counts, file=sys.stderr)
    if errs:
        print("\n".join(errs), file=sys.stderr)
        sys.exit(1)
    if "--check" in sys.argv:
        if dump(updated) != dump(current):
            sys.exit("data/gpus.json differs from what this script makes of it; run it without --check")
        return
    with open(OUT_PATH, "w") as f:
        f.write(dump(updated))
    write_doc_tables(updated["gpus"])


if __name__ == "__main__":
    main()
