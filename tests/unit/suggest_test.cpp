// What to change when a plan does not fit: every suggestion, applied to the
// request as a user would (drop the words it replaces, add its flags) and
// planned again through the path the CLI takes, fits; none repeats what is
// set; they come in SuggestionKind order; and the searches find what the
// workloads call for.
#include "gpuadvise/suggest.hpp"

#include <algorithm>
#include <catch2/catch.hpp>
#include <deque>
#include <string>
#include <vector>

#include "gpuadvise/embedded.hpp"
#include "gpuadvise/memory.hpp"
#include "gpuadvise/query.hpp"
#include "support/request.hpp"

using namespace gpuadvise;

namespace {

// One `check --gpu` as the CLI runs it: the request, its box and its plan.
struct Checked {
    Request request;
    Workload workload;
    std::deque<Gpu> made;
    std::vector<const Gpu*> cards;
    Recommendation plan;
};

void check_into(Checked& c) {
    c.workload = resolve_workload(c.request, {}, embedded::model_presets());
    c.cards = box_cards(embedded::catalog(), c.request, c.workload, c.made);
    const RankOptions o = rank_options(c.request, c.workload);
    c.plan = plan_box(c.request, c.workload, c.cards, o);
}

Checked checked(const Request& r) {
    Checked c;
    c.request = r;
    check_into(c);
    return c;
}

std::vector<Suggestion> suggest(const Checked& c) {
    const SuggestInputs in{c.request, {}, embedded::model_presets(), nullptr, SuggestFor::Box};
    return suggest_changes(in, c.workload, c.cards, c.plan);
}

const FieldSpec& by_flag(const std::string& word) {
    for (const FieldSpec& s : field_specs())
        if (s.flag == word || (s.kind == FieldKind::Toggle && s.negative_flag() == word)) return s;
    FAIL("no field has the flag " << word);
    return field_specs().front();
}

// The request with the suggestion applied the way a user edits the command.
Request applied(Request r, const Suggestion& s) {
    for (const std::string& word : s.replaces)
        if (word.rfind("--", 0) == 0) r.clear(by_flag(word).field);
    for (std::size_t i = 0; i < s.flags.size(); ++i) {
        const FieldSpec& f = by_flag(s.flags[i]);
        if (f.kind == FieldKind::Value) {
            REQUIRE(i + 1 < s.flags.size());
            // Nothing already set is suggested again.
            if (const auto& old = r.get(f.field)) CHECK(old->text != s.flags[i + 1]);
            r.set(f.field, s.flags[i + 1], s.flags[i]);
            ++i;
        } else {
            r.set(f.field, s.flags[i] == f.negative_flag() ? "false" : "true", s.flags[i]);
        }
    }
    return r;
}

// The properties every list of suggestions has.
void check_properties(const Checked& base, const std::vector<Suggestion>& list) {
    REQUIRE_FALSE(base.plan.fits);
    CHECK(list.size() <= kMaxSuggestions);
    for (std::size_t i = 1; i < list.size(); ++i)
        CHECK(static_cast<int>(list[i - 1].kind) <= static_cast<int>(list[i].kind));
    for (const Suggestion& s : list) {
        INFO(s.change());
        REQUIRE_FALSE(s.flags.empty());
        CHECK(s.per_gpu_bytes <= s.usable_bytes);
        CHECK_FALSE(s.note.empty());
        // Re-evaluated on its own, through the CLI's path: it fits.
        const Checked after = checked(applied(base.request, s));
        CHECK(after.plan.fits);
        CHECK(after.plan.memory.per_gpu_bytes == s.per_gpu_bytes);
        CHECK(after.plan.tight == s.tight);
        // And it changes something that was not already so.
        const Workload& a = base.workload;
        const Workload& b = after.workload;
        switch (s.kind) {
            case SuggestionKind::Batch:
                CHECK(b.batch < a.batch);
                break;
            case SuggestionKind::Context:
                CHECK(b.seq < a.seq);
                CHECK(b.gen == std::min(a.gen, b.gen));
                break;
            case SuggestionKind::Quant:
                CHECK(weight_bytes_per_param(b.quant, b.precision, b.double_quant) <
                      weight_bytes_per_param(a.quant, a.precision, a.double_quant));
                break;
            case SuggestionKind::KvCache:
                CHECK(kv_dtype_bytes(b.kv_dtype) < kv_dtype_bytes(a.kv_dtype));
                break;
            case SuggestionKind::Checkpoint:
                CHECK(a.ckpt_mode == CkptMode::None);
                CHECK(b.ckpt_mode != CkptMode::None);
                break;
            case SuggestionKind::Loss:
                CHECK(a.loss != Loss::Fused);
                CHECK(b.loss == Loss::Fused);
                break;
            case SuggestionKind::Optimizer:
                CHECK(b.optimizer != a.optimizer);
                break;
            case SuggestionKind::Method:
                CHECK(b.method != a.method);
                break;
            case SuggestionKind::Offload:
                CHECK_FALSE(base.request.has(Field::Offload));
                REQUIRE(after.plan.offload);
                CHECK(after.plan.offload->mode != OffloadMode::Gpu);
                break;
            case SuggestionKind::Gpus:
                CHECK(after.plan.count > base.plan.count);
                break;
        }
    }
}

bool has(const std::vector<Suggestion>& list, SuggestionKind kind) {
    return std::any_of(list.begin(), list.end(),
                       [&](const Suggestion& s) { return s.kind == kind; });
}
const Suggestion& find(const std::vector<Suggestion>& list, SuggestionKind kind) {
    for (const auto& s : list)
        if (s.kind == kind) return s;
    FAIL("no " << to_string(kind) << " suggestion");
    return list.front();
}

}  // namespace

