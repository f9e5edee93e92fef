#pragma once
// What the serving (launch_serve.cpp) and training (launch_train.cpp)
// templates share: words of a command line, the model's reference, quoting
// of values into a config file's format. Private to the launch module.
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "gpuadvise/launch.hpp"

namespace gpuadvise::launch_detail {

// Literal words (each one argument).
std::vector<Word> words(std::initializer_list<std::string_view> list);
void append(std::vector<Word>& argv, std::initializer_list<std::string_view> list);

// The GPUs of one node of the plan.
std::int64_t per_node(const Recommendation& rec);

// torchrun for one box or, across nodes, with a rendezvous every node joins.
std::vector<Word> torchrun_prefix(const Recommendation& rec);

// The model path as an argument: a relative path that starts with '-' gets
// "./" in front, so no tool's parser takes it for an option (it names the
// same file).
std::string path_argument(std::string_view path);

// A value spelt for `format` (a YAML or TOML string); throws InputError when
// the format cannot hold it (a path that is not UTF-8), naming `what`, the
// tool and `role` ("the model path").
std::string config_string(ConfigFormat format, std::string_view value, std::string_view what,
                          std::string_view tool, std::string_view role);

Launch serve_launch(const Workload& w, const Recommendation& rec, LaunchKind kind,
                    std::string_view what);
Launch train_launch(const Workload& w, const Recommendation& rec, LaunchKind kind,
                    std::string_view what);

// Whether `kind` serves a model (vllm ... mlx-lm) rather than training one.
bool serves(LaunchKind kind);
// The serving launch that starts `engine` (its own template or the one it
// serves with: LM Studio's is llama-server); nullopt when it has none.
std::optional<LaunchKind> serve_kind(const Engine& engine);

}  // namespace gpuadvise::launch_detail
