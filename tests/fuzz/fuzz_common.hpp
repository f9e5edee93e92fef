#pragma once
// Shared by the libFuzzer harnesses: the one expected failure is
// gpuadvise::InputError; any other exception, a broken invariant, a crash or a
// sanitizer report is a finding. A finding aborts, so libFuzzer saves the
// input (crash-<sha1>) and prints the stack.
#include <cxxabi.h>

#include <cstdio>
#include <cstdlib>
#include <exception>
#include <memory>
#include <string>
#include <string_view>
#include <typeinfo>

#include "gpuadvise/error.hpp"

namespace gpuadvise::fuzz {

[[noreturn]] inline void finding(std::string_view what) {
    std::fprintf(stderr, "\n==gpuadvise-fuzz== FINDING: %.*s\n", static_cast<int>(what.size()),
                 what.data());
    std::fflush(stderr);
    std::abort();
}

inline std::string demangle(const char* name) {
    int status = 0;
    const std::unique_ptr<char, void (*)(void*)> d(
        abi::__cxa_demangle(name, nullptr, nullptr, &status), std::free);
    return status == 0 && d ? std::string(d.get()) : std::string(name);
}

// GPUADVISE_FUZZ_KNOWN: '|'-separated substrings of findings already reported
// and not fixed yet ("out_of_range.406|internal error: [json"); an unexpected
// exception whose description contains one is treated as expected, so a
// fuzzing session can look past it. Sanitizer reports are never suppressed.
inline bool known(std::string_view description) {
    static const std::string list = [] {
        const char* env = std::getenv("GPUADVISE_FUZZ_KNOWN");
        return std::string(env ? env : "");
    }();
    std::string_view rest = list;
    while (!rest.empty()) {
        const std::size_t bar = rest.find('|');
        const std::string_view item = rest.substr(0, bar);
        if (!item.empty() && description.find(item) != std::string_view::npos) return true;
        if (bar == std::string_view::npos) break;
        rest.remove_prefix(bar + 1);
    }
    return false;
}

// Runs `body`. Returns true when it completed, false when it threw
// InputError (the expected rejection of bad input); anything else thrown is
// reported as a finding.
template <class Body>
bool accepts(Body&& body) {
    try {
        body();
        return true;
    } catch (const InputError& e) {
        if (std::string_view(e.what()).empty()) finding("InputError with an empty message");
        return false;
    } catch (const std::exception& e) {
        const std::string description =
            "unexpected exception " + demangle(typeid(e).name()) + ": " + e.what();
        if (known(description)) return false;
        finding(description);
    } catch (...) {
        finding("unexpected exception not derived from std::exception");
    }
}

inline std::string_view as_text(const unsigned char* data, std::size_t size) {
    return {reinterpret_cast<const char*>(data), size};
}

}  // namespace gpuadvise::fuzz
