#include "cli/settings.hpp"

#include <fmt/format.h>

#include <filesystem>

#include "gpuadvise/error.hpp"
#include "gpuadvise/json.hpp"
#include "gpuadvise/names.hpp"
#include "gpuadvise/text.hpp"

namespace gpuadvise::cli {
namespace {

// $XDG_CONFIG_HOME when it is an absolute path; the XDG Base Directory
// specification says a relative one is invalid and must be ignored.
const char* xdg_config_home(Getenv getenv) {
    const char* xdg = getenv("XDG_CONFIG_HOME");
    return xdg != nullptr && xdg[0] == '/' ? xdg : nullptr;
}

std::string config_path(Getenv getenv, bool* explicit_path) {
    *explicit_path = false;
    if (const char* p = getenv("GPUADVISE_CONFIG"); p && *p) {
        *explicit_path = true;
        return p;
    }
    if (const char* xdg = xdg_config_home(getenv))
        return std::string(xdg) + "/gpuadvise/config.json";
    if (const char* home = getenv("HOME"); home && *home)
        return std::string(home) + "/.config/gpuadvise/config.json";
    return {};
}

// A switch or toggle from the environment or the config file: true/false,
// 1/0, yes/no, on/off in any case; anything else is refused, not read as off.
std::string boolean(const FieldSpec& s, std::string_view text, std::string_view origin) {
    const std::string t = lower(trim(text));
    if (t == "true" || t == "1" || t == "yes" || t == "on") return "true";
    if (t == "false" || t == "0" || t == "no" || t == "off") return "false";
    throw InputError(
        fmt::format("{} {}: {} is a switch; give true or false (or 1/0, yes/no, on/off)", origin,
                    quote(text), s.key));
}

bool is_switch(const FieldSpec& s) {
    return s.kind == FieldKind::Switch || s.kind == FieldKind::Toggle;
}

}  // namespace

std::string default_calibration_path(Getenv getenv) {
    if (const char* xdg = xdg_config_home(getenv))
        return std::string(xdg) + "/gpuadvise/calibration.jsonl";
    if (const char* home = getenv("HOME"); home && *home)
        return std::string(home) + "/.config/gpuadvise/calibration.jsonl";
    return {};
}

Config load_config(Getenv getenv, Stdin& in) {
    Config c;
    bool explicit_path = false;
    const std::string path = config_path(getenv, &explicit_path);
    if (path.empty()) return c;
    std::error_code ec;
    if (!explicit_path && !std::filesystem::exists(path, ec)) return c;
    const std::string what = explicit_path ? "GPUADVISE_CONFIG" : "config file";
    return parse_config(read_text_file(path, what, kMaxSettingsBytes, in), path);
}

Config parse_config(std::string_view text, const std::string& path) {
    Config c;
    c.path = sanitize(path, 200);
    const json::Document doc = json::Document::parse(
        text, fmt::format("config file {}", quote(c.path)), "a JSON object of settings");
    if (!doc.root().is_object())
        throw InputError(
            fmt::format("config file {}: expected a JSON object of settings", quote(c.path)));
    std::vector<std::string> keys{"prices"};
    for (const FieldSpec& s : field_specs())
        if (s.setting) keys.emplace_back(s.key);
    for (const json::Value v : doc.root().items()) {
        const std::string key(v.key());
        const std::string origin =
            fmt::format("config file {}: {}", quote(c.path), sanitize(key, 60));
        if (std::find(keys.begin(), keys.end(), key) == keys.end()) {
            const auto near = closest_name(key, keys);
            throw InputError(fmt::format(
                "config file {}: unknown setting {}{}", quote(c.path), quote(key),
                near ? fmt::format("; did you mean \"{}\"?", *near) : "; see README, Settings"));
        }
        if (key == "prices") {
            if (!v.is_object())
                throw InputError(
                    fmt::format("{} must map GPU ids to USD, like {{\"rtx-4090\": 1750}}", origin));
            for (const json::Value p : v.items()) {
                const auto usd = p.number();
                if (!p.is_number() || !usd || *usd < 1 || *usd > 1e8)
                    throw InputError(
                        fmt::format("{}.{} must be a price in USD from 1 to 1e8 (got {})", origin,
                                    sanitize(p.key(), 60), p.dump()));
                c.prices.emplace_back(std::string(p.key()), *usd);
            }
            continue;
        }
        if (v.is_null()) continue;
        const FieldSpec* field = find_field_by_key(key);
        if (field && is_switch(*field)) {
            if (!v.is_bool() && !v.is_string())
                throw InputError(
                    fmt::format("{} must be true or false (got {})", origin, v.dump()));
            c.values[key] = Given{
                v.is_bool() ? (v.boolean() ? "true" : "false") : boolean(*field, v.text(), origin),
                origin};
            continue;
        }
        if (!v.is_string() && !v.is_number())
            throw InputError(
                fmt::format("{} must be a string or a number (got {})", origin, v.dump()));
        std::string value(v.text());
        // A relative catalog path is relative to the config file, not to
        // wherever gpuadvise happens to run.
        if (key == "catalog" && !value.empty() && value != "-" &&
            std::filesystem::path(value).is_relative())
            value = (std::filesystem::path(path).parent_path() / value).string();
        c.values[key] = Given{std::move(value), origin};
    }
    return c;
}

void apply_settings(Request& request, const std::vector<Field>& accepts, const Config& config,
                    Getenv getenv, std::vector<std::string>* applied) {
    for (const Field f : accepts) {
        const FieldSpec& s = spec(f);
        if (!s.setting) continue;
        if (const auto& given = request.get(f)) {
            applied->push_back(
                fmt::format("{}={} (from {})", s.key, quote(given->text), given->origin));
            continue;
        }
        const std::string env = s.env_name();
        if (const char* v = getenv(env.c_str()); v && *v) {
            request.set(f, is_switch(s) ? boolean(s, v, env) : std::string(v), env);
            applied->push_back(fmt::format("{}={} (from {})", s.key, quote(v), env));
        } else if (const auto it = config.values.find(std::string(s.key));
                   it != config.values.end()) {
            request.set(f, it->second.text, it->second.origin);
            applied->push_back(
                fmt::format("{}={} (from {})", s.key, quote(it->second.text), it->second.origin));
        }
    }
}

void apply_prices(Catalog& catalog, const Config& config) {
    for (const auto& [name, usd] : config.prices)
        set_price(catalog, name, usd,
                  fmt::format("config file {}: prices.{}", quote(config.path), sanitize(name, 60)));
}

}  // namespace gpuadvise::cli
