// Fuzzes the safetensors header reader and the shard index parser.
#include <cstddef>
#include <string>

#include "fuzz_common.hpp"
#include "gpuadvise/safetensors.hpp"

using namespace gpuadvise;
using fuzz::accepts;
using fuzz::finding;

extern "C" int LLVMFuzzerTestOneInput(const unsigned char* data, std::size_t size) {
    const std::string_view file = fuzz::as_text(data, size);
    accepts([&] {
        const SafetensorsInfo info = parse_safetensors_header(file, file.size(), "m.safetensors");
        if (info.bytes > file.size())
            finding("an accepted header claims more tensor bytes than the file holds");
    });
    accepts([&] { (void)parse_safetensors_index(file, "model.safetensors.index.json"); });
    return 0;
}
