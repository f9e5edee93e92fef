// The speed groups' rows by source (docs/accuracy.md, "Speed groups by
// source"): a group's median can hide one harness or one author's setup that
// carries most of its error, so each source's rows are shown apart, with the
// median estimate / measured rate that says which way it errs.
#include "accuracy_common.hpp"
#include "accuracy_reports.hpp"

namespace accuracy {

namespace {

// The source of a speed row: the second part of a throughput or image row's
// id (T-LITGPT-RT-01: LITGPT), the first of a large run's (LLMF-021: LLMF)
// and of an id whose second part is only its number (V-0389: V).
std::string rate_source(const std::string& id) {
    const std::string head = id.substr(0, id.find('-'));
    if (head.size() != 1) return head;
    const std::string second = source_of(id);
    const bool numbered =
        std::all_of(second.begin(), second.end(), [](char c) { return c >= '0' && c <= '9'; });
    return numbered ? head : second;
}

}  // namespace

void group_sources_report() {
    // group -> source -> (errors, ratios)
    std::map<std::string,
             std::map<std::string, std::pair<std::vector<double>, std::vector<double>>>>
        by;
    std::map<std::string, std::size_t> group_rows;
    for (const RateSample& s : g_rates) {
        auto& [err, ratio] = by[s.group][rate_source(s.id)];
        err.push_back(std::fabs(s.ratio() - 1.0));
        ratio.push_back(s.ratio());
        ++group_rows[s.group];
    }
    std::cout << "\n## Speed groups by source\n\n"
              << "The rows of each group above by source (the id's source part), so an error "
                 "that one harness or one author's setup carries shows as that source's: its "
                 "share of the group's rows, median and p90 error, and the median estimate / "
                 "measured rate (above 1: the estimate is fast).\n\n"
              << "| group | source | rows | share of the group | median | p90 | median ratio "
                 "|\n|---|---|---|---|---|---|---|\n";
    for (const std::string_view g : kSpeedGroups) {
        const auto it = by.find(std::string(g));
        if (it == by.end()) continue;
        for (const auto& [source, lists] : it->second) {
            const auto& [err, ratio] = lists;
            std::cout << fmt::format(
                "| {} | {} | {} | {} | {} | {} | {:.2f} |\n", g, source, err.size(),
                pct(static_cast<double>(err.size()) /
                    static_cast<double>(group_rows[std::string(g)])),
                pct(quantile(err, 0.5)), pct(quantile(err, 0.9)), quantile(ratio, 0.5));
        }
    }
}

}  // namespace accuracy
