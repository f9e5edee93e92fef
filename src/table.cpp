#include "gpuadvise/table.hpp"

#include <fmt/format.h>

#include <algorithm>

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

bool unit_in_cells(const Column& c) {
    return !c.unit.empty() && c.unit != c.header;
}

// A cell as people read it: with its unit, "-" for an unknown number.
std::string for_people(const Column& c, const std::string& cell) {
    if (cell.empty()) return c.right || !c.unit.empty() ? "-" : "";
    if (c.people != nullptr) return c.people(cell);
    if (!unit_in_cells(c)) return cell;
    return c.unit == "USD" ? "$" + cell : cell + " " + c.unit;
}

// The table as people read it (aligned, Markdown, HTML): units in the cells.
Table people(const Table& in) {
    Table t = sanitized(in);
    for (auto& row : t.rows)
        for (std::size_t c = 0; c < row.size() && c < t.columns.size(); ++c)
            row[c] = for_people(t.columns[c], row[c]);
    return t;
}

// What narrowing decided: which columns show, and at what width.
struct Layout {
    Table table;  // cells as shown (a Shorten step rewrites them)
    std::vector<bool> shown;
    std::vector<std::size_t> widths;
};

Layout lay_out(const Table& source, std::size_t width) {
    Layout l{people(source), {}, {}};
    Table& t = l.table;
    const std::size_t ncol = t.columns.size();
    const auto natural_width = [&](std::size_t c) {
        std::size_t w = display_width(t.columns[c].header);
        for (const auto& row : t.rows)
            if (c < row.size()) w = std::max(w, display_width(row[c]));
        return w;
    };
    std::vector<std::size_t> natural(ncol);
    for (std::size_t c = 0; c < ncol; ++c) natural[c] = natural_width(c);
    // `floor` is what a column needs: its natural width, or less once a Cut
    // step lets it shrink.
    std::vector<std::size_t> floor = natural;
    std::vector<bool> cut(ncol, false);
    l.shown.assign(ncol, true);
    const auto total = [&] {
        std::size_t sum = 0, count = 0;
        for (std::size_t c = 0; c < ncol; ++c)
            if (l.shown[c]) {
                sum += floor[c];
                ++count;
            }
        return sum + (count > 0 ? 2 * (count - 1) : 0);
    };
    const auto find = [&](std::string_view key) {
        for (std::size_t c = 0; c < ncol; ++c)
            if ((t.columns[c].key.empty() ? t.columns[c].header : t.columns[c].key) == key)
                return c;
        return ncol;
    };
    if (width > 0) {
        for (const NarrowStep& step : t.narrowing) {
            if (total() <= width) break;
            const std::size_t c = find(step.column);
            if (c == ncol || !l.shown[c]) continue;
            switch (step.action) {
                case Narrow::Drop:
                    l.shown[c] = false;
                    break;
                case Narrow::Cut:
                    floor[c] = std::min(natural[c], std::max<std::size_t>(step.width, 4));
                    cut[c] = true;
                    break;
                case Narrow::Shorten:
                    if (step.shorten == nullptr) break;
                    for (auto& row : t.rows)
                        // A shortener may cut inside a character; what it returns is
                        // cleaned like any cell, so the table stays valid UTF-8.
                        if (c < row.size()) row[c] = sanitize(step.shorten(row[c]));
                    natural[c] = natural_width(c);
                    floor[c] = cut[c] ? std::min(floor[c], natural[c]) : natural[c];
                    break;
            }
        }
    }
    // Columns that may be cut take what is left, up to their natural width.
    l.widths = floor;
    std::size_t slack = width > total() ? width - total() : 0;
    for (std::size_t c = 0; c < ncol; ++c) {
        if (!l.shown[c] || !cut[c]) continue;
        const std::size_t grow =
            width == 0 ? natural[c] - floor[c] : std::min(natural[c] - floor[c], slack);
        l.widths[c] += grow;
        slack -= std::min(slack, grow);
    }
    return l;
}

}  // namespace

std::vector<std::string> shown_columns(const Table& table, std::size_t width) {
    const Layout l = lay_out(table, width);
    std::vector<std::string> out;
    for (std::size_t c = 0; c < l.table.columns.size(); ++c)
        if (l.shown[c]) out.push_back(l.table.columns[c].header);
    return out;
}

std::string render_aligned(const Table& table, const Style& style) {
    const Layout l = lay_out(table, style.width);
    const Table& t = l.table;
    const std::size_t ncol = t.columns.size();
    const auto& shown = l.shown;
    const auto& widths = l.widths;
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
    for (std::size_t c = 0; c < t.columns.size(); ++c) {
        const Column& col = t.columns[c];
        out += (c ? "," : "") +
               quote(unit_in_cells(col) ? col.header + " (" + col.unit + ")" : col.header);
    }
    out += "\r\n";
    for (const auto& row : t.rows) {
        for (std::size_t c = 0; c < t.columns.size(); ++c)
            out += (c ? "," : "") + quote(c < row.size() ? row[c] : "");
        out += "\r\n";
    }
    return out;
}

std::string render_markdown(const Table& table) {
    const Table t = people(table);
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

std::string render_html(const Table& table) {
    const Table t = people(table);
    const auto cell = [&](const char* tag, std::size_t c, const std::string& text) {
        const bool num = c < t.columns.size() && t.columns[c].right;
        return fmt::format("<{}{}>{}</{}>", tag, num ? " class=\"num\"" : "", escape_html(text),
                           tag);
    };
    std::string out = "<table>\n<thead><tr>";
    for (std::size_t c = 0; c < t.columns.size(); ++c) out += cell("th", c, t.columns[c].header);
    out += "</tr></thead>\n<tbody>\n";
    for (const auto& row : t.rows) {
        out += "<tr>";
        for (std::size_t c = 0; c < t.columns.size(); ++c)
            out += cell("td", c, c < row.size() ? row[c] : "");
        out += "</tr>\n";
    }
    return out + "</tbody>\n</table>\n";
}

std::string render(const Table& table, Format format, const Style& style) {
    switch (format) {
        case Format::Csv:
            return render_csv(table);
        case Format::Markdown:
            return render_markdown(table);
        case Format::Html:
            return render_html(table);
        case Format::Table:
        case Format::Json:
            break;
    }
    return render_aligned(table, style);
}

}  // namespace gpuadvise
