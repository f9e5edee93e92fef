#pragma once
// A small RFC 4180 reader for the tests: records end in CRLF, a field may be
// quoted ("..."), a quote inside a quoted field is doubled, and a quoted
// field may hold commas and line breaks. Anything else (a bare quote inside
// an unquoted field, text after a closing quote, an unterminated quote, a
// bare LF as a record end) is an error, so a writer that strays from the RFC
// fails the test instead of being read generously.
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace gpuadvise_test {

using CsvRecord = std::vector<std::string>;

inline std::vector<CsvRecord> parse_csv(std::string_view text) {
    std::vector<CsvRecord> records;
    CsvRecord record;
    std::string field;
    std::size_t i = 0;
    const auto fail = [&](const char* what) {
        throw std::runtime_error(std::string("CSV: ") + what + " at byte " + std::to_string(i));
    };
    while (i < text.size()) {
        if (text[i] == '"') {
            ++i;
            while (true) {
                if (i >= text.size()) fail("unterminated quoted field");
                if (text[i] == '"') {
                    if (i + 1 < text.size() && text[i + 1] == '"') {
                        field += '"';
                        i += 2;
                        continue;
                    }
                    ++i;
                    break;
                }
                field += text[i++];
            }
            if (i < text.size() && text[i] != ',' && text[i] != '\r') fail("text after a quote");
        } else {
            while (i < text.size() && text[i] != ',' && text[i] != '\r') {
                if (text[i] == '"') fail("a quote inside an unquoted field");
                if (text[i] == '\n') fail("a bare LF");
                field += text[i++];
            }
        }
        if (i >= text.size()) fail("the last record has no CRLF");
        if (text[i] == ',') {
            record.push_back(std::move(field));
            field.clear();
            ++i;
            continue;
        }
        if (i + 1 >= text.size() || text[i + 1] != '\n') fail("CR without LF");
        record.push_back(std::move(field));
        field.clear();
        records.push_back(std::move(record));
        record.clear();
        i += 2;
    }
    return records;
}

}  // namespace gpuadvise_test
