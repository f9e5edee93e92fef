#include "gpuadvise/safetensors.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <limits>
#include <set>
#include <stdexcept>
#include <unordered_set>
#include <utility>

#include "gpuadvise/error.hpp"
#include "gpuadvise/json.hpp"
#include "gpuadvise/text.hpp"

namespace gpuadvise {
namespace {

using u64 = std::uint64_t;

// Bits per element of every safetensors dtype (safetensors/src/tensor.rs,
// Dtype::bitsize, huggingface/safetensors). F4 and F6 pack several elements
// per byte, so sizes are computed in bits.
struct Dtype {
    std::string_view name;
    u64 bits;
};
constexpr std::array<Dtype, 20> kDtypes = {{
    {"BOOL", 8}, {"F4", 4},      {"F6_E2M3", 6}, {"F6_E3M2", 6}, {"U8", 8},
    {"I8", 8},   {"F8_E5M2", 8}, {"F8_E4M3", 8}, {"F8_E8M0", 8}, {"I16", 16},
    {"U16", 16}, {"F16", 16},    {"BF16", 16},   {"I32", 32},    {"U32", 32},
    {"F32", 32}, {"C64", 64},    {"F64", 64},    {"I64", 64},    {"U64", 64},
}};

u64 dtype_bits(std::string_view name) {
    for (const Dtype& d : kDtypes)
        if (d.name == name) return d.bits;
    return 0;
}

std::string shape_text(const std::vector<u64>& dims) {
    std::string out = "[";
    for (std::size_t i = 0; i < dims.size(); ++i)
        out += (i > 0 ? ", " : "") + std::to_string(dims[i]);
    return out + "]";
}

// Reads the header JSON with the project's reader (duplicate names, depth
// and size are its limits) and keeps only running sums and each tensor's
// byte range.
class HeaderReader {
  public:
    HeaderReader(std::string_view source, u64 data_size) : source_(source), data_size_(data_size) {}

    SafetensorsInfo read(std::string_view header) {
        const json::Document doc = json::Document::parse(header, source_, "a safetensors header");
        const json::Value root = doc.root();
        if (!root.is_object()) fail("the header must be a JSON object");
        for (const json::Value member : root.items()) {
            name_ = std::string(member.key());
            if (name_ == "__metadata__") {
                if (!member.is_object()) fail("'__metadata__' must be an object");
                continue;
            }
            if (!member.is_object())
                fail(fmt::format("tensor '{}' must be an object with dtype, shape and data_offsets",
                                 tensor_name()));
            tensor(member);
        }
        return finish();
    }

  private:
    struct Range {
        u64 begin = 0;
        u64 end = 0;
        std::string name;
        bool operator<(const Range& o) const {
            return begin < o.begin || (begin == o.begin && end < o.end);
        }
    };

    [[noreturn]] void fail(std::string_view problem) const {
        throw InputError(fmt::format("{}: {}", source_, problem));
    }
    std::string tensor_name() const { return printable_name(name_); }
    [[noreturn]] void bad_field(std::string_view field) const {
        fail(fmt::format("tensor '{}': '{}' must be {}", tensor_name(), field,
                         field == "dtype" ? "a string" : "an array of non-negative integers"));
    }

    std::vector<u64> integers(const json::Value& v, std::string_view field) const {
        if (!v.is_array()) bad_field(field);
        std::vector<u64> out;
        for (const json::Value item : v.items()) {
            const auto n = item.is_integer_literal() ? item.uint64() : std::nullopt;
            if (!n) bad_field(field);
            out.push_back(*n);
        }
        return out;
    }

