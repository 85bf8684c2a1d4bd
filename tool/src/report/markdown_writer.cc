#include "report/markdown_writer.h"

#include <cstdio>
#include <map>

#include "report/line_diff.h"
#include "common/text.h"

namespace kernelblaster::report {
namespace {

std::string cell(const std::string& text) {
  std::string out;
  for (char c : text) {
    if (c == '|') out += "\\|";
    else if (c == '\n') out += ' ';
    else out += c;
  }
  return out;
}

std::string num(double v) { return general_number(v, 4); }

std::string table_md(const Table& t) {
  std::string out = "|";
  for (const std::string& h : t.headers) out += " " + cell(h) + " |";
  out += "\n|";
  for (std::size_t i = 0; i < t.headers.size(); ++i) out += "---|";
  out += "\n";
  for (const auto& row : t.rows) {
    out += "|";
    for (const Cell& c : row) out += " " + cell(c.text) + " |";
    out += "\n";
  }
  return out;
}

std::string chart_md(const Chart& c) {
  std::string out = "**" + cell(c.title) + "**\n\n| series | " + cell(c.x_label) + " | " + cell(c.y_label) + " |\n|---|---|---|\n";
  for (const Series& s : c.series) {
    const Point* last = nullptr;
    for (std::size_t i = 0; i < s.points.size(); ++i) {
      const Point& p = s.points[i];
      // A staircase is written where it steps (and at its end).
      bool keep = !s.steps || !last || p.y != last->y || i + 1 == s.points.size();
      if (keep) out += "| " + cell(s.name) + " | " + num(p.x) + " | " + num(p.y) + " |\n";
      last = &p;
    }
  }
  return out;
}

std::string strip_md(const Strip& s) {
  std::map<std::string, int> by_text;
  std::string out = "**" + cell(s.title) + "** (" + std::to_string(s.cells.size()) + "): ";
  std::vector<std::string> order;
  for (const Cell& c : s.cells) {
    std::string key = c.text.substr(0, c.text.find(':'));
    if (!by_text.count(key)) order.push_back(key);
    ++by_text[key];
  }
  for (std::size_t i = 0; i < order.size(); ++i) out += (i ? ", " : "") + order[i] + " " + std::to_string(by_text[order[i]]);
  return out + "\n";
}

std::string diff_md(const SideBySide& d) {
  std::string out = "**" + cell(d.title) + "** (" + cell(d.left_name) + " → " + cell(d.right_name) + ")\n\n```diff\n";
  for (const DiffRow& r : diff_lines(split_lines(d.left), split_lines(d.right))) {
    switch (r.kind) {
      case DiffRow::Kind::same: out += "  " + r.left + "\n"; break;
      case DiffRow::Kind::removed: out += "- " + r.left + "\n"; break;
      case DiffRow::Kind::added: out += "+ " + r.right + "\n"; break;
      case DiffRow::Kind::changed: out += "- " + r.left + "\n+ " + r.right + "\n"; break;
    }
  }
  return out + "```\n";
}

struct BlockMd {
  std::string operator()(const Heading& h) const { return "## " + h.text + "\n"; }
  std::string operator()(const Paragraph& p) const { return p.text + "\n"; }
  std::string operator()(const Table& t) const { return table_md(t); }
  std::string operator()(const Chart& c) const { return chart_md(c); }
  std::string operator()(const Strip& s) const { return strip_md(s); }
  std::string operator()(const SideBySide& d) const { return diff_md(d); }
};

}  // namespace

std::string to_markdown(const Document& doc) {
  std::string out = "# " + doc.title + "\n\n";
  if (!doc.subtitle.empty()) out += doc.subtitle + "\n\n";
  for (const Block& b : doc.blocks) out += std::visit(BlockMd{}, b) + "\n";
  return out;
}

}  // namespace kernelblaster::report
