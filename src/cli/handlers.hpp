#pragma once
// The command handlers the command table (commands.cpp) names, one file per
// job: cmd_plan.cpp (the ranking, estimate, check, compare), cmd_fit.cpp,
// cmd_calibrate.cpp, cmd_info.cpp (the listings, batch, detect, completion,
// man). Each returns the exit code; bad input throws InputError.
#include "cli/commands.hpp"

namespace gpuadvise::cli {

int cmd_recommend(Context& ctx);
int cmd_estimate(Context& ctx);
int cmd_check(Context& ctx);
int cmd_compare(Context& ctx);
int cmd_fit(Context& ctx);
int cmd_calibrate(Context& ctx);
int cmd_gpus(Context& ctx);
int cmd_gpu_show(Context& ctx);
int cmd_models(Context& ctx);
int cmd_rules(Context& ctx);
int cmd_batch(Context& ctx);
int cmd_detect(Context& ctx);
int cmd_completion(Context& ctx);
int cmd_man(Context& ctx);

}  // namespace gpuadvise::cli
