#include "report/svg_chart.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>

#include "report/html_writer.h"
#include "common/text.h"

namespace kernelblaster::report {
namespace {

constexpr double kWidth = 720, kHeight = 300;
constexpr double kLeft = 64, kRight = 20, kTop = 16, kBottom = 46;

std::string num(double v) { return general_number(v, 6); }

std::string label(double v) {
  char buf[32];
  if (std::fabs(v) >= 1000 || v == std::floor(v)) std::snprintf(buf, sizeof buf, "%.0f", v);
  else std::snprintf(buf, sizeof buf, "%.2f", v);
  return buf;
}

struct Range {
  double lo = std::numeric_limits<double>::infinity();
  double hi = -std::numeric_limits<double>::infinity();
  void add(double v) {
    if (!std::isfinite(v)) return;
    lo = std::min(lo, v);
    hi = std::max(hi, v);
  }
  void settle() {
    if (!std::isfinite(lo)) lo = 0, hi = 1;
    if (hi - lo < 1e-12) hi = lo + (lo == 0 ? 1 : std::fabs(lo) * 0.1);
  }
};

// The plotting frame; with `log` the ranges are of log10 of the values.
struct Frame {
  Range x, y;
  bool log = false;
  double at(double v) const { return log ? std::log10(v) : v; }
  bool shown(const Point& p) const {
    return std::isfinite(p.x) && std::isfinite(p.y) && (!log || (p.x > 0 && p.y > 0));
  }
  double px(double v) const { return kLeft + (at(v) - x.lo) / (x.hi - x.lo) * (kWidth - kLeft - kRight); }
  double py(double v) const { return kHeight - kBottom - (at(v) - y.lo) / (y.hi - y.lo) * (kHeight - kTop - kBottom); }
};

Frame frame_of(const Chart& chart) {
  Frame f;
  f.log = chart.log_axes;
  for (const Series& s : chart.series)
    for (const Point& p : s.points)
      if (f.shown(p)) f.x.add(f.at(p.x)), f.y.add(f.at(p.y));
  if (f.log) {  // whole decades, so every tick is a power of ten
    f.x.settle();
    f.y.settle();
    f.x.lo = std::floor(f.x.lo), f.x.hi = std::max(f.x.lo + 1, std::ceil(f.x.hi));
    f.y.lo = std::floor(f.y.lo), f.y.hi = std::max(f.y.lo + 1, std::ceil(f.y.hi));
    return f;
  }
  f.y.add(chart.y_floor);
  f.x.settle();
  f.y.settle();
  f.y.hi += (f.y.hi - f.y.lo) * 0.05;
  return f;
}

// The tick values of one axis: round values, or every power of ten.
std::vector<double> ticks_of(const Range& r, bool log, int count) {
  if (!log) return nice_ticks(r.lo, r.hi, count);
  std::vector<double> out;
  for (double k = r.lo; k <= r.hi + 1e-9; k += 1) out.push_back(std::pow(10.0, k));
  return out;
}

std::string axes(const Chart& chart, const Frame& f) {
  std::string out;
  const double x0 = kLeft, x1 = kWidth - kRight, y0 = kHeight - kBottom, y1 = kTop;
  out += "<line class=\"axis\" x1=\"" + num(x0) + "\" y1=\"" + num(y0) + "\" x2=\"" + num(x1) + "\" y2=\"" + num(y0) + "\"/>";
  out += "<line class=\"axis\" x1=\"" + num(x0) + "\" y1=\"" + num(y0) + "\" x2=\"" + num(x0) + "\" y2=\"" + num(y1) + "\"/>";
  for (double t : ticks_of(f.x, f.log, 6)) {
    out += "<line class=\"grid\" x1=\"" + num(f.px(t)) + "\" y1=\"" + num(y0) + "\" x2=\"" + num(f.px(t)) + "\" y2=\"" +
           num(y0 + 4) + "\"/>";
    out += "<text class=\"tick\" x=\"" + num(f.px(t)) + "\" y=\"" + num(y0 + 16) + "\" text-anchor=\"middle\">" +
           (f.log ? num(t) : label(t)) + "</text>";
  }
  for (double t : ticks_of(f.y, f.log, 5)) {
    out += "<line class=\"grid\" x1=\"" + num(x0) + "\" y1=\"" + num(f.py(t)) + "\" x2=\"" + num(x1) + "\" y2=\"" +
           num(f.py(t)) + "\"/>";
    out += "<text class=\"tick\" x=\"" + num(x0 - 6) + "\" y=\"" + num(f.py(t) + 4) + "\" text-anchor=\"end\">" +
           (f.log ? num(t) : label(t)) + "</text>";
  }
  out += "<text class=\"axis-label\" x=\"" + num((x0 + x1) / 2) + "\" y=\"" + num(kHeight - 8) +
         "\" text-anchor=\"middle\">" + html_escape(chart.x_label) + "</text>";
  out += "<text class=\"axis-label\" transform=\"rotate(-90)\" x=\"" + num(-(y0 + y1) / 2) +
         "\" y=\"14\" text-anchor=\"middle\">" + html_escape(chart.y_label) + "</text>";
  return out;
}

std::string series_svg(const Series& s, int index, const Frame& f) {
  std::string path;
  const Point* prev = nullptr;
  for (const Point& p : s.points) {
    if (!f.shown(p)) continue;
    if (!prev) path += "M" + num(f.px(p.x)) + "," + num(f.py(p.y));
    else if (s.steps) path += " H" + num(f.px(p.x)) + " V" + num(f.py(p.y));
    else path += " L" + num(f.px(p.x)) + "," + num(f.py(p.y));
    prev = &p;
  }
  std::string cls = "series s" + std::to_string(index % 4);
  std::string out = "<g class=\"" + cls + "\" data-series=\"" + html_escape(s.name) + "\">";
  if (!path.empty() && !s.points_only) out += "<path d=\"" + path + "\"/>";
  for (const Point& p : s.points) {
    if (!f.shown(p)) continue;
    out += "<circle r=\"3\" cx=\"" + num(f.px(p.x)) + "\" cy=\"" + num(f.py(p.y)) + "\" data-x=\"" + num(p.x) +
           "\" data-y=\"" + num(p.y) + "\"><title>" + html_escape(s.name) + ": " + label(p.x) + ", " + num(p.y) +
           "</title></circle>";
  }
  return out + "</g>";
}

}  // namespace

std::vector<double> nice_ticks(double lo, double hi, int count) {
  std::vector<double> ticks;
  if (!(hi > lo) || count < 2) return {lo};
  double raw = (hi - lo) / (count - 1);
  double mag = std::pow(10.0, std::floor(std::log10(raw)));
  double step = mag;
  for (double m : {1.0, 2.0, 2.5, 5.0, 10.0})
    if (raw <= m * mag) {
      step = m * mag;
      break;
    }
  for (double k = std::ceil(lo / step - 1e-9); k * step <= hi + step * 1e-9; k += 1) ticks.push_back(k == 0 ? 0 : k * step);
  return ticks;
}

std::string svg_chart(const Chart& chart) {
  std::size_t points = 0;
  for (const Series& s : chart.series) points += s.points.size();
  const Frame f = frame_of(chart);
  std::string out = "<figure class=\"chart\"><figcaption>" + html_escape(chart.title) + "</figcaption>";
  out += "<svg xmlns=\"http://www.w3.org/2000/svg\" role=\"img\" viewBox=\"0 0 " + num(kWidth) + " " + num(kHeight) +
         "\" width=\"" + num(kWidth) + "\" height=\"" + num(kHeight) + "\" data-chart=\"" + html_escape(chart.id) +
         "\" data-points=\"" + std::to_string(points) + "\" aria-label=\"" + html_escape(chart.title) + "\">";
  out += axes(chart, f);
  for (std::size_t i = 0; i < chart.series.size(); ++i) out += series_svg(chart.series[i], static_cast<int>(i), f);
  out += "</svg>";
  if (chart.series.size() > 1) {
    out += "<div class=\"legend\">";
    for (std::size_t i = 0; i < chart.series.size(); ++i)
      out += "<span class=\"key s" + std::to_string(i % 4) + "\">" + html_escape(chart.series[i].name) + "</span>";
    out += "</div>";
  }
  return out + "</figure>";
}

}  // namespace kernelblaster::report
