#pragma once
// A small RFC 4180 reader for the ground-truth tables: quoted fields may hold
// commas, doubled quotes and newlines. Rows are maps from header to cell.
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace bench {

using Row = std::map<std::string, std::string>;

inline std::vector<Row> parse_csv(std::string_view text) {
    std::vector<std::vector<std::string>> records;
    std::vector<std::string> record;
    std::string field;
    bool quoted = false;
    for (std::size_t i = 0; i < text.size(); ++i) {
        const char c = text[i];
        if (quoted) {
            if (c == '"' && i + 1 < text.size() && text[i + 1] == '"') {
                field.push_back('"');
                ++i;
            } else if (c == '"') {
                quoted = false;
            } else {
                field.push_back(c);
            }
        } else if (c == '"') {
            quoted = true;
        } else if (c == ',') {
            record.push_back(std::move(field));
            field.clear();
        } else if (c == '\n' || c == '\r') {
            if (c == '\r' && i + 1 < text.size() && text[i + 1] == '\n') ++i;
            record.push_back(std::move(field));
            field.clear();
            records.push_back(std::move(record));
            record.clear();
        } else {
            field.push_back(c);
        }
    }
    if (!field.empty() || !record.empty()) {
        record.push_back(std::move(field));
        records.push_back(std::move(record));
    }
    std::vector<Row> rows;
    if (records.empty()) return rows;
    const auto& header = records.front();
    for (std::size_t r = 1; r < records.size(); ++r) {
        if (records[r].size() == 1 && records[r][0].empty()) continue;
        Row row;
        for (std::size_t c = 0; c < header.size() && c < records[r].size(); ++c)
            row[header[c]] = records[r][c];
        rows.push_back(std::move(row));
    }
    return rows;
}

}  // namespace bench
