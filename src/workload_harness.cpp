// The training harnesses: each library's defaults and the switches of its
// code path that the memory model reads (docs/memory-model.md, "Harnesses").
// Every switch names the code it comes from; commits are the snapshots read.
#include <array>

#include "gpuadvise/workload.hpp"

namespace gpuadvise {
namespace {

constexpr std::array<HarnessProfile, 9> kProfiles{{
    {.id = Harness::Hf,
     .label = "Hugging Face Trainer + PEFT",
     // transformers loss_utils.py ForCausalLMLoss: logits.float(). PEFT
     // LoraConfig lora_dropout=0.0. BitsAndBytesConfig
     // bnb_4bit_use_double_quant=False. TrainingArguments
     // gradient_checkpointing=False, but prepare_model_for_kbit_training
     // (peft utils/other.py) enables it (use_gradient_checkpointing=True) and
     // casts every fp16/bf16 parameter left (embeddings, lm_head, norms) to
     // fp32. PEFT's autocast_adapter_dtype keeps LoRA weights fp32.
     // gradient_checkpointing_enable defaults to use_reentrant=True.
     .loss = Loss::Upcast,
     .optimizer_impl = OptimizerImpl::Foreach,
     .lora_dropout = 0.0,
     .double_quant = false,
     .ckpt = CkptMode::None,
     .kbit_prepare = true,
     .kbit_fp32 = true,
     .source = "transformers loss_utils.py, training_args.py; peft utils/other.py "
               "prepare_model_for_kbit_training, tuners/lora/config.py (5d602fdb)"},
    {.id = Harness::Trl,
     .label = "TRL SFTTrainer",
     // sft_config.py: loss_type defaults to chunked_nll (utils.py
     // _ChunkedLogProbFunction: the lm_head in vocabulary chunks, the [N, V]
     // logits never materialised), gradient_checkpointing=True, packing=False;
     // sft_trainer.py: use_reentrant=False by default (transformers < 5), LoRA
     // weights of a quantized model cast to bf16, no
     // prepare_model_for_kbit_training since #2405 (Feb 2025).
     .loss = Loss::Fused,
     .optimizer_impl = OptimizerImpl::Foreach,
     .lora_dropout = 0.0,
     .double_quant = false,
     .ckpt = CkptMode::Full,
     .qlora_adapters_fp32 = false,
     .reentrant_ckpt = false,
     .source = "trl trainer/sft_config.py, sft_trainer.py, utils.py (f2cd5771)"},
    {.id = Harness::Axolotl,
     .label = "axolotl",
     // loaders/model.py: bnb_4bit_use_double_quant=True;
     // prepare_model_for_kbit_training, then norms and embeddings converted
     // back to torch_dtype for LoRA/QLoRA (_convert_embedding_modules_dtype);
     // core/builders/base.py: use_reentrant=False unless configured. An
     // axolotl run starts from one of its example configs, whose settings are
     // the defaults here (the schema's own are off): the CutCrossEntropyPlugin
     // (the logits never materialised) in 72 of the 213 example configs
     // outside archived/ and in 21 of the 26 example folders whose README says
     // how much memory a config uses (apertus, arcee, devstral, gemma4,
     // glm45, granite4, hunyuan, magistral, mimo, ministral, olmo3, plano,
     // seed-oss, trinity, ...); sample_packing: true in 137 of 213;
     // gradient_checkpointing: true and lora_dropout: 0.05 in the QLoRA ones.
     .loss = Loss::Fused,
     .optimizer_impl = OptimizerImpl::Foreach,
     .lora_dropout = 0.05,
     .double_quant = true,
     .ckpt = CkptMode::Full,
     .packing = true,
     .kbit_prepare = true,
     .reentrant_ckpt = false,
     // Its example configs run FlashAttention-2 (attn_implementation:
     // flash_attention_2), which takes the KV heads as they are.
     .repeats_kv_heads = false,
     .source = "axolotl loaders/model.py, core/builders/base.py, utils/schemas, examples/*/ "
               "(067b021c)"},
    {.id = Harness::MsSwift,
     .label = "ms-swift",
     // arguments/base_args/quant_args.py bnb_4bit_use_double_quant=True;
     // tuner_args.py lora_dropout=0.05; trainers/arguments.py
     // gradient_checkpointing=True; trainers/mixin.py use_reentrant=True on
     // one GPU; no prepare_model_for_kbit_training. The loss is the model's.
     .loss = Loss::Upcast,
     .optimizer_impl = OptimizerImpl::Foreach,
     .lora_dropout = 0.05,
     .double_quant = true,
     .ckpt = CkptMode::Full,
     .source = "ms-swift arguments/base_args/quant_args.py, arguments/tuner_args.py, "
               "trainers/arguments.py, trainers/mixin.py (3602360a)"},
    {.id = Harness::Unsloth,
     .label = "Unsloth",
     // models/llama.py get_peft_model: lora_dropout=0.0,
     // use_gradient_checkpointing="unsloth" (the layer inputs offloaded to the
     // host); loader.py bnb_4bit_use_double_quant=True; kernels/fast_lora.py
     // LoRA_MLP / LoRA_QKV / LoRA_W; its fused cross-entropy never
     // materialises the logits.
     .loss = Loss::Fused,
     .optimizer_impl = OptimizerImpl::Foreach,
     .lora_dropout = 0.0,
     .double_quant = true,
     .ckpt = CkptMode::Offload,
     .fused_lora_kernels = true,
     // Its attention (models/llama.py LlamaAttention_fast_forward) hands the
     // KV heads to FlashAttention / xformers as grouped heads.
     .repeats_kv_heads = false,
     .source = "unsloth models/llama.py, models/loader.py, kernels/fast_lora.py (015bdef0)"},
    {.id = Harness::Torchtune,
     .label = "torchtune",
     // Llama 3.x recipes: CEWithChunkedOutputLoss, AdamW fused=True,
     // enable_activation_checkpointing=True; component builders
     // lora_dropout=0.0; torchao's NF4 (block 64, scalers in 8 bits per 256:
     // always double-quantised), whose LinearNF4 saves only the weight;
     // training/activations.py checkpoint_wrapper(use_reentrant=False);
     // LoRA weights in the model's dtype (bf16).
     .loss = Loss::Chunked,
     .optimizer_impl = OptimizerImpl::Fused,
     .lora_dropout = 0.0,
     .double_quant = true,
     .ckpt = CkptMode::Full,
     .mixed = MixedPrecision::Pure,
     .adapters_fp32 = false,
     .qlora_adapters_fp32 = false,
     .reentrant_ckpt = false,
     // torchtune/__init__.py sets expandable_segments:True unless
     // PYTORCH_CUDA_ALLOC_CONF is set (since 9d91fe39, June 2025).
     .expandable_segments = true,
     // Its distributed recipes reduce-scatter every micro-step (FSDP2
     // fully_shard, no no_sync). Through release 0.6.1 shard_model gave the
     // root the same reshard_after_forward=True as the layers (cdde80e7,
     // June 2025, set it to False for the root on main).
     .fsdp_no_sync = false,
     .fsdp_root_holds_embeddings = false,
     .source = "torchtune models/llama3/_component_builders.py, training/activations.py, "
               "torchtune/__init__.py, recipes/configs (bd2a0fc7); torchao dtypes/nf4tensor.py"},
    {.id = Harness::Litgpt,
     .label = "litgpt",
     // finetune/lora.py: lora_dropout=0.05, precision bf16-true, no
     // checkpointing on one device, FSDPStrategy(auto_wrap_policy={Block},
     // activation_checkpointing_policy={Block}) on several (Fabric sets
     // use_orig_params=True, so a Block's frozen and LoRA weights share one
     // FlatParameter); Lightning's BitsandbytesPrecision replaces every
     // nn.Linear, the head too; lora.py LoRAQKVLinear: one dropout and one
     // A matrix for q, k and v. utils.py chunked_cross_entropy takes the
     // logits in the compute dtype (no .float()); the LoRA GPT
     // (lora.py forward, lm_head_chunk_size=128 in finetune/lora.py) runs
     // the head in chunks of 128 tokens. model.py repeats the KV heads
     // (repeat_interleave) before SDPA.
     .loss = Loss::Bf16,
     .optimizer_impl = OptimizerImpl::Foreach,
     .lora_dropout = 0.05,
     .double_quant = false,
     .ckpt = CkptMode::None,
     .ckpt_multi_gpu = CkptMode::Full,
     .mixed = MixedPrecision::Pure,
     .adapters_fp32 = false,
     .qlora_adapters_fp32 = false,
     .quantizes_head = true,
     .fused_qkv = true,
     .fsdp_mixed_flat = true,
     .chunked_head_for_adapters = true,
     // finetune/lora.py fit() (8641822b, Oct 2023; d7d93a53, Jul 2024).
     .keeps_previous_graph = true,
     .source = "litgpt finetune/lora.py, lora.py, utils.py, model.py (8641822b, 4a9b7e62, HEAD); "
               "lightning fabric "
               "plugins/precision/bitsandbytes.py, strategies/fsdp.py"},
    {.id = Harness::LlamaFactory,
     .label = "LLaMA-Factory",
     // hparams/finetuning_args.py lora_dropout=0.0; model_args.py
     // double_quantization=True, upcast_layernorm=False,
     // disable_gradient_checkpointing=False, use_reentrant_gc=True; HF Trainer
     // underneath (the model's loss).
     .loss = Loss::Upcast,
     .optimizer_impl = OptimizerImpl::Foreach,
     .lora_dropout = 0.0,
     .double_quant = true,
     .ckpt = CkptMode::Full,
     .source = "LLaMA-Factory hparams/finetuning_args.py, hparams/model_args.py, "
               "model/model_utils/checkpointing.py (ff6d4d12)"},
    {.id = Harness::QwenFinetune,
     .label = "Qwen finetune.py",
     // finetune.py: LoraArguments lora_dropout=0.05, every sample padded to
     // model_max_length; finetune_qlora_single_gpu.sh: --fp16, DeepSpeed
     // ZeRO-2 (its fp16 engine halves the module and runs without autocast),
     // --gradient_checkpointing; the Int4 (GPTQ) base, which
     // prepare_model_for_kbit_training leaves uncast; modeling_qwen.py's
     // CrossEntropyLoss on the 16-bit logits (no upcast; under autocast it
     // runs in fp32). finetune_lora_single_gpu.sh runs LoRA on one GPU with
     // --bf16 and no DeepSpeed (the Trainer's autocast, fp32 LoRA weights);
     // finetune_lora_ds.sh and finetune_ds.sh use DeepSpeed.
     .loss = Loss::Bf16,
     .optimizer_impl = OptimizerImpl::Foreach,
     .lora_dropout = 0.05,
     .double_quant = false,
     .ckpt = CkptMode::Full,
     .packing = true,
     .deepspeed_half = true,
     .deepspeed_single_gpu_lora = false,
     // finetune/ds_config_zero2.json (used by finetune_qlora_single_gpu.sh
     // and finetune_lora_ds.sh): reduce_bucket_size 2e8, contiguous_gradients
     // and overlap_comm true.
     .zero_bucket_elements = 2e8,
     .zero_buckets = 2,
     .source = "QwenLM/Qwen finetune.py, finetune/finetune_qlora_single_gpu.sh, "
               "finetune_lora_single_gpu.sh, finetune_lora_ds.sh, README (§Finetuning) (2df8e8a)"},
}};

}  // namespace

const HarnessProfile& harness_profile(Harness h) {
    for (const HarnessProfile& p : kProfiles)
        if (p.id == h) return p;
    return kProfiles.front();
}

}  // namespace gpuadvise
