#include "gpuadvise/fields.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <stdexcept>

#include "gpuadvise/text.hpp"

namespace gpuadvise {

std::string FieldSpec::env_name() const {
    std::string out = "GPUADVISE_";
    for (const char c : key)
        out.push_back(c >= 'a' && c <= 'z' ? static_cast<char>(c - 'a' + 'A') : c);
    return out;
}

std::string FieldSpec::help_text() const {
    std::string out(help);
    if (choices) {
        const auto c = choices();
        if (c.size() <= 12) out += fmt::format(": {}", fmt::join(c, " | "));
    }
    if (!default_help.empty()) out += fmt::format("  [default: {}]", default_help);
    return out;
}

std::string FieldSpec::negative_flag() const {
    return "--no-" + std::string(flag.substr(2));
}

std::string FieldSpec::usage() const {
    std::string out;
    if (!short_flag.empty()) out = fmt::format("{}, ", short_flag);
    out += flag;
    if (kind == FieldKind::Toggle) out += ", " + negative_flag();
    if (!value_name.empty()) out += fmt::format(" {}", value_name);
    return out;
}

bool applies_to_images(Field f) {
    switch (f) {
        case Field::Seq:
        case Field::Prompt:
        case Field::Gen:
        case Field::Images:
        case Field::ImageSize:
        case Field::Users:
        case Field::Rps:
        case Field::Context:
        case Field::Ttft:
        case Field::Tpot:
        case Field::TokSPerUser:
        case Field::KvDtype:
        case Field::LoraRank:
        case Field::LoraTargets:
        case Field::Engine:
        case Field::Draft:
        case Field::DraftTokens:
        case Field::DraftAcceptance:
        case Field::Estimator:
        case Field::ChunkedLoss:
        case Field::Loss:
        case Field::Packing:
        case Field::FusedKernels:
        case Field::OptimizerImpl:
        case Field::CkptMode:
        case Field::OptimizerInBackward:
        case Field::DoubleQuant:
        case Field::Bitsandbytes:
        case Field::Harness:
        case Field::ExpandableSegments:
        case Field::CkptReentrant:
        case Field::LoraDropout:
        case Field::TrainOffload:
        case Field::Tokens:
        case Field::Chinchilla:
        case Field::DatasetTokens:
        case Field::Epochs:
        case Field::HfConfig:
        case Field::Gguf:
        case Field::Safetensors:
        case Field::ModelDir:
            return false;
        default:
            return true;
    }
}

const FieldSpec& spec(Field f) {
    const FieldSpec& s = field_specs()[static_cast<std::size_t>(f)];
    // The table is indexed by the enum; a row out of order is a bug that the
    // fields unit test reports, never a silent wrong field.
    if (s.field != f)
        throw std::logic_error("field_table.cpp: the field table is not in enum order");
    return s;
}

const FieldSpec* find_field_by_key(std::string_view key) {
    for (const FieldSpec& s : field_specs())
        if (s.key == key) return &s;
    return nullptr;
}

std::optional<bool> Request::flag(Field f) const {
    const auto& v = get(f);
    if (!v) return std::nullopt;
    return v->text == "true";
}

}  // namespace gpuadvise
