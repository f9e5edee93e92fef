#pragma once
// Synthetic catalogs for the scaling benchmarks: N entries cloned from the
// embedded catalog with new ids and aliases (both must be unique) and no PCI
// ids (a PCI id names one card).
#include <nlohmann/json.hpp>
#include <string>

#include "gpuadvise/embedded.hpp"

namespace bench {

inline std::string synthetic_catalog(std::size_t n) {
    const nlohmann::ordered_json base =
        nlohmann::ordered_json::parse(gpuadvise::embedded::gpus_json());
    nlohmann::ordered_json out = base;
    auto& gpus = out["gpus"];
    gpus = nlohmann::ordered_json::array();
    const auto& source = base["gpus"];
    for (std::size_t i = 0; i < n; ++i) {
        nlohmann::ordered_json g = source[i % source.size()];
        const std::string prefix = "s" + std::to_string(i) + "-";
        g["id"] = prefix + g["id"].get<std::string>();
        if (g.contains("aliases"))
            for (auto& alias : g["aliases"]) alias = prefix + alias.get<std::string>();
        g.erase("pci_ids");
        gpus.push_back(std::move(g));
    }
    return out.dump(1);
}

}  // namespace bench