    void tensor(const json::Value& t) {
        const std::string name = tensor_name();
        const auto dtype_v = t.find("dtype");
        const auto shape_v = t.find("shape");
        const auto offsets_v = t.find("data_offsets");
        if (dtype_v && !dtype_v->is_string()) bad_field("dtype");
        const std::vector<u64> dims = shape_v ? integers(*shape_v, "shape") : std::vector<u64>{};
        const std::vector<u64> offsets =
            offsets_v ? integers(*offsets_v, "data_offsets") : std::vector<u64>{};
        for (const auto& [given, field] : {std::pair{dtype_v.has_value(), "dtype"},
                                           {shape_v.has_value(), "shape"},
                                           {offsets_v.has_value(), "data_offsets"}})
            if (!given) fail(fmt::format("tensor '{}' has no '{}'", name, field));
        if (offsets.size() != 2)
            fail(fmt::format("tensor '{}': 'data_offsets' must hold two integers [begin, end]",
                             name));
        const std::string dtype_name(dtype_v->text());
        const u64 bits = dtype_bits(dtype_name);
        if (bits == 0)
            fail(
                fmt::format("tensor '{}' has unknown dtype '{}' (expected one of F16, BF16, F32, "
                            "F8_E4M3, I8, ...)",
                            name, printable_name(dtype_name)));
        u64 elements = 1;
        for (const u64 d : dims) {
            // Elements x 64 bits must still fit in 64 bits.
            if (d != 0 && elements > (std::numeric_limits<u64>::max() / 64) / d)
                fail(fmt::format(
                    "tensor '{}' has shape {}, more elements than fit in 64 bits (corrupt file)",
                    name, shape_text(dims)));
            elements *= d;
        }
        const u64 total_bits = elements * bits;
        if (total_bits % 8 != 0)
            fail(fmt::format("tensor '{}': {} elements of {} do not fill whole bytes", name,
                             elements, dtype_name));
        const u64 nbytes = total_bits / 8;
        const u64 begin = offsets[0];
        const u64 end = offsets[1];
        if (begin > end)
            fail(fmt::format("tensor '{}': data_offsets [{}, {}] end before they begin", name,
                             begin, end));
        if (end > data_size_)
            fail(
                fmt::format("tensor '{}': data_offsets [{}, {}] run past the end of the file, "
                            "which holds {} bytes of "
                            "tensor data (truncated download?)",
                            name, begin, end, data_size_));
        if (end - begin != nbytes)
            fail(fmt::format(
                "tensor '{}': data_offsets [{}, {}] hold {} bytes but {} {} needs {} bytes", name,
                begin, end, end - begin, dtype_name, shape_text(dims), nbytes));
        // Each range lies inside the data and ranges do not overlap (checked
        // in finish), so the sums stay below 2 x file size.
        if (begin != end) ranges_.push_back({begin, end, name_});
        // MXFP4 as transformers stores it (gpt-oss): "<weight>_blocks" bytes
        // hold two 4-bit values each, "<weight>_scales" one E8M0 scale per
        // 32 values, which is format overhead rather than parameters.
        u64 values = elements;
        std::string dtype = dtype_name;
        if (dtype_name == "U8" && ends_with(name_, "_blocks")) {
            values = elements * 2;
            dtype = "MXFP4";
        } else if (dtype_name == "U8" && ends_with(name_, "_scales")) {
            values = 0;
        }
        info_.params += values;
        info_.bytes += nbytes;
        info_.tensors += 1;
        info_.dtype_counts[dtype] += values;
        info_.names.push_back(name_);
    }

    SafetensorsInfo finish() {
        // Byte ranges may come in any order; overlapping ones would count the
        // same bytes twice.
        std::sort(ranges_.begin(), ranges_.end());
        for (std::size_t i = 1; i < ranges_.size(); ++i)
            if (ranges_[i].begin < ranges_[i - 1].end)
                fail(fmt::format("tensors '{}' and '{}' overlap in the file (corrupt header)",
                                 printable_name(ranges_[i - 1].name),
                                 printable_name(ranges_[i].name)));
        // A checkpoint without tensors is no model (GGUF files are refused the same way).
        if (info_.tensors == 0)
            fail("the header lists no tensors; the file holds no model weights");
        std::sort(info_.names.begin(), info_.names.end());
        return std::move(info_);
    }

