// Suggestions as a JSON array and as a short table under the verdict.
#include "gpuadvise/report_suggest.hpp"

#include <fmt/format.h>

#include "gpuadvise/report_json.hpp"
#include "gpuadvise/report_text.hpp"
#include "gpuadvise/text.hpp"
#include "gpuadvise/units.hpp"

namespace gpuadvise {
namespace {

std::string_view unit_of(std::string_view metric) {
    return metric == "images_per_s"         ? "img/s"
           : metric == "video_frames_per_s" ? "frames/s"
           : metric == "sequences_per_s"    ? "seq/s"
                                            : "tok/s";
}

// "~31 tok/s instead of ~45", "~31 tok/s", or "-" where the model gives no rate.
std::string speed_text(const Suggestion& s) {
    if (!rounded_rate(s.rate)) return "-";
    std::string out = fmt::format("~{} {}", format_rate(s.rate), unit_of(s.rate_metric));
    if (rounded_rate(s.rate_asked))
        out += fmt::format(" instead of ~{}", format_rate(s.rate_asked));
    return out;
}

}  // namespace

void write_suggestions(json::Writer& j, const std::vector<Suggestion>& suggestions) {
    j.begin_array();
    for (const Suggestion& s : suggestions) {
        j.begin_object();
        j.field("change", s.change());
        j.key("flags").begin_array();
        for (const auto& f : s.flags) j.value(f);
        j.end_array();
        j.key("replaces").begin_array();
        for (const auto& f : s.replaces) j.value(f);
        j.end_array();
        j.field("kind", to_string(s.kind));
        j.field("per_gpu_bytes", s.per_gpu_bytes).field("usable_bytes", s.usable_bytes);
        // Only changes that fit are suggested: "fits" is always true, "fit" says how well.
        j.field("fits", true).field("fit", s.tight ? "tight" : "yes");
        j.field("rate_metric", s.rate_metric);
        j.field("rate", rounded_rate(s.rate)).field("rate_asked", rounded_rate(s.rate_asked));
        j.field("note", s.note);
        j.end_object();
    }
    j.end_array();
}

std::string suggestions_text(const std::vector<Suggestion>& suggestions, std::string_view label,
                             Format format, const Style& style) {
    if (format == Format::Csv || format == Format::Json) return "";
    const std::string where = sanitize(label);
    if (suggestions.empty())
        return fmt::format(
            "\nTo fit on {}: no single change gpuadvise tries (a smaller batch, context or "
            "format, a quantized KV cache, offload, more cards) is enough\n",
            where);
    const std::string title =
        fmt::format("To fit on {}, change one of these (each checked by the model):", where);
    Table t;
    static constexpr NarrowStep kNarrowing[] = {{"Note", Narrow::Cut, 12}, {"Note"}};
    t.columns = {{"Change"}, {"Per GPU", true, "GiB"}, {"Fit"}, {"Speed"}, {"Note"}};
    t.narrowing = kNarrowing;
    for (const Suggestion& s : suggestions)
        t.rows.push_back({sanitize(s.change()),
                          fmt::format("{:.1f}", static_cast<double>(s.per_gpu_bytes) /
                                                    static_cast<double>(kGiB)),
                          s.tight ? "tight" : "yes", speed_text(s), sanitize(s.note)});
    if (format == Format::Markdown) return "\n## " + title + "\n\n" + render(t, format, style);
    std::string out = "\n" + title + "\n";
    // Indented under the title, as the other sections are.
    Style narrower = style;
    if (narrower.width > 2) narrower.width -= 2;
    const std::string body = render(t, format, narrower);
    for (std::size_t start = 0; start < body.size();) {
        const std::size_t end = std::min(body.find('\n', start), body.size());
        out += "  " + body.substr(start, end - start) + "\n";
        start = end + 1;
    }
    return out;
}

}  // namespace gpuadvise
