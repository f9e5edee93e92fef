#!/usr/bin/env python3
"""Builds data/gpus.json (and the generated tables of docs/catalog.md) from
tests/data/gpu_specs.csv plus the hand-sourced additions below.

Helper used once to write the catalog; the build never runs it.
Usage:  python3 scripts/csv_to_catalog.py            (writes data/gpus.json)
        python3 scripts/csv_to_catalog.py --check    (validates only)

Rules followed (see docs/catalog.md):
  * every number comes from gpu_specs.csv, Epoch AI's ML hardware data, or a
    vendor document; derived numbers are listed in DERIVED and in notes;
  * tensor throughput is dense; FP16/BF16 with FP32 accumulate;
  * interconnect bandwidth is total bidirectional GB/s per GPU;
  * memory_bytes = nominal GB * 2**30.
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
KEYS = ["id", "vendor", "name", "aliases", "segment", "architecture", "arch_family", "launch_year", "memory_bytes",
        "memory_type", "memory_bandwidth_gbps", "unified_memory", "ecc", "tflops", "sparsity_multiplier", "tdp_watts",
        "pcie", "interconnect", "form_factor", "software", "video", "price", "sources", "confidence", "notes"]
FAMILIES = {"volta", "turing", "ampere", "ada", "hopper", "blackwell", "cdna1", "cdna2", "cdna3", "cdna4", "rdna2", "rdna3",
            "rdna4", "xe-hpg", "xe-hpc", "xe2", "gaudi2", "gaudi3", "apple-m1", "apple-m2", "apple-m3", "apple-m4", "orin"}
FP8_OK = {"ada", "hopper", "blackwell", "cdna3", "cdna4", "rdna4", "gaudi2", "gaudi3"}
PLATFORM = {"nvidia": "cuda", "amd": "rocm", "intel": None, "apple": "metal"}


def normalize(s):
    return re.sub(r"[\s\-_.]", "", s.lower())


def validate(gpus):
    errs = []
    seen = {}
    for e in gpus:
        if list(e.keys()) != KEYS:
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


def main():
    gpus = build()
    errs = validate(gpus)
    counts = {}
    for e in gpus:
        counts[e["vendor"]] = counts.get(e["vendor"], 0) + 1
    print("entries:", len(gpus), counts, file=sys.stderr)
    if errs:
        print("\n".join(errs), file=sys.stderr)
        sys.exit(1)
    if "--check" in sys.argv:
        return
    doc = {
        "schema": 1,
        "catalog_date": "2026-11-30",
        "attribution": ("Figures come from vendor documents (datasheets, product/spec pages, architecture whitepapers) as compiled in "
                        "the gpuadvise reference table tests/data/gpu_specs.csv and in each entry's sources; some figures and datacenter "
                        "price estimates are taken from Epoch AI, 'Data on Machine Learning Hardware', "
                        "https://epoch.ai/data/machine-learning-hardware (licensed CC BY; used with attribution, cited per entry). "
                        "Derived figures are marked DERIVED in each entry's notes and listed in docs/catalog.md."),
        "gpus": gpus,
    }
    with open(OUT_PATH, "w") as f:
        json.dump(doc, f, indent=2, ensure_ascii=False)
        f.write("\n")
    # Refresh the generated tables in docs/catalog.md (between marker comments).
    d, r, _ = doc_tables(gpus)
    if os.path.exists(DOC_PATH):
        text = open(DOC_PATH).read()
        for tag, body in (("derived", d), ("entries", r)):
            text = re.sub(r"(<!-- BEGIN GENERATED: %s -->\n).*?(<!-- END GENERATED: %s -->)" % (tag, tag),
                          lambda m: m.group(1) + body + "\n" + m.group(2), text, flags=re.S)
        with open(DOC_PATH, "w") as f:
            f.write(text)


if __name__ == "__main__":
    main()
