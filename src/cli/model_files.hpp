#pragma once
// Reading model files for --gguf, --safetensors and --model-dir: only their
// headers, by prefix, growing the read until the pure parser of the core is
// satisfied (it throws NeedMoreBytes with the size it needs).
#include <string>
#include <vector>

#include "cli/io.hpp"
#include "gpuadvise/workload.hpp"

namespace gpuadvise::cli {

ModelFile read_gguf(const std::string& path, std::string_view what);
// A .safetensors file, or a model.safetensors.index.json naming its shards.
ModelFile read_safetensors(const std::string& path, std::string_view what, Stdin& in);
// A Hugging Face model folder: config.json plus its safetensors weights.
ModelFile read_model_dir(const std::string& dir, std::string_view what, Stdin& in);

// Every *.gguf file in `dir` and its folders (4 levels at most, links to
// outside it not followed): the files read, and for each file skipped a line
// "name: why" (a split GGUF, a vision projector, a file that is not a model).
// Throws InputError when `dir` is not a folder or holds no GGUF file.
struct GgufFolder {
    std::vector<ModelFile> files;
    std::vector<std::string> skipped;
};
GgufFolder read_gguf_folder(const std::string& dir, std::string_view what);

}  // namespace gpuadvise::cli
