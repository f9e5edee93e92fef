#include "gpuadvise/fields.hpp"

#include <algorithm>
#include <catch2/catch.hpp>
#include <set>
#include <string>

using namespace gpuadvise;

TEST_CASE("the field table is in enum order and every name is unique") {
    std::set<std::string> flags, keys;
    std::size_t i = 0;
    for (const FieldSpec& s : field_specs()) {
        INFO(s.flag);
        CHECK(static_cast<std::size_t>(s.field) == i++);
        CHECK(&spec(s.field) == &s);
        CHECK(s.flag.substr(0, 2) == "--");
        CHECK(flags.insert(std::string(s.flag)).second);
        if (!s.short_flag.empty()) CHECK(flags.insert(std::string(s.short_flag)).second);
        if (s.kind == FieldKind::Toggle) CHECK(flags.insert(s.negative_flag()).second);
        CHECK(keys.insert(std::string(s.key)).second);
        CHECK_FALSE(s.help.empty());
        CHECK(s.group != 0);
        // Keys are the flags without dashes, underscores for dashes.
        std::string key(s.flag.substr(2));
        for (char& c : key)
            if (c == '-') c = '_';
        if (s.field != Field::CloudPrice) CHECK(key == s.key);
    }
    CHECK(i == kFieldCount);
}

TEST_CASE("settings derive their variable from their key") {
    CHECK(spec(Field::RankBy).env_name() == "GPUADVISE_RANK_BY");
    CHECK(spec(Field::KwhPrice).setting);
    CHECK(spec(Field::CloudPrice).env_name() == "GPUADVISE_CLOUD_PRICE_PER_GPU_HOUR");
    CHECK_FALSE(spec(Field::Batch).setting);
}

TEST_CASE("help text carries choices and the default with its source") {
    CHECK_THAT(spec(Field::Method).help_text(),
               Catch::Contains("inference | lora | qlora | full") &&
                   Catch::Contains("[default: inference]"));
    CHECK_THAT(spec(Field::KvDtype).help_text(),
               Catch::Contains("fp32"));  // every choice the parser accepts is listed
    CHECK(spec(Field::GradCkpt).negative_flag() == "--no-grad-ckpt");
}

TEST_CASE("a request keeps each value with its origin") {
    Request r;
    CHECK_FALSE(r.has(Field::Batch));
    r.set(Field::Batch, "4", "GPUADVISE_BATCH");
    REQUIRE(r.get(Field::Batch));
    CHECK(r.get(Field::Batch)->origin == "GPUADVISE_BATCH");
    r.set(Field::GradCkpt, "false", "--no-grad-ckpt");
    CHECK(r.flag(Field::GradCkpt) == false);
    CHECK_FALSE(r.flag(Field::FlashAttn));
}

TEST_CASE("each row says which kinds of model it is for, and image models refuse these forty-one") {
    // The models column, pinned row by row: the fields an image generation or
    // vision model refuses (Language), those only they take (Image,
    // Diffusion), and the rest (Any). Every field is in exactly one list, so a
    // new field fails here until its row and this test say which it is.
    const auto flags = [](Models m) {
        std::string out;
        for (const FieldSpec& s : field_specs())
            if (s.models == m) out += (out.empty() ? "" : " ") + std::string(s.flag);
        return out;
    };
    const std::string language =
        "--hf-config --gguf --safetensors --model-dir --double-quant --bitsandbytes "
        "--optimizer-in-backward --optimizer-impl --kv-dtype --seq --prompt --gen --images "
        "--image-size --users --rps --context --ttft --tpot --tok-s-per-user --ckpt-mode "
        "--ckpt-reentrant --loss --chunked-loss --packing --fused-kernels --expandable-segments "
        "--harness --lora-rank --lora-targets --lora-dropout --train-offload --engine --draft "
        "--draft-tokens --draft-acceptance --estimator --tokens --chinchilla --epochs "
        "--dataset-tokens";
    const std::string image = "--resolution --channels-last --streams --fps --codec";
    const std::string diffusion = "--frames --cpu-offload --image-setup --vae-tiling";
    const std::string any =
        "--model --task --gpu --method --precision --quant --mixed-precision --optimizer --batch "
        "--grad-ckpt --grad-accum --flash-attn --gpus --parallel --tp --pp --cp --ep --vpp "
        "--global-batch --calibration --measured-memory --metric --measured-speed --from-log "
        "--steps --amortize-years --kwh-price --pue --cloud-price-per-gpu-hour --rent --platform "
        "--have-host --os --offload --cpu-moe --n-cpu-moe --ram --ram-bandwidth --vram --network "
        "--gpus-per-node --top --rank-by --max-gpus --budget --deadline --vendor --segment "
        "--region --explain --emit --keep-order --plot --min-memory --min-bandwidth --supports "
        "--sort --min-context --min-speed --family --models-dir --format --color --ascii --wide "
        "--json --verbose --catalog --catalog-merge";
    CHECK(flags(Models::Language) == language);
    CHECK(flags(Models::Image) == image);
    CHECK(flags(Models::Diffusion) == diffusion);
    CHECK(flags(Models::Any) == any);
    std::size_t listed = 0;
    for (const std::string& list : {language, image, diffusion, any})
        listed += static_cast<std::size_t>(std::count(list.begin(), list.end(), ' ')) + 1;
    CHECK(listed == kFieldCount);
}
