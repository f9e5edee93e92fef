// Reading a GGUF file's bytes: the header, the metadata's key/value pairs and
// the tensor table, every count and offset checked against the file before
// anything is allocated, and the tensors' exact elements, bytes and types.
// What the metadata says about the model is gguf_model.cpp.
#include "gpuadvise/gguf.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <limits>
#include <stdexcept>
#include <string>
#include <unordered_set>
#include <utility>
#include <vector>

#include "gguf_common.hpp"
#include "gpuadvise/error.hpp"

namespace gpuadvise {

using namespace gguf_detail;

namespace {

// Bytes of one fixed-size value; 0 for strings, arrays and unknown types.
u64 fixed_size(u32 t) {
    switch (t) {
        case kU8:
        case kI8:
        case kBool:
            return 1;
        case kU16:
        case kI16:
            return 2;
        case kU32:
        case kI32:
        case kF32:
            return 4;
        case kU64:
        case kI64:
        case kF64:
            return 8;
        default:
            return 0;
    }
}

const char* type_name(u32 t) {
    static constexpr std::array<const char*, 13> kNames = {
        "uint8", "int8",   "uint16", "int16",  "uint32", "int32",  "float32",
        "bool",  "string", "array",  "uint64", "int64",  "float64"};
    return t < kNames.size() ? kNames[t] : "unknown";
}

u32 byteswap32(u32 v) {
    return ((v & 0xFFu) << 24) | ((v & 0xFF00u) << 8) | ((v >> 8) & 0xFF00u) | (v >> 24);
}

// Cursor over the bytes given. Every read first checks the bytes against the
// file: past the end of the file is a truncated or corrupt file; past the end
// of the bytes given (but inside the file) asks the caller for more.
class Reader {
  public:
    Reader(std::string_view bytes, u64 file_size, std::string_view source)
        : bytes_(bytes), file_size_(file_size), source_(source) {}

    u64 pos() const { return pos_; }
    u64 left_in_file() const { return file_size_ - pos_; }
    // What is being read, for messages ("tensor 3 ('blk.0.attn_q.weight')").
    void set_where(std::string where) { where_ = std::move(where); }

    [[noreturn]] void fail(std::string_view problem) const {
        throw InputError(fmt::format("{}: {}", source_, problem));
    }

    void need(u64 n, std::string_view what) const {
        // The limit holds even when the caller passed more bytes than it.
        if (n <= bytes_.size() - pos_ && pos_ + n <= kGgufMetadataLimit) return;
        if (n > left_in_file())
            fail(fmt::format(
                "{} of {} at byte {} needs {} bytes but only {} are left in the file (truncated or "
                "corrupt file)",
                what, where_, pos_, n, left_in_file()));
        const u64 end = pos_ + n;
        if (end > kGgufMetadataLimit)
            fail(
                fmt::format("the GGUF metadata runs past {} MiB ({} of {} at byte {}); not a model "
                            "file gpuadvise "
                            "can read",
                            kGgufMetadataLimit / kMiB, what, where_, pos_));
        // Here bytes_.size() < end <= the limit, so doubling cannot overflow.
        const u64 want =
            std::min({std::max<u64>(end, 2 * bytes_.size()), file_size_, kGgufMetadataLimit});
        throw NeedMoreBytes(
            fmt::format("{}: the GGUF metadata continues past the first {} bytes read; read the "
                        "first {} bytes",
                        source_, bytes_.size(), want),
            want);
    }

    template <typename T>
    T read(std::string_view what) {
        need(sizeof(T), what);
        u64 v = 0;
        for (std::size_t i = 0; i < sizeof(T); ++i)
            v |= static_cast<u64>(
                     static_cast<unsigned char>(bytes_[static_cast<std::size_t>(pos_) + i]))
                 << (8 * i);
        pos_ += sizeof(T);
        return static_cast<T>(v);
    }

    void skip(u64 n, std::string_view what) {
        need(n, what);
        pos_ += n;
    }

    std::string_view string(std::string_view what) {
        const u64 n = read<u64>(what);
        need(n, what);
        const std::string_view s =
            bytes_.substr(static_cast<std::size_t>(pos_), static_cast<std::size_t>(n));
        pos_ += n;
        return s;
    }

