#pragma once
// The message of the InputError `f` throws; fails the test for no error, for
// a request for more bytes (a reader that should have refused the input), or
// for any other exception. Shared by the file-format reader tests.
#include <catch2/catch.hpp>
#include <string>

#include "gpuadvise/error.hpp"
#include "gpuadvise/file_formats.hpp"

template <typename F>
std::string input_error(F&& f) {
    try {
        f();
    } catch (const gpuadvise::NeedMoreBytes& e) {
        FAIL("asked for more bytes instead of failing: " << e.what());
    } catch (const gpuadvise::InputError& e) {
        return e.what();
    }
    FAIL("no InputError thrown");
    return {};
}