TEST_CASE("70B on one 24 GB card: a smaller GGUF format, or a 4-bit one offloaded") {
    const Checked base = checked(test::request(
        {{Field::Model, "llama-3.1-70b"}, {Field::Engine, "llama.cpp"}, {Field::Gpu, "rtx-4090"}}));
    const auto list = suggest(base);
    check_properties(base, list);
    // Batch 1 has nothing smaller; no context short enough holds 140 GB of weights.
    CHECK_FALSE(has(list, SuggestionKind::Batch));
    CHECK_FALSE(has(list, SuggestionKind::Context));
    // The only GGUF file that fits alone is under 3 bits, and says so...
    const Suggestion& q = find(list, SuggestionKind::Quant);
    CHECK(q.flags.size() == 2);
    CHECK(q.note.find("quality drops") != std::string::npos);
    // ...so a 4-bit file with layers in host memory is offered too, slower.
    const Suggestion& o = find(list, SuggestionKind::Offload);
    CHECK(o.flags == std::vector<std::string>{"--quant", "q4_k_m", "--offload", "auto"});
    REQUIRE(o.rate);
    REQUIRE(q.rate);
    CHECK(*o.rate < *q.rate);
}

TEST_CASE("8B full fine-tune on a 24 GB card: LoRA, and the other steps only when they fit") {
    const Checked base = checked(test::request(
        {{Field::Model, "llama-3.1-8b"}, {Field::Method, "full"}, {Field::Gpu, "rtx-4090"}}));
    const auto list = suggest(base);
    check_properties(base, list);
    // 16 bytes a parameter of weights, gradients and Adam: a smaller batch,
    // sequence, checkpointing or 8-bit states leave it far over 24 GB.
    CHECK_FALSE(has(list, SuggestionKind::Batch));
    CHECK_FALSE(has(list, SuggestionKind::Optimizer));
    CHECK_FALSE(has(list, SuggestionKind::Checkpoint));  // already on (the default)
    const Suggestion& m = find(list, SuggestionKind::Method);
    // The smaller step first: LoRA when it fits at the asked batch, else QLoRA
    // (8B LoRA at batch 4 x 512 with the fp32 loss is just over 24 GB).
    Request lora = base.request;
    lora.set(Field::Method, "lora", "--method");
    const std::string smallest = checked(lora).plan.fits ? "lora" : "qlora";
    CHECK(m.flags == std::vector<std::string>{"--method", smallest});
    CHECK(m.replaces == std::vector<std::string>{"--method", "full"});
}

