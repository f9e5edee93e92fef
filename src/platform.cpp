#include "gpuadvise/platform.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <deque>

#include "gpuadvise/error.hpp"
#include "gpuadvise/names.hpp"
#include "gpuadvise/text.hpp"
#include "gpuadvise/units.hpp"

namespace gpuadvise {

std::uint64_t os_reserved_bytes(Os os) {
    return os == Os::Linux ? 0 : kGiB + kGiB / 2;
}

std::uint64_t usable_memory(const Gpu& gpu, Os os) {
    std::uint64_t bytes = gpu.memory_bytes;
    // A unified pool gives the GPU the share the OS lets it use by default
    // (the catalog's unified_pool: macOS's wired limit, AMD's GTT size).
    if (gpu.unified_pool)
        bytes = static_cast<std::uint64_t>(static_cast<double>(bytes) *
                                           gpu.unified_pool->default_share);
    const std::uint64_t reserved = os_reserved_bytes(os);
    return bytes > reserved ? bytes - reserved : 0;
}

std::uint64_t usable_memory(const Gpu& gpu, Os os, const Engine* engine) {
    const std::uint64_t bytes = usable_memory(gpu, os);
    const std::uint64_t reserve = engine_reserve_bytes(engine, gpu);
    return bytes > reserve ? bytes - reserve : 0;
}

bool HostPlatform::holds(const Gpu& gpu, std::int64_t count) const {
    if (count > max_gpus) return false;
    if (!gpus.empty()) return std::find(gpus.begin(), gpus.end(), gpu.id) != gpus.end();
    if (std::find(forms.begin(), forms.end(), gpu.form) == forms.end()) return false;
    if (!vendors.empty() && std::find(vendors.begin(), vendors.end(), gpu.vendor) == vendors.end())
        return false;
    return gpu.cooling != Cooling::Passive || passive_cooling;
}

std::span<const HostPlatform> host_platforms() {
    return embedded::platforms();
}

const HostPlatform* choose_platform(const Gpu& gpu, std::int64_t count) {
    const auto all = host_platforms();
    // A platform made for the card (a superchip's node) comes first.
    for (const HostPlatform& p : all)
        if (!p.gpus.empty() && p.holds(gpu, count)) return &p;
    for (const HostPlatform& p : all)
        if (p.gpus.empty() && p.holds(gpu, count)) return &p;
    return nullptr;
}

std::vector<std::string> platform_choices() {
    std::vector<std::string> out;
    for (const HostPlatform& p : host_platforms()) out.emplace_back(p.id);
    return out;
}

const HostPlatform& parse_platform(std::string_view text, std::string_view what) {
    const std::string id = parse_choice(text, what, platform_choices());
    for (const HostPlatform& p : host_platforms())
        if (p.id == id) return p;
    throw InputError(fmt::format("{} {}: no such platform", what, quote(text)));
}

namespace {

struct PlatformStorage : json::Storage {
    std::deque<std::vector<FormFactor>> forms;
    std::deque<std::vector<Vendor>> vendors;
};

}  // namespace

Parsed<HostPlatform> parse_platforms(std::string_view text, std::string_view source) {
    auto storage = std::make_shared<PlatformStorage>();
    storage->text = std::string(text);
    json::Document doc = json::Document::parse(storage->text, source, "a JSON list of platforms");
    json::ObjectReader root(doc.root(), source);
    root.opt_integer("schema", 1, 1);
    root.str_or("about", "");
    const json::Value list = root.required("platforms");
    if (!list.is_array()) root.fail("platforms", "must be an array");
    root.finish();
    Parsed<HostPlatform> out;
    const json::Path top{nullptr, "platforms"};
    std::size_t i = 0;
    for (const json::Value v : list.items()) {
        const json::Path path{&top, {}, i++, true};
        json::ObjectReader r(v, source, &path);
        const auto at = [&](std::string_view key) {
            return fmt::format("{}: {}/{}", source, path.str(), key);
        };
        HostPlatform p;
        p.id = r.str("id");
        p.name = r.str("name");
        p.kind = kPlatformKinds.parse(r.str("kind"), at("kind"));
        p.max_gpus = r.integer("max_gpus", 1, 1024);
        p.sold_in = r.opt_integer("sold_in", 1, 1024);
        p.sold_in_source = r.str_or("sold_in_source", "");
        if (p.sold_in && p.sold_in_source.empty())
            r.fail("sold_in_source", "must say where sold_in comes from");
        std::vector<FormFactor> forms;
        for (const auto f : r.strings("forms")) forms.push_back(kFormFactors.parse(f, at("forms")));
        if (forms.empty()) r.fail("forms", "must list the forms it takes (card, module, soc)");
        storage->forms.push_back(std::move(forms));
        p.forms = storage->forms.back();
        std::vector<Vendor> vendors;
        for (const auto f : r.strings("vendors"))
            vendors.push_back(kVendors.parse(f, at("vendors")));
        storage->vendors.push_back(std::move(vendors));
        p.vendors = storage->vendors.back();
        p.gpus = storage->keep(r.strings("gpus"));
        p.passive_cooling = r.opt_bool("passive_cooling").value_or(false);
        p.lanes_per_gpu = r.opt_integer("lanes_per_gpu", 1, 16);
        p.usd = r.opt_number("usd", 0, 1e7);
        p.price_kind = kPriceKinds.parse(r.str("price_kind"), at("price_kind"));
        p.usd_basis = r.str("usd_basis");
        p.date = r.str_or("date", "");
        p.host_watts = r.opt_number("host_watts", 0, 1e5);
        p.ram_gb = r.opt_number("ram_gb", 1, 1e6);
        p.ram_bandwidth_gbps = r.opt_number("ram_bandwidth_gbps", 1, 1e5);
        p.ram_source = r.str("ram_source");
        p.ram_decode_share = r.opt_number("ram_decode_share", 0.05, 1.0);
        p.ram_decode_share_source = r.str_or("ram_decode_share_source", "");
        if (p.ram_decode_share && p.ram_decode_share_source.empty())
            r.fail("ram_decode_share_source", "must say where ram_decode_share was measured");
        p.source = r.str("source");
        r.finish();
        for (const HostPlatform& earlier : out.rows)
            if (earlier.id == p.id) r.fail("id", fmt::format("repeats the id '{}'", p.id));
        out.rows.push_back(p);
    }
    if (out.rows.empty()) root.fail("platforms", "must list at least one platform");
    storage->strings = std::move(doc).take_strings();
    out.storage = storage;
    return out;
}

}  // namespace gpuadvise