  private:
    std::string_view bytes_;
    u64 file_size_;
    std::string_view source_;
    u64 pos_ = 0;
    std::string where_ = "the header";
};

// Reads an integer of GGUF type `t`; false when a uint64 exceeds int64.
bool read_integer(Reader& r, u32 t, std::int64_t& out) {
    switch (t) {
        case kU8:
            out = r.read<std::uint8_t>("a uint8 value");
            return true;
        case kI8: {
            // two's complement by hand: the byte's sign bit, without a signed char
            const std::int64_t byte = r.read<std::uint8_t>("an int8 value");
            out = byte < 128 ? byte : byte - 256;
            return true;
        }
        case kU16:
            out = r.read<std::uint16_t>("a uint16 value");
            return true;
        case kI16:
            out = static_cast<std::int16_t>(r.read<std::uint16_t>("an int16 value"));
            return true;
        case kU32:
            out = r.read<u32>("a uint32 value");
            return true;
        case kI32:
            out = static_cast<std::int32_t>(r.read<u32>("an int32 value"));
            return true;
        case kI64:
            out = static_cast<std::int64_t>(r.read<u64>("an int64 value"));
            return true;
        default: {  // kU64
            const u64 v = r.read<u64>("a uint64 value");
            out = static_cast<std::int64_t>(std::min(v, kMaxI64));
            return v <= kMaxI64;
        }
    }
}

// GGUF allows arrays of arrays; real files nest at most once.
constexpr int kMaxArrayDepth = 3;

Value read_value(Reader& r, u32 type, int depth) {
    Value v;
    v.type = type;
    if (is_integer_type(type)) {
        v.integer_ok = read_integer(r, type, v.integer);
        return v;
    }
    switch (type) {
        case kF32:
        case kF64:
        case kBool:
            r.skip(fixed_size(type), "a value");
            return v;
        case kString:
            v.text = r.string("a string value");
            return v;
        case kArray:
            break;
        default:
            r.fail(fmt::format("unknown metadata value type {} at byte {} (corrupt file)", type,
                               r.pos() - 4));
    }
    v.elem_type = r.read<u32>("an array's element type");
    v.count = r.read<u64>("an array's length");
    // The least each element occupies, so a length the file cannot hold is
    // rejected before any element is read.
    u64 least = fixed_size(v.elem_type);
    if (v.elem_type == kString) least = 8;
    if (v.elem_type == kArray) least = 12;
    if (least == 0)
        r.fail(fmt::format("unknown array element type {} at byte {} (corrupt file)", v.elem_type,
                           r.pos() - 12));
    if (v.elem_type == kArray && depth >= kMaxArrayDepth)
        r.fail(fmt::format("arrays nested more than {} deep at byte {} (corrupt file)",
                           kMaxArrayDepth, r.pos()));
    if (v.count > r.left_in_file() / least)
        r.fail(
            fmt::format("an array at byte {} claims {} elements, more than the {} bytes left in "
                        "the file can hold "
                        "(corrupt file)",
                        r.pos() - 12, v.count, r.left_in_file()));
    if (is_integer_type(v.elem_type)) {
        r.need(v.count * least, "an array");
        v.max_ok = v.count > 0;
        for (u64 i = 0; i < v.count; ++i) {
            std::int64_t x = 0;
            v.max_ok = read_integer(r, v.elem_type, x) && v.max_ok;
            v.max = i == 0 ? x : std::max(v.max, x);
        }
    } else if (v.elem_type == kString || v.elem_type == kArray) {
        for (u64 i = 0; i < v.count; ++i) read_value(r, v.elem_type, depth + 1);
    } else {
        r.skip(v.count * least, "an array");
    }
    return v;
}

std::string shape_text(const std::array<u64, 4>& dims, u32 n_dims) {
    std::string out = "[";
    for (u32 d = 0; d < n_dims; ++d) out += (d > 0 ? ", " : "") + std::to_string(dims[d]);
    return out + "]";
}

struct TensorRecord {
    std::string_view name;
    u64 offset = 0;
    u64 bytes = 0;
};

u64 add_checked(u64 a, u64 b, const Reader& r, std::string_view what) {
    if (b > std::numeric_limits<u64>::max() - a)
        r.fail(fmt::format("the {} overflow 64 bits (corrupt file)", what));
    return a + b;
}

}  // namespace

namespace gguf_detail {

const Value* Metadata::find(std::string_view key) const {
    const auto it = kv_.find(key);
    return it == kv_.end() ? nullptr : &it->second;
}

std::int64_t Metadata::get_int(std::string_view key) const {
    const Value* v = find(key);
    if (v == nullptr) return 0;
    if (is_integer_type(v->type) && v->integer_ok) return v->integer;
    if (v->type == kArray && is_integer_type(v->elem_type) && v->max_ok) return v->max;
    if (is_integer_type(v->type))
        fail(fmt::format("'{}' is too large for a model (corrupt file)", printable_name(key)));
    fail(
        fmt::format("'{}' must be an integer (got a {})", printable_name(key), type_name(v->type)));
}

std::string_view Metadata::get_string(std::string_view key) const {
    const Value* v = find(key);
    if (v == nullptr) return {};
    if (v->type != kString)
        fail(fmt::format("'{}' must be a string (got a {})", printable_name(key),
                         type_name(v->type)));
    return v->text;
}

void Metadata::fail(std::string_view problem) const {
    throw InputError(fmt::format("{}: {}", source_, problem));
}

}  // namespace gguf_detail

GgufInfo parse_gguf(std::string_view bytes, std::uint64_t file_size, std::string_view source) {
    if (bytes.size() > file_size)
        throw std::invalid_argument("parse_gguf: more bytes given than the file size");
    Reader r(bytes, file_size, source);
    if (file_size < 4) r.fail(fmt::format("not a GGUF file (only {} bytes long)", file_size));
    r.need(4, "the magic");
    if (bytes.substr(0, 4) != "GGUF") r.fail("not a GGUF file (it does not start with \"GGUF\")");
    r.skip(4, "the magic");

    GgufInfo info;
    info.version = r.read<u32>("the version");
    if (info.version == 1)
        r.fail(
            "GGUF version 1 is not supported (only versions 2 and 3); convert the model again with "
            "a current "
            "llama.cpp");
    if (info.version != 2 && info.version != 3) {
        const u32 swapped = byteswap32(info.version);
        if (swapped == 2 || swapped == 3)
            r.fail("a big-endian GGUF file; only little-endian files are supported");
        r.fail(fmt::format("unsupported GGUF version {} (gpuadvise reads versions 2 and 3)",
                           info.version));
    }
    const u64 tensor_count = r.read<u64>("the tensor count");
    const u64 kv_count = r.read<u64>("the metadata count");
    // Each entry occupies a minimum number of bytes (an empty key or name, a
    // type, a value or offset), so counts the file cannot hold are rejected
    // before anything is read or allocated.
    constexpr u64 kMinKvBytes = 8 + 4 + 1;
    constexpr u64 kMinTensorBytes = 8 + 4 + 4 + 8;
    if (kv_count > r.left_in_file() / kMinKvBytes)
        r.fail(
            fmt::format("the header claims {} metadata entries, more than a {}-byte file can hold "
                        "(truncated or "
                        "corrupt file)",
                        kv_count, file_size));
    if (tensor_count > r.left_in_file() / kMinTensorBytes)
        r.fail(fmt::format(
            "the header claims {} tensors, more than a {}-byte file can hold (truncated or corrupt "
            "file)",
            tensor_count, file_size));
    info.tensor_count = tensor_count;

    // Metadata. The map grows only with entries actually read from `bytes`.
    Metadata kv(source);
    for (u64 i = 0; i < kv_count; ++i) {
        r.set_where(fmt::format("metadata entry {}", i));
        const std::string_view key = r.string("the key");
        r.set_where(fmt::format("metadata entry {} ('{}')", i, printable_name(key)));
        const u32 type = r.read<u32>("the value type");
        const Value value = read_value(r, type, 0);
        if (!kv.add(key, value))
            r.fail(fmt::format("duplicate metadata key '{}' (corrupt file)", printable_name(key)));
    }

    u64 alignment = 32;  // GGUF's default when general.alignment is absent
    if (kv.find("general.alignment") != nullptr) {
        const std::int64_t a = kv.get_int("general.alignment");
        if (a <= 0 || a > static_cast<std::int64_t>(kGiB) || (a & (a - 1)) != 0)
            r.fail(fmt::format("'general.alignment' = {} must be a power of two", a));
        alignment = static_cast<u64>(a);
    }

    // Tensor infos. Sums are accumulated with overflow checks; the records
    // grow only with tensors actually read from `bytes`.
    std::vector<TensorRecord> tensors;
    std::unordered_set<std::string_view> names;
    std::array<u64, kGgmlTypeCount> all_bytes{};
    std::array<u64, kGgmlTypeCount> matrix_bytes{};
    TensorHints hints;
    for (u64 i = 0; i < tensor_count; ++i) {
        r.set_where(fmt::format("tensor {}", i));
        const std::string_view name = r.string("the name");
        const std::string shown = printable_name(name);
        r.set_where(fmt::format("tensor {} ('{}')", i, shown));
        const u32 n_dims = r.read<u32>("the dimension count");
        if (n_dims > 4)
            r.fail(
                fmt::format("tensor '{}' has {} dimensions; GGUF allows at most 4", shown, n_dims));
        std::array<u64, 4> dims = {1, 1, 1, 1};
        for (u32 d = 0; d < n_dims; ++d) dims[d] = r.read<u64>("a dimension");
        u64 elements = 1;
        for (u32 d = 0; d < n_dims; ++d) {
            if (dims[d] > kMaxI64 || (dims[d] != 0 && elements > kMaxI64 / dims[d]))
                r.fail(fmt::format(
                    "tensor '{}' has shape {}, more elements than fit in 64 bits (corrupt file)",
                    shown, shape_text(dims, n_dims)));
            elements *= dims[d];
        }
        const u32 type_id = r.read<u32>("the type");
        const GgmlType* type = ggml_type(type_id);
        if (type == nullptr)
            r.fail(
                fmt::format("tensor '{}' has unknown ggml type {} (a type newer than gpuadvise, or "
                            "a corrupt file)",
                            shown, type_id));
        const u64 offset = r.read<u64>("the data offset");
        if (dims[0] % type->block_size != 0)
            r.fail(
                fmt::format("tensor '{}' has rows of {} elements, not a multiple of the {}-element "
                            "blocks of {}",
                            shown, dims[0], type->block_size, type->name));
        const u64 blocks = elements / type->block_size;
        if (blocks > std::numeric_limits<u64>::max() / type->type_size)
            r.fail(fmt::format(
                "tensor '{}' has shape {}, more bytes than fit in 64 bits (corrupt file)", shown,
                shape_text(dims, n_dims)));
        const u64 tensor_bytes = blocks * type->type_size;
        if (!names.insert(name).second)
            r.fail(fmt::format("duplicate tensor name '{}' (corrupt file)", shown));
        tensors.push_back({name, offset, tensor_bytes});
        info.params = add_checked(info.params, elements, r, "tensor element counts");
        info.weight_bytes = add_checked(info.weight_bytes, tensor_bytes, r, "tensor sizes");
        all_bytes[type_id] += tensor_bytes;  // each sum is at most weight_bytes
        if (n_dims >= 2) matrix_bytes[type_id] += tensor_bytes;
        hints.add(name, dims, n_dims);
    }
    if (tensors.empty())
        r.fail(
            "the file has no tensors (a vocabulary-only GGUF?); gpuadvise needs a file with the "
            "model's weights");

    // Tensor data starts at the next multiple of the alignment; offsets are
    // relative to it. A header that claims more data than the file holds is a
    // truncated download or a corrupt file.
    const u64 header_end = r.pos();
    const u64 data_start =
        add_checked(header_end, (alignment - header_end % alignment) % alignment, r, "offsets");
    if (data_start > file_size)
        r.fail(fmt::format(
            "the file ends at byte {}, before its tensor data begins at byte {} (truncated file)",
            file_size, data_start));
    const u64 data_size = file_size - data_start;
    for (const TensorRecord& t : tensors) {
        if (t.offset % alignment != 0)
            r.fail(
                fmt::format("tensor '{}' starts at data offset {}, not a multiple of the alignment "
                            "{} (corrupt file)",
                            printable_name(t.name), t.offset, alignment));
        if (t.offset > data_size || t.bytes > data_size - t.offset)
            r.fail(
                fmt::format("tensor '{}' ({} bytes at data offset {}) runs past the end of the "
                            "file, which holds {} "
                            "bytes of tensor data (truncated download?)",
                            printable_name(t.name), t.bytes, t.offset, data_size));
    }
    if (info.weight_bytes > data_size)
        r.fail(
            fmt::format("the tensors claim {} bytes but the file holds only {} bytes of tensor "
                        "data (overlapping "
                        "tensors; corrupt file)",
                        info.weight_bytes, data_size));
    if (info.params == 0) r.fail("the tensors hold no elements");

    read_model(kv, hints, info);

    // The quantisation is the type of most weight-matrix bytes; a file of
    // vectors only (no such tensor) falls back to all tensors.
    const bool any_matrix =
        std::any_of(matrix_bytes.begin(), matrix_bytes.end(), [](u64 b) { return b > 0; });
    const auto& by_type = any_matrix ? matrix_bytes : all_bytes;
    const auto top =
        std::max_element(by_type.begin(), by_type.end());  // first of equals: lowest id
    info.quantization = std::string(ggml_type(static_cast<u32>(top - by_type.begin()))->name);
    for (std::size_t id = 0; id < all_bytes.size(); ++id)
        if (all_bytes[id] > 0)
            info.type_bytes[std::string(ggml_type(static_cast<u32>(id))->name)] = all_bytes[id];
    info.bits_per_weight =
        8.0 * static_cast<double>(info.weight_bytes) / static_cast<double>(info.params);
    return info;
}

}  // namespace gpuadvise
