// Fuzzes the whole command line: the input is split into arguments on NUL or
// newline bytes and handed to gpuadvise::cli::run with string streams. Bytes
// after the first 0x1E (record separator) are stdin, for '--hf-config -' and
// '--catalog -'.
//
// File access: the CLI only reads files (--hf-config, --catalog,
// --catalog-merge, env GPUADVISE_CATALOG); it writes none. To keep the fuzzer
// away from anything outside the process, arguments that name absolute paths
// or climb with '..' are skipped, the environment variable is set by the
// harness (below), and the fixture names below are rewritten to files under
// tests/fuzz/fixtures.
// Should a flag that writes a file, or a command that runs other programs, be
// added, list it in kDeniedFlags or kDeniedCommands.
//
// run() catches every exception itself: InputError is printed as the user's
// message, anything else as "internal error ... (please report it)". So an
// "internal error" on stderr is the finding here, as are an exit code other
// than 0, 1 or 2, an exit code 2 without a "gpuadvise: " line, and JSON output
// that does not parse.
#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "cli/run.hpp"
#include "fuzz_common.hpp"

#ifndef GPUADVISE_FUZZ_FIXTURES
#error "GPUADVISE_FUZZ_FIXTURES must name tests/fuzz/fixtures"
#endif

namespace {

using gpuadvise::fuzz::finding;

constexpr char kStdinSeparator = '\x1e';
constexpr std::size_t kMaxArgs = 64;
constexpr std::array<std::string_view, 4> kFixtures{"config.json", "moe-config.json",
                                                    "catalog.json", "merge.json"};
// Arguments with effects outside the process: flags that would write a file
// (none exist yet; matched as prefixes) and commands that run other programs
// (`detect`, being added, runs nvidia-smi, rocm-smi, ...; matched exactly).
constexpr std::array<std::string_view, 5> kDeniedFlags{"--output", "--out", "--save", "--write",
                                                       "--detect"};
// `calibrate` appends to the user's calibration file (fuzz_calibration covers
// its parsers instead).
constexpr std::array<std::string_view, 2> kDeniedCommands{"detect", "calibrate"};
// 'local' (--gpu local, compare local) runs the detect tools too.
constexpr std::array<std::string_view, 1> kDeniedValues{"local"};

bool escapes_sandbox(std::string_view arg) {
    if (!arg.empty() && (arg.front() == '/' || arg.front() == '~')) return true;
    if (arg.find("..") != std::string_view::npos || arg.find("=/") != std::string_view::npos)
        return true;
    return std::any_of(kDeniedFlags.begin(), kDeniedFlags.end(),
                       [&](std::string_view f) { return arg.rfind(f, 0) == 0; }) ||
           std::any_of(kDeniedCommands.begin(), kDeniedCommands.end(),
                       [&](std::string_view c) { return arg == c; }) ||
           std::any_of(kDeniedValues.begin(), kDeniedValues.end(), [&](std::string_view v) {
               const std::size_t eq = arg.find('=');
               return arg == v || (eq != std::string_view::npos && arg.substr(eq + 1) == v);
           });
}

// "catalog.json" and "--catalog=catalog.json" become the fixture's full path.
std::string with_fixture_path(std::string arg) {
    for (std::string_view name : kFixtures) {
        const std::string full = std::string(GPUADVISE_FUZZ_FIXTURES) + "/" + std::string(name);
        if (arg == name) return full;
        const std::size_t eq = arg.find('=');
        if (eq != std::string::npos && std::string_view(arg).substr(eq + 1) == name)
            return arg.substr(0, eq + 1) + full;
    }
    return arg;
}

}  // namespace

// Ranking the 100-card embedded catalog under ASan makes one run slow (about
// 70 runs/s on 2 cores); the default catalog is therefore the fixture's dozen
// cards of every vendor, which reaches the same code about 10x as often.
// GPUADVISE_FUZZ_FULL_CATALOG=1 fuzzes against the embedded catalog instead.
extern "C" int LLVMFuzzerInitialize(int*, char***) {
    if (std::getenv("GPUADVISE_FUZZ_FULL_CATALOG"))
        unsetenv("GPUADVISE_CATALOG");
    else
        setenv("GPUADVISE_CATALOG", GPUADVISE_FUZZ_FIXTURES "/catalog.json", 1);
    return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const unsigned char* data, std::size_t size) {
    std::string_view input = gpuadvise::fuzz::as_text(data, size);
    std::string stdin_text;
    if (const std::size_t sep = input.find(kStdinSeparator); sep != std::string_view::npos) {
        stdin_text = std::string(input.substr(sep + 1));
        input = input.substr(0, sep);
    }
    std::vector<std::string> args{"gpuadvise"};
    std::size_t start = 0;
    for (std::size_t i = 0; i <= input.size(); ++i) {
        if (i < input.size() && input[i] != '\0' && input[i] != '\n') continue;
        const std::string_view arg = input.substr(start, i - start);
        start = i + 1;
        if (i == input.size() && arg.empty()) break;  // no trailing empty argument
        if (escapes_sandbox(arg) || args.size() > kMaxArgs)
            return -1;  // -1: not added to the corpus
        args.push_back(with_fixture_path(std::string(arg)));
    }
    std::vector<char*> argv;
    for (std::string& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);

    // Static so the logger run() installs (which keeps a reference to `err`)
    // never outlives its stream.
    static std::istringstream in;
    static std::ostringstream out, err;
    in.str(stdin_text);
    in.clear();
    out.str("");
    out.clear();
    err.str("");
    err.clear();

    int rc = -1;
    try {
        rc = gpuadvise::cli::run(static_cast<int>(args.size()), argv.data(), in, out, err);
    } catch (const std::exception& e) {
        finding(std::string("cli::run let an exception escape: ") +
                gpuadvise::fuzz::demangle(typeid(e).name()) + ": " + e.what());
    } catch (...) {
        finding("cli::run let a non-std exception escape");
    }
    const std::string o = out.str(), e = err.str();
    if (std::getenv("GPUADVISE_FUZZ_VERBOSE")) {  // for triage: what each input did
        std::string line;
        for (const std::string& a : args) line += "'" + a + "' ";
        std::fprintf(stderr, "%s-> exit %d, %zu bytes out\n%s", line.c_str(), rc, o.size(),
                     e.c_str());
    }
    // run() reports a non-InputError exception as "gpuadvise: internal error: ..."
    // (and std::bad_alloc as "out of memory ..."); match whole lines so an
    // argument that merely contains the words is not a finding.
    for (const char* bug : {"gpuadvise: internal error: ", "gpuadvise: out of memory "}) {
        const std::size_t at = e.find(bug);
        if (at != std::string::npos && (at == 0 || e[at - 1] == '\n') && !gpuadvise::fuzz::known(e))
            finding("cli::run reported: " + e);
    }
    if (rc < 0 || rc > 2) finding("unexpected exit code " + std::to_string(rc));
    if (rc == 2) {
        if (e.empty() || e.back() != '\n')
            finding("exit 2 without a complete stderr line: '" + e + "'");
        const std::size_t last = e.rfind('\n', e.size() - 2);
        const std::string_view line =
            std::string_view(e).substr(last == std::string::npos ? 0 : last + 1);
        if (line.rfind("gpuadvise: ", 0) != 0)
            finding("exit 2 whose last stderr line is not 'gpuadvise: ...': " + e);
    }
    if (!o.empty() && o.front() == '{' && !nlohmann::json::accept(o))
        finding("stdout looks like JSON but does not parse:\n" + o);
    return 0;
}
