#include "cli/model_files.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <filesystem>

#include "gpuadvise/error.hpp"
#include "gpuadvise/file_formats.hpp"
#include "gpuadvise/gguf.hpp"
#include "gpuadvise/safetensors.hpp"
#include "gpuadvise/text.hpp"

namespace gpuadvise::cli {
namespace {

namespace fs = std::filesystem;

// Calls `parse` on a growing prefix until the header fits (NeedMoreBytes).
template <typename Parse>
auto parse_prefix(const std::string& path, std::string_view what, Parse parse) {
    std::uint64_t want = 8ULL << 20U;
    for (int attempt = 0; attempt < 16; ++attempt) {
        std::uint64_t size = 0;
        const std::string bytes = read_file_prefix(path, what, want, &size);
        try {
            return parse(bytes, size);
        } catch (const NeedMoreBytes& more) {
            if (more.needed <= bytes.size() || bytes.size() >= size) throw InputError(more.what());
            want = more.needed;
        }
    }
    throw InputError(
        fmt::format("{} {}: the header did not fit after repeated reads", what, quote(path)));
}

std::string display(const std::string& path) {
    return sanitize(path, 200);
}

bool present(const fs::path& p) {
    std::error_code ec;
    return fs::exists(fs::symlink_status(p, ec)) && !ec;
}

}  // namespace

ModelFile read_gguf(const std::string& path, std::string_view what) {
    const std::string source = display(path);
    const GgufInfo info =
        parse_prefix(path, what, [&](const std::string& bytes, std::uint64_t size) {
            return parse_gguf(bytes, size, source);
        });
    return {source,
            path,
            ModelOrigin::Gguf,
            info.arch,
            info.params,
            info.weight_bytes,
            info.quantization,
            info.name};
}

ModelFile read_safetensors(const std::string& path, std::string_view what, Stdin& in) {
    std::vector<SafetensorsInfo> shards;
    const fs::path p(path);
    const std::string source = display(path);
    if (p.extension() == ".json") {
        const std::string index = read_text_file(path, what, kMaxIndexBytes, in);
        for (const auto& shard : parse_safetensors_index(index, source)) {
            const std::string shard_path = (p.parent_path() / shard).string();
            check_inside(p.parent_path().empty() ? "." : p.parent_path().string(), shard_path,
                         fmt::format("{} shard", what));
            shards.push_back(parse_prefix(shard_path, fmt::format("{} shard", what),
                                          [&](const std::string& bytes, std::uint64_t size) {
                                              return parse_safetensors_header(bytes, size,
                                                                              display(shard_path));
                                          }));
        }
    } else {
        shards.push_back(
            parse_prefix(path, what, [&](const std::string& bytes, std::uint64_t size) {
                return parse_safetensors_header(bytes, size, source);
            }));
    }
    const SafetensorsInfo all = merge_safetensors(shards, source);
    std::string dtype;
    std::uint64_t most = 0;
    for (const auto& [name, count] : all.dtype_counts)
        if (count > most) {
            most = count;
            dtype = name;
        }
    // Engines load the folder of the weights (with its config.json), not one file.
    const std::string folder = p.parent_path().empty() ? "." : p.parent_path().string();
    return {source, folder, ModelOrigin::Safetensors, std::nullopt, all.params, all.bytes, dtype};
}

ModelFile read_model_dir(const std::string& dir, std::string_view what, Stdin& in) {
    std::error_code ec;
    if (!fs::is_directory(dir, ec))
        throw InputError(fmt::format("{} {} is not a folder", what, quote(dir)));
    const fs::path config = fs::path(dir) / "config.json";
    if (!present(config))
        throw InputError(fmt::format("{} {} has no config.json; give a Hugging Face model folder",
                                     what, quote(dir)));
    check_inside(dir, config.string(), fmt::format("{} config.json", what));
    const std::string config_path = config.string();
    const Architecture arch = parse_hf_config(
        read_text_file(config_path, fmt::format("{} config.json", what), kMaxConfigJsonBytes, in),
        display(config_path));
    const fs::path index = fs::path(dir) / "model.safetensors.index.json";
    const fs::path single = fs::path(dir) / "model.safetensors";
    std::string weights;
    if (present(index))
        weights = index.string();
    else if (present(single))
        weights = single.string();
    else
        throw InputError(fmt::format(
            "{} {} has no model.safetensors or model.safetensors.index.json", what, quote(dir)));
    check_inside(dir, weights, what);
    ModelFile f = read_safetensors(weights, what, in);
    f.source = display(dir);
    f.path = dir;
    f.arch = arch;
    return f;
}

GgufFolder read_gguf_folder(const std::string& dir, std::string_view what) {
    std::error_code ec;
    if (!fs::is_directory(dir, ec))
        throw InputError(
            fmt::format("{} {} is not a folder; give the folder that holds your .gguf "
                        "files",
                        what, quote(dir)));
    // Bounded walk: LM Studio keeps models/publisher/repository/file.gguf.
    constexpr int kMaxDepth = 4;
    constexpr std::size_t kMaxFiles = 2000;
    std::vector<fs::path> paths;
    fs::recursive_directory_iterator it(dir, fs::directory_options::skip_permission_denied, ec);
    if (ec) throw InputError(fmt::format("{} {}: {}", what, quote(dir), ec.message()));
    for (; it != fs::recursive_directory_iterator(); it.increment(ec)) {
        if (ec) break;
        if (it.depth() >= kMaxDepth) it.disable_recursion_pending();
        const fs::path& p = it->path();
        std::string ext = p.extension().string();
        for (char& c : ext) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
        if (ext != ".gguf") continue;
        std::error_code st;
        if (!it->is_regular_file(st)) continue;
        paths.push_back(p);
        if (paths.size() > kMaxFiles)
            throw InputError(fmt::format(
                "{} {} holds more than {} .gguf files; give a folder of the models to compare",
                what, quote(dir), kMaxFiles));
    }
    std::sort(paths.begin(), paths.end());
    GgufFolder out;
    for (const fs::path& p : paths) {
        const std::string shown = display(fs::relative(p, dir, ec).string());
        const std::string name = p.filename().string();
        std::string lower_name = name;
        for (char& c : lower_name)
            c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
        if (lower_name.rfind("mmproj", 0) == 0) {
            out.skipped.push_back(
                fmt::format("{}: a vision projector (mmproj), loaded beside a model", shown));
            continue;
        }
        // llama-gguf-split names its parts NAME-00001-of-00003.gguf; each part
        // holds only its own tensors.
        const std::size_t of = lower_name.rfind("-of-");
        if (of != std::string::npos && of >= 6 && lower_name.size() == of + 4 + 5 + 5 &&
            lower_name[of - 6] == '-') {
            if (lower_name.compare(of - 5, 5, "00001") == 0)
                out.skipped.push_back(
                    fmt::format("{}: a split GGUF ({} parts); fit reads whole files: merge it with "
                                "llama-gguf-split --merge",
                                shown, lower_name.substr(of + 4, 5)));
            continue;
        }
        try {
            check_inside(dir, p.string(), fmt::format("{} file", what));
            ModelFile f = read_gguf(p.string(), fmt::format("{} file", what));
            f.source = shown;
            out.files.push_back(std::move(f));
        } catch (const InputError& e) {
            out.skipped.push_back(fmt::format("{}: {}", shown, e.what()));
        }
    }
    if (out.files.empty())
        throw InputError(fmt::format(
            "{} {} holds no GGUF model gpuadvise can read{}; give a folder of .gguf files", what,
            quote(dir),
            out.skipped.empty() ? std::string() : fmt::format(" ({})", out.skipped.front())));
    return out;
}

}  // namespace gpuadvise::cli
