#pragma once
// Every table compiled into the binary, for the code at the top that uses
// several (the CLI, the data generator's check, tests): each module declares
// its own table's accessor in its own header (quant.hpp's
// embedded::quant_formats(), ...), defined in the generated
// embedded_tables.cpp, so no module below reaches up through this header.
#include "gpuadvise/attainable.hpp"
#include "gpuadvise/bands.hpp"
#include "gpuadvise/catalog.hpp"
#include "gpuadvise/cloud_prices.hpp"
#include "gpuadvise/energy.hpp"
#include "gpuadvise/engines.hpp"
#include "gpuadvise/model.hpp"
#include "gpuadvise/network.hpp"
#include "gpuadvise/platform.hpp"
#include "gpuadvise/quant.hpp"
#include "gpuadvise/rules.hpp"
#include "gpuadvise/speculative.hpp"
#include "gpuadvise/task.hpp"