TEST_CASE("training steps: checkpointing, a fused loss and an 8-bit optimizer") {
    SECTION("LoRA with checkpointing off: --grad-ckpt, or the same flag that said none") {
        // 1536 tokens: 26 GiB without checkpointing, 22 GiB with it.
        const Checked base = checked(test::request({{Field::Model, "llama-3.1-8b"},
                                                    {Field::Method, "lora"},
                                                    {Field::Seq, "1536"},
                                                    {Field::Batch, "1"},
                                                    {Field::GradCkpt, "false"},
                                                    {Field::Gpu, "rtx-4090"}}));
        const auto list = suggest(base);
        check_properties(base, list);
        const Suggestion& c = find(list, SuggestionKind::Checkpoint);
        CHECK(c.flags == std::vector<std::string>{"--grad-ckpt"});
        CHECK(c.replaces == std::vector<std::string>{"--no-grad-ckpt"});
        REQUIRE(c.rate);
        REQUIRE(c.rate_asked);
        CHECK(*c.rate < *c.rate_asked);  // recomputing costs time
        CHECK(has(list, SuggestionKind::Context));

        Request mode = base.request;
        mode.clear(Field::GradCkpt);
        mode.set(Field::CkptMode, "none", "--ckpt-mode");
        const Checked by_mode = checked(mode);
        const auto again = suggest(by_mode);
        check_properties(by_mode, again);
        CHECK(find(again, SuggestionKind::Checkpoint).flags ==
              std::vector<std::string>{"--ckpt-mode", "full"});
    }
    SECTION("QLoRA whose fp32 logits are most of the memory: --loss fused") {
        const Checked base = checked(test::request({{Field::Model, "llama-3.1-8b"},
                                                    {Field::Method, "qlora"},
                                                    {Field::Seq, "8192"},
                                                    {Field::Batch, "1"},
                                                    {Field::Gpu, "rtx-4090"}}));
        const auto list = suggest(base);
        check_properties(base, list);
        const Suggestion& l = find(list, SuggestionKind::Loss);
        CHECK(l.flags == std::vector<std::string>{"--loss", "fused"});
        CHECK(l.replaces.empty());                       // the default, not the user's flag
        CHECK_FALSE(has(list, SuggestionKind::Method));  // QLoRA has no smaller method
    }
    SECTION("a 1B full fine-tune on 16 GB: an 8-bit (paged) optimizer, or LoRA") {
        const Checked base = checked(test::request({{Field::Model, "llama-3.2-1b"},
                                                    {Field::Method, "full"},
                                                    {Field::Batch, "1"},
                                                    {Field::Gpu, "rtx-4060ti-16gb"}}));
        const auto list = suggest(base);
        check_properties(base, list);
        const Suggestion& o = find(list, SuggestionKind::Optimizer);
        CHECK(o.flags.at(0) == "--optimizer");
        CHECK(o.flags.at(1).find("8bit") != std::string::npos);
        CHECK(has(list, SuggestionKind::Method));
    }
}

TEST_CASE("long-context inference: the longest context that fits, or a smaller format") {
    const Checked base = checked(test::request(
        {{Field::Model, "llama-3.1-8b"}, {Field::Seq, "65536"}, {Field::Gpu, "rtx-4090"}}));
    const auto list = suggest(base);
    check_properties(base, list);
    const Suggestion& c = find(list, SuggestionKind::Context);
    REQUIRE(c.flags.size() == 2);
    CHECK(c.flags[0] == "--seq");
    CHECK(c.replaces == std::vector<std::string>{"--seq", "65536"});
    const std::int64_t n = std::stoll(c.flags[1]);
    CHECK(n % 256 == 0);
    // The longest that fits, in steps of 256: one step longer does not.
    Request longer = base.request;
    longer.set(Field::Seq, std::to_string(n + 256), "--seq");
    CHECK_FALSE(checked(longer).plan.fits);
    // vLLM's formats: FP8 does not leave room for the cache, AWQ does.
    CHECK(find(list, SuggestionKind::Quant).flags ==
          std::vector<std::string>{"--quant", "awq-int4"});
}

