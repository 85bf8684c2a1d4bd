// What a report says, before it is HTML or Markdown: a title and a list of
// blocks (headings, paragraphs, tables, charts, a strip of coloured cells,
// a side-by-side diff). Every report kind builds one Document; the two
// writers (html_writer.h, markdown_writer.h) render the same content, so the
// page and the Markdown never disagree.
#pragma once

#include <string>
#include <variant>
#include <vector>

namespace kernelblaster::report {

struct Heading {
  std::string text;
};

struct Paragraph {
  std::string text;
};

// A cell's tone colours it in HTML: "", "good", "bad", "neutral".
struct Cell {
  std::string text;
  std::string tone;
};

struct Table {
  std::vector<std::string> headers;
  std::vector<std::vector<Cell>> rows;
};

struct Point {
  double x = 0;
  double y = 0;
};

struct Series {
  std::string name;
  std::vector<Point> points;
  bool steps = false;        // drawn as a staircase (a best-so-far curve)
  bool points_only = false;  // dots, no line (every candidate's value)
};

// A line chart; `id` names it in the page (data-chart) for tests and links.
struct Chart {
  std::string id;
  std::string title;
  std::string x_label;
  std::string y_label;
  std::vector<Series> series;
  double y_floor = 0;  // the y axis starts at min(y_floor, the lowest point)
  // Both axes logarithmic (a roofline): ticks at powers of ten, points at
  // or below zero left out, y_floor unused.
  bool log_axes = false;
};

// One coloured cell per item, in order (a tuning run's candidates by status).
struct Strip {
  std::string id;
  std::string title;
  std::vector<Cell> cells;  // text: the cell's tooltip; tone: its colour
  // Each cell shows its text up to the first ':' (a source's name); for
  // short strips, where a colour alone would not say which is which.
  bool labelled = false;
};

// Two texts side by side, line against line (the kept kernel against its
// original). Lines are paired by a longest-common-subsequence diff.
struct SideBySide {
  std::string title;
  std::string left_name, right_name;
  std::string left, right;
};

using Block = std::variant<Heading, Paragraph, Table, Chart, Strip, SideBySide>;

struct Document {
  std::string title;
  std::string subtitle;  // what it is of: a path, a GPU, a date
  std::vector<Block> blocks;

  template <typename B>
  void add(B block) {
    blocks.emplace_back(std::move(block));
  }
};

}  // namespace kernelblaster::report
