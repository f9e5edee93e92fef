// Fuzzes one `gpuadvise batch` line against a small fixture catalog: every
// line must yield exactly one JSON object, an answer or an error object.
#include <cstddef>
#include <nlohmann/json.hpp>
#include <string>

#include "fuzz_common.hpp"
#include "gpuadvise/batch.hpp"
#include "gpuadvise/embedded.hpp"

using namespace gpuadvise;
using fuzz::finding;

extern "C" int LLVMFuzzerTestOneInput(const unsigned char* data, std::size_t size) {
    const std::string_view line = fuzz::as_text(data, size);
    if (line.find('\n') != std::string_view::npos) return 0;  // the CLI splits lines first
    static const std::vector<ModelPreset> no_presets;
    try {
        const BatchLineResult r = run_batch_line(line, 1, {embedded::catalog(), no_presets});
        const auto j = nlohmann::json::parse(r.json);
        if (!j.is_object() || j.value("schema", 0) != 1)
            finding("a batch result is not a schema-1 object");
        if (!r.ok && !j.contains("error")) finding("a failed line has no error object");
    } catch (const std::exception& e) {
        finding(std::string("batch line escaped with an exception: ") + e.what());
    }
    return 0;
}