    std::string_view source_;
    u64 data_size_;
    std::string name_;  // the tensor being read
    std::vector<Range> ranges_;
    SafetensorsInfo info_;
};

}  // namespace

SafetensorsInfo parse_safetensors_header(std::string_view bytes, std::uint64_t file_size,
                                         std::string_view source) {
    if (bytes.size() > file_size)
        throw std::invalid_argument(
            "parse_safetensors_header: more bytes given than the file size");
    if (file_size < 8)
        throw InputError(fmt::format(
            "{}: not a safetensors file (only {} bytes long; the header length alone takes 8)",
            source, file_size));
    if (bytes.size() < 8)
        throw NeedMoreBytes(
            fmt::format("{}: read at least the first 8 bytes of a safetensors file", source), 8);
    if (bytes.substr(0, 4) == "GGUF")
        throw InputError(fmt::format("{}: this is a GGUF file, not safetensors", source));
    u64 n = 0;
    for (std::size_t i = 0; i < 8; ++i)
        n |= static_cast<u64>(static_cast<unsigned char>(bytes[i])) << (8 * i);
    // The first 8 bytes of a file that is not safetensors are not a length:
    // never echo them (a link to a text file would leak its first bytes).
    if (n > file_size - 8)
        throw InputError(fmt::format(
            "{}: not a safetensors file: its first 8 bytes do not give a header length that "
            "fits the {}-byte file (truncated download, or another kind of file)",
            source, file_size));
    if (n > kSafetensorsHeaderLimit)
        throw InputError(
            fmt::format("{}: not a safetensors file: its header length is over the {} MiB limit",
                        source, kSafetensorsHeaderLimit / kMiB));
    if (n > bytes.size() - 8)
        throw NeedMoreBytes(
            fmt::format(
                "{}: the safetensors header continues past the first {} bytes read; read the "
                "first {} bytes",
                source, bytes.size(), 8 + n),
            8 + n);
    const std::string_view header = bytes.substr(8, static_cast<std::size_t>(n));
    return HeaderReader(source, file_size - 8 - n).read(header);
}

SafetensorsInfo merge_safetensors(const std::vector<SafetensorsInfo>& shards,
                                  std::string_view source) {
    SafetensorsInfo total;
    // Shards of one checkpoint hold disjoint tensors; a tensor in two shards
    // would be counted twice.
    std::unordered_set<std::string_view> seen;
    for (const SafetensorsInfo& s : shards)
        for (const auto& name : s.names)
            if (!seen.insert(name).second)
                throw InputError(fmt::format(
                    "{}: tensor '{}' appears in two shards; the index names a shard twice or "
                    "the shards are from different checkpoints",
                    source, printable_name(name)));
    for (const SafetensorsInfo& s : shards) {
        total.params += s.params;
        total.bytes += s.bytes;
        total.tensors += s.tensors;
        for (const auto& [dtype, count] : s.dtype_counts) total.dtype_counts[dtype] += count;
    }
    return total;
}

std::vector<std::string> parse_safetensors_index(std::string_view json_text,
                                                 std::string_view source) {
    const json::Document doc =
        json::Document::parse(json_text, source, "a model.safetensors.index.json");
    if (!doc.root().is_object())
        throw InputError(
            fmt::format("{}: expected a JSON object (a model.safetensors.index.json)", source));
    const auto map = doc.root().find("weight_map");
    if (!map || !map->is_object())
        throw InputError(
            fmt::format("{}: missing the 'weight_map' object of a safetensors index", source));
    if (map->size() == 0)
        throw InputError(fmt::format("{}: 'weight_map' lists no tensors", source));
    std::set<std::string> files;
    for (const json::Value file : map->items()) {
        if (!file.is_string())
            throw InputError(fmt::format("{}: /weight_map/{}: must be a file name string (got {})",
                                         source, printable_name(file.key()),
                                         printable_name(file.dump())));
        const std::string_view name = file.text();
        // The caller opens these next to the index; a name from the internet
        // must not reach elsewhere ("../../.ssh/id_rsa", "/etc/passwd").
        if (name.empty() || name == "." || name == ".." ||
            name.find_first_of("/\\") != std::string_view::npos ||
            name.find('\0') != std::string_view::npos)
            throw InputError(fmt::format(
                "{}: /weight_map/{}: '{}' is not a plain file name in the index's folder", source,
                printable_name(file.key()), printable_name(name)));
        files.insert(std::string(name));
    }
    return {files.begin(), files.end()};
}

}  // namespace gpuadvise
