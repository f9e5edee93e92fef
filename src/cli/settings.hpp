#pragma once
// Defaults from the environment and a config file, for the fields of the
// table marked as settings: precedence is flag > GPUADVISE_<KEY> > config file
// > built-in default. A value keeps its origin ("GPUADVISE_KWH_PRICE",
// "config file ~/.config/gpuadvise/config.json: kwh_price"), so an error names
// what the user can fix, and it is validated by the same parser as its flag.
#include <map>
#include <string>
#include <vector>

#include "cli/io.hpp"
#include "gpuadvise/catalog.hpp"
#include "gpuadvise/fields.hpp"

namespace gpuadvise::cli {

using Getenv = const char* (*)(const char*);

struct Config {
    std::string path;                                    // empty when there is no config file
    std::map<std::string, Given> values;                 // setting key -> value with its origin
    std::vector<std::pair<std::string, double>> prices;  // GPU name -> USD
    std::vector<std::string> applied;                    // "top=5 (from GPUADVISE_TOP)", for -v
};

// GPUADVISE_CONFIG, else $XDG_CONFIG_HOME/gpuadvise/config.json, else
// ~/.config/gpuadvise/config.json. An explicit GPUADVISE_CONFIG must exist.
Config load_config(Getenv getenv, Stdin& in);
// The settings of a config file's text; `path` is the file, for messages and
// for resolving a relative catalog path.
Config parse_config(std::string_view text, const std::string& path);

// Fills the settings the command takes (`accepts`) that no flag gave.
void apply_settings(Request& request, const std::vector<Field>& accepts, const Config& config,
                    Getenv getenv, std::vector<std::string>* applied);

// Where `gpuadvise calibrate` keeps measured runs when --calibration is not
// given: calibration.jsonl beside the config file ("" without a home).
std::string default_calibration_path(Getenv getenv);

// Applies the config file's "prices" to the catalog.
void apply_prices(Catalog& catalog, const Config& config);

}  // namespace gpuadvise::cli
