#include "gpuadvise/table.hpp"

#include <algorithm>
#include <numeric>

#include "gpuadvise/text.hpp"

namespace gpuadvise {

namespace {

std::string pad(const std::string& text, std::size_t width, bool right) {
    const std::size_t w = display_width(text);
    if (w >= width) return text;
    return right ? std::string(width - w, ' ') + text : text + std::string(width - w, ' ');
}

std::string colorize(const std::string& cell, const std::string& padded, bool enabled) {
    if (!enabled) return padded;
    if (cell == "yes") return paint(padded, "32", true);
    if (cell == "no") return paint(padded, "31", true);
    return padded;
}

}  // namespace

std::string paint(const std::string& text, const char* ansi, bool enabled) {
    if (!enabled) return text;
    return std::string("\033[") + ansi + "m" + text + "\033[0m";
}

namespace {

// Text from outside (catalog names, vendor tools, file names) must not carry
// terminal escapes or line breaks into a table: every cell is sanitised.
Table sanitized(const Table& in) {
    Table t = in;
    for (auto& col : t.columns) col.header = sanitize(col.header);
    for (auto& row : t.rows)
        for (auto& cell : row) cell = sanitize(cell);
    return t;
}

}  // namespace

std::string render_aligned(const Table& table, const Style& style) {
    const Table t = sanitized(table);
    const std::size_t ncol = t.columns.size();
    std::vector<std::size_t> widths(ncol);
    for (std::size_t c = 0; c < ncol; ++c) {
        widths[c] = display_width(t.columns[c].header);
        for (const auto& row : t.rows)
            if (c < row.size()) widths[c] = std::max(widths[c], display_width(row[c]));
    }
    std::vector<bool> shown(ncol, true);
    const auto total = [&] {
        std::size_t sum = 0, count = 0;
        for (std::size_t c = 0; c < ncol; ++c)
            if (shown[c]) {
                sum += widths[c];
                ++count;
            }
        return sum + (count > 0 ? 2 * (count - 1) : 0);
    };
    if (style.width > 0) {
        // Drop columns by their order until the row fits, then truncate the
        // free-text column; never wrap.
        std::vector<std::size_t> order(ncol);
        std::iota(order.begin(), order.end(), std::size_t{0});
        std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
            return t.columns[a].drop_order > t.columns[b].drop_order;
        });
        std::size_t flex = ncol;
        for (std::size_t c = 0; c < ncol; ++c)
            if (t.columns[c].flexible) flex = c;
        for (std::size_t c : order) {
            if (total() <= style.width) break;
            if (flex < ncol && total() - widths[flex] + 12 <= style.width)
                break;  // truncating the text suffices
            if (t.columns[c].drop_order > 0) shown[c] = false;
        }
        if (flex < ncol && shown[flex] && total() > style.width) {
            const std::size_t others = total() - widths[flex];
            widths[flex] = style.width > others + 4 ? style.width - others : 4;
        }
    }
    std::string out;
    const auto line = [&](const std::vector<std::string>& cells, bool header) {
        std::string text;
        bool first = true;
        for (std::size_t c = 0; c < ncol; ++c) {
            if (!shown[c]) continue;
            const std::string cell = c < cells.size() ? truncate_display(cells[c], widths[c]) : "";
            const bool last = [&] {
                for (std::size_t d = c + 1; d < ncol; ++d)
                    if (shown[d]) return false;
                return true;
            }();
            std::string padded =
                last && !t.columns[c].right ? cell : pad(cell, widths[c], t.columns[c].right);
            padded = header ? paint(padded, "1", style.color) : colorize(cell, padded, style.color);
            text += (first ? "" : "  ") + padded;
            first = false;
        }
        while (!text.empty() && text.back() == ' ') text.pop_back();
        out += text + "\n";
    };
    std::vector<std::string> headers;
    for (const auto& col : t.columns) headers.push_back(col.header);
    line(headers, true);
    for (const auto& row : t.rows) line(row, false);
    return out;
}

std::string render_csv(const Table& table) {
    const Table t = sanitized(table);
    const auto quote = [](const std::string& cell) {
        if (cell.find_first_of(",\"\r\n") == std::string::npos) return cell;
        std::string q = "\"";
        for (char c : cell) {
            if (c == '"') q += '"';
            q += c;
        }
        return q + "\"";
    };
    std::string out;
    for (std::size_t c = 0; c < t.columns.size(); ++c)
        out += (c ? "," : "") + quote(t.columns[c].header);
    out += "\r\n";
    for (const auto& row : t.rows) {
        for (std::size_t c = 0; c < t.columns.size(); ++c)
            out += (c ? "," : "") + quote(c < row.size() ? row[c] : "");
        out += "\r\n";
    }
    return out;
}

std::string render_markdown(const Table& table) {
    const Table t = sanitized(table);
    const auto escape = [](const std::string& cell) {
        std::string e;
        // GitHub's tables: a backslash escapes the next character, so one
        // before a '|' must be escaped too or the pipe would end the cell.
        for (char c : cell) {
            if (c == '|' || c == '\\') {
                e += '\\';
                e += c;
            } else if (c == '\n') {
                e += "<br>";
            } else {
                e += c;
            }
        }
        return e;
    };
    std::string out = "|";
    for (const auto& col : t.columns) out += " " + escape(col.header) + " |";
    out += "\n|";
    for (const auto& col : t.columns) out += col.right ? "---:|" : "---|";
    out += "\n";
    for (const auto& row : t.rows) {
        out += "|";
        for (std::size_t c = 0; c < t.columns.size(); ++c)
            out += " " + escape(c < row.size() ? row[c] : "") + " |";
        out += "\n";
    }
    return out;
}

std::string render(const Table& table, Format format, const Style& style) {
    switch (format) {
        case Format::Csv:
            return render_csv(table);
        case Format::Markdown:
            return render_markdown(table);
        default:
            return render_aligned(table, style);
    }
}

}  // namespace gpuadvise
