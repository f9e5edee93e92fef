// Attainable rates (data/attainable.json) from the measured matmul table
// bench/data/sources/attainable_matmul.csv: written with --attainable FILE,
// and the table's fit printed in docs/accuracy.md.
#include "accuracy_common.hpp"
#include "accuracy_reports.hpp"

namespace accuracy {

namespace {

struct Fit {
    // Per card and dtype: the measured values and their row ids.
    std::map<std::pair<std::string, RateDtype>, std::vector<std::pair<double, std::string>>> rows;
    std::size_t used = 0, skipped = 0;
};

Fit read_rows(const std::string& dir) {
    Fit fit;
    const auto rows = bench::parse_csv(read_file(dir + "/sources/attainable_matmul.csv"));
    for (const Row& r : rows) {
        // Cards outside the catalog, and rows their own source superseded.
        if (r.at("in_catalog") != "1" || r.at("source").find("superseded") != std::string::npos) {
            ++fit.skipped;
            continue;
        }
        const Gpu* gpu = nullptr;
        for (const Gpu& g : embedded::catalog().gpus)
            if (g.id == r.at("gpu")) gpu = &g;
        if (!gpu) throw std::runtime_error("attainable_matmul.csv: no catalog id " + r.at("gpu"));
        const RateDtype d = kRateDtypes.parse(r.at("dtype"), r.at("id") + " dtype");
        fit.rows[{std::string(gpu->id), d}].emplace_back(std::stod(r.at("measured_tflops")),
                                                         r.at("id"));
        ++fit.used;
    }
    return fit;
}

const Gpu& card(const std::string& id) {
    for (const Gpu& g : embedded::catalog().gpus)
        if (g.id == id) return g;
    throw std::runtime_error("no card " + id);
}

double median_of(const std::vector<std::pair<double, std::string>>& v) {
    std::vector<double> x;
    for (const auto& [value, id] : v) x.push_back(value);
    return quantile(x, 0.5);
}

// measured / peak of a card's 16-bit rows (fp16 and bf16 pooled), or nullopt.
std::optional<double> reach16(const Fit& fit, const Gpu& g) {
    std::vector<double> shares;
    for (const RateDtype d : {RateDtype::Fp16, RateDtype::Bf16}) {
        const auto it = fit.rows.find({std::string(g.id), d});
        const auto peak = peak_tflops(g, d);
        if (it == fit.rows.end() || !peak) continue;
        for (const auto& [value, id] : it->second) shares.push_back(value / *peak);
    }
    if (shares.empty()) return std::nullopt;
    return quantile(shares, 0.5);
}

}  // namespace

std::map<std::string, FitResult> g_fitted;

namespace {
std::string g_attainable_text;  // what --attainable writes, less the fit
}  // namespace

void attainable_report(const std::string& dir) {
    const Fit fit = read_rows(dir);
    std::ostringstream measured, reach, ratios, power;
    // Measured rates per card and dtype.
    std::size_t n = 0;
    std::set<std::string> cards;
    for (const auto& [key, list] : fit.rows) {
        std::vector<double> v;
        std::string ids;
        for (const auto& [value, id] : list) {
            v.push_back(value);
            ids += (ids.empty() ? "" : " ") + id;
        }
        cards.insert(key.first);
        measured << fmt::format(
            "{}    {{\"gpu\": \"{}\", \"dtype\": \"{}\", \"tflops\": {:.4g}, \"low\": {:.4g}, "
            "\"high\": {:.4g}, \"rows\": {}, \"ids\": \"{}\"}}",
            n++ ? ",\n" : "", key.first, kRateDtypes.name(key.second), quantile(v, 0.5),
            *std::min_element(v.begin(), v.end()), *std::max_element(v.begin(), v.end()), v.size(),
            ids);
    }
    // Each class's share of the peak: one value per card (its median).
    std::map<std::string, std::vector<double>> by_class;
    std::map<std::string, std::vector<std::string>> class_cards;
    for (const std::string& id : cards) {
        const Gpu& g = card(id);
        if (const auto r = reach16(fit, g)) {
            by_class[std::string(attainable_class(g))].push_back(*r);
            by_class["all"].push_back(*r);
            class_cards[std::string(attainable_class(g))].push_back(id);
            // And its architecture's, among cards of its accumulate mode.
            if (!g.arch_family.empty()) by_class[family_reach_key(g)].push_back(*r);
        }
    }
    std::cout
        << "\n# Attainable matmul rates\n\n"
        << "`data/attainable.json`, written by `gpuadvise_accuracy ... --attainable` from "
           "`bench/data/sources/attainable_matmul.csv` ("
        << fit.used << " rows of " << cards.size()
        << " catalog cards; rows of cards outside the catalog and rows their source "
           "superseded are left out): each card's measured rate per dtype (the median of "
           "its rows), each class's measured share of the datasheet peak in 16-bit (one "
           "share per card: the median of its rows), the dtypes' shares over the 16-bit "
           "one, and the best measured 16-bit TFLOPS per watt of TDP of full-rate parts "
           "per chip and architecture (the power limit of cards not measured).\n\n"
        << "| class | cards | median share of the peak | p10 | p90 |\n|---|---|---|---|---|\n";
    n = 0;
    for (const auto& [cls, v] : by_class) {
        const double lo = quantile(v, 0.1), hi = quantile(v, 0.9), med = quantile(v, 0.5);
        reach << fmt::format(
            "{}    {{\"class\": \"{}\", \"median\": {:.3f}, \"low\": {:.3f}, \"high\": {:.3f}, "
            "\"cards\": {}}}",
            n++ ? ",\n" : "", cls, med, lo, hi, v.size());
        std::cout << fmt::format("| {} | {} | {:.3f} | {:.3f} | {:.3f} |\n", cls, v.size(), med, lo,
                                 hi);
    }
    // Dtypes over 16-bit, on cards measured in both.
    std::cout << "\n| dtype | cards | share of the peak over the 16-bit share |\n|---|---|---|\n";
    n = 0;
    for (const RateDtype d : {RateDtype::Fp32, RateDtype::Tf32, RateDtype::Fp8}) {
        std::vector<double> v;
        for (const std::string& id : cards) {
            const Gpu& g = card(id);
            const auto it = fit.rows.find({id, d});
            const auto peak = peak_tflops(g, d);
            const auto r16 = reach16(fit, g);
            if (it == fit.rows.end() || !peak || !r16) continue;
            v.push_back(median_of(it->second) / *peak / *r16);
        }
        if (v.empty()) continue;
        ratios << fmt::format("{}    {{\"dtype\": \"{}\", \"ratio\": {:.3f}, \"cards\": {}}}",
                              n++ ? ",\n" : "", kRateDtypes.name(d), quantile(v, 0.5), v.size());
        std::cout << fmt::format("| {} | {} | {:.3f} |\n", kRateDtypes.name(d), v.size(),
                                 quantile(v, 0.5));
    }
    // Best TFLOPS per watt of full-rate parts, by chip and by family.
    std::map<std::string, std::pair<double, std::vector<std::string>>> eff;
    for (const std::string& id : cards) {
        const Gpu& g = card(id);
        if (half_rate_fp32_accumulate(g) || !g.tdp_watts || !(*g.tdp_watts > 0)) continue;
        const auto r16 = reach16(fit, g);
        const auto peak = peak_tflops(g, RateDtype::Bf16);
        if (!r16 || !peak) continue;
        const double e = *r16 * *peak / *g.tdp_watts;
        for (const std::string& key : {std::string(chip_of(g)), std::string(g.arch_family)}) {
            if (key.empty()) continue;
            auto& [best, list] = eff[key];
            best = std::max(best, e);
            list.push_back(id);
        }
    }
    std::cout << "\n| chip or family | full-rate cards | best 16-bit TFLOPS per watt |\n"
                 "|---|---|---|\n";
    n = 0;
    for (const auto& [key, value] : eff) {
        std::string gpus;
        for (const std::string& id : value.second) gpus += (gpus.empty() ? "" : " ") + id;
        power << fmt::format(
            "{}    {{\"key\": \"{}\", \"tflops_per_watt\": {:.4f}, \"cards\": {}, \"gpus\": "
            "\"{}\"}}",
            n++ ? ",\n" : "", key, value.first, value.second.size(), gpus);
        std::cout << fmt::format("| {} | {} | {:.3f} |\n", key, value.second.size(), value.first);
    }
    // Every catalog card's rate of the 16-bit dtype, with its basis.
    std::map<std::string, int> bases;
    for (const Gpu& g : embedded::catalog().gpus)
        ++bases[std::string(kRateBases.name(attainable_rate(g, RateDtype::Bf16).basis))];
    std::cout << "\nThe catalog's cards by the basis of their 16-bit rate:";
    for (const auto& [basis, count] : bases) std::cout << fmt::format(" {} {};", basis, count);
    std::cout << "\n";
    std::ostringstream f;
    f << "{\n  \"schema\": 1,\n  \"about\": \"Written by bench/accuracy (gpuadvise_accuracy "
         "bench/data data/models.json --attainable data/attainable.json); do not edit by hand. "
         "Dense matmul rates a card sustains: measured per card and dtype (the median of the "
         "rows of bench/data/sources/attainable_matmul.csv, their lowest and highest); per class "
         "the median, 10th and 90th percentile over its cards of measured / datasheet peak in "
         "16-bit, and the same per architecture family (class/family, NVIDIA's full-rate "
         "parts as nvidia-full-rate); per dtype its share over the 16-bit share on cards measured "
         "in both; per chip "
         "and architecture family the best 16-bit TFLOPS per watt of TDP measured on full-rate "
         "parts (src/attainable.cpp says how each is used).\",\n";
    f << fmt::format(
        "  \"source\": \"bench/data/sources/attainable_matmul.csv: {} rows of {} catalog "
        "cards\",\n",
        fit.used, cards.size());
    f << "  \"measured\": [\n" << measured.str() << "\n  ],\n";
    f << "  \"reach\": [\n" << reach.str() << "\n  ],\n";
    f << "  \"dtype_ratios\": [\n" << ratios.str() << "\n  ],\n";
    f << "  \"power\": [\n" << power.str() << "\n  ],\n";
    g_attainable_text = f.str();
}

// data/attainable.json: the tables above and the speed model's fitted
// coefficients (this run's fit where --fit ran, else the embedded ones).
void write_attainable(const std::string& path) {
    std::ofstream f(path);
    f << g_attainable_text << "  \"fit\": [\n";
    std::size_t n = 0;
    for (const std::string_view name : speed_fit_names()) {
        FitResult r;
        for (const FittedCoefficient& c : embedded::attainable().fit)
            if (c.name == name) r = {c.value, c.rows, std::string(c.what)};
        if (const auto it = g_fitted.find(std::string(name)); it != g_fitted.end()) r = it->second;
        f << fmt::format(
            "{}    {{\"name\": \"{}\", \"value\": {:.6g}, \"rows\": {}, \"what\": \"{}\"}}",
            n++ ? ",\n" : "", name, r.value, r.rows, r.what);
    }
    f << "\n  ]\n}\n";
    if (!f) throw std::runtime_error("cannot write " + path);
}

}  // namespace accuracy
