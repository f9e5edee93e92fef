// Fuzzes the GGUF header reader (--gguf) the way the CLI calls it: a prefix
// of the file, retried with the length NeedMoreBytes asks for.
#include <cstddef>
#include <string>

#include "fuzz_common.hpp"
#include "gpuadvise/gguf.hpp"

using namespace gpuadvise;
using fuzz::finding;

extern "C" int LLVMFuzzerTestOneInput(const unsigned char* data, std::size_t size) {
    const std::string_view file = fuzz::as_text(data, size);
    std::size_t give = std::min<std::size_t>(file.size(), 64);
    for (int round = 0; round < 32; ++round) {
        try {
            const GgufInfo info = parse_gguf(file.substr(0, give), file.size(), "m.gguf");
            if (info.params == 0 && info.tensor_count > 0)
                finding("tensors counted but zero parameters");
            return 0;
        } catch (const NeedMoreBytes& more) {
            if (more.needed <= give || give >= file.size())
                return 0;  // the reader asked for bytes the file lacks
            give = static_cast<std::size_t>(std::min<std::uint64_t>(more.needed, file.size()));
        } catch (const InputError&) {
            return 0;
        } catch (const std::exception& e) {
            finding(std::string("unexpected exception: ") + e.what());
        }
    }
    return 0;
}