TEST_CASE("inference keeps --gen when the context shrinks") {
    const Checked base = checked(test::request({{Field::Model, "llama-3.1-8b"},
                                                {Field::Prompt, "120000"},
                                                {Field::Gen, "2000"},
                                                {Field::Engine, "llama.cpp"},
                                                {Field::Gpu, "rtx-4090"}}));
    const auto list = suggest(base);
    check_properties(base, list);
    const Suggestion& c = find(list, SuggestionKind::Context);
    REQUIRE(c.flags.size() == 2);
    CHECK(c.flags[0] == "--prompt");  // the flag the user said it with
    const Checked after = checked(applied(base.request, c));
    CHECK(after.workload.gen == 2000);
    // llama.cpp's KV types are q8_0 and q4_0: the larger one first.
    CHECK(find(list, SuggestionKind::KvCache).flags ==
          std::vector<std::string>{"--kv-dtype", "q8_0"});
}

TEST_CASE("a batch that does not fit: the largest batch that does") {
    const Checked base = checked(test::request({{Field::Model, "llama-3.1-8b"},
                                                {Field::Batch, "256"},
                                                {Field::Seq, "8192"},
                                                {Field::Gpu, "rtx-4090"}}));
    const auto list = suggest(base);
    check_properties(base, list);
    const Suggestion& b = find(list, SuggestionKind::Batch);
    CHECK(b.replaces == std::vector<std::string>{"--batch", "256"});
    const std::int64_t n = std::stoll(b.flags.at(1));
    Request more = base.request;
    more.set(Field::Batch, std::to_string(n + 1), "--batch");
    CHECK_FALSE(checked(more).plan.fits);
}

TEST_CASE("no suggestions for a plan that fits or a task's fixed requirement") {
    const Checked fits =
        checked(test::request({{Field::Model, "llama-3.1-8b"}, {Field::Gpu, "rtx-4090"}}));
    REQUIRE(fits.plan.fits);
    CHECK(suggest(fits).empty());
    const Checked task =
        checked(test::request({{Field::Task, "sdxl"}, {Field::Gpu, "rtx-3050-8gb"}}));
    if (!task.plan.fits) CHECK(suggest(task).empty());
}

TEST_CASE("a box of named cards is the hardware: no more cards are suggested") {
    const Checked base = checked(
        test::request({{Field::Model, "llama-3.1-70b"}, {Field::Gpu, "rtx-3090,rtx-3090"}}));
    REQUIRE_FALSE(base.plan.fits);
    const auto list = suggest(base);
    CHECK_FALSE(has(list, SuggestionKind::Gpus));
    for (const Suggestion& s : list) CHECK(s.per_gpu_bytes <= s.usable_bytes);
}

TEST_CASE("the ranking's closest miss: more cards are --max-gpus, the sizes ranking tries") {
    const Request r = test::request({{Field::Model, "llama-3.1-405b"}, {Field::Method, "full"}});
    const Workload w = resolve_workload(r, {}, embedded::model_presets());
    const RankOptions o = rank_options(r, w);
    const Gpu& b200 = resolve_gpu(embedded::catalog(), "b200", "--gpu");
    const Recommendation miss = evaluate_plan(w, b200, 8, o);
    REQUIRE_FALSE(miss.fits);
    const std::vector<const Gpu*> cards(8, &b200);
    const SuggestInputs in{r, {}, embedded::model_presets(), nullptr, SuggestFor::Ranking};
    const auto list = suggest_changes(in, w, cards, miss);
    for (const Suggestion& s : list) CHECK(s.per_gpu_bytes <= s.usable_bytes);
    CHECK(find(list, SuggestionKind::Method).flags == std::vector<std::string>{"--method", "lora"});
    const Suggestion& g = find(list, SuggestionKind::Gpus);
    REQUIRE(g.flags.size() == 2);
    CHECK(g.flags[0] == "--max-gpus");
    const std::int64_t n = std::stoll(g.flags[1]);
    CHECK((n & (n - 1)) == 0);
    CHECK(n > 8);
    Request more = r;
    more.set(Field::MaxGpus, g.flags[1], "--max-gpus");
    const Workload wm = resolve_workload(more, {}, embedded::model_presets());
    CHECK(evaluate_plan(wm, b200, n, rank_options(more, wm), nullptr, Detail::Numbers).fits);
}
