// Self-written SVG line plots (simulate --plot, simulate --drop --plot, bench --scaling --plot):
// linear or logarithmic axes with ticks and grid, polylines (solid or dashed), title, subtitle and
// legend. No external program or library.
#include "svg.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "../urdf/xml.hpp"

namespace geolin::cli {

namespace {

// The canvas: the plot area is [kLeft, kRight] x [kTop, kBottom], the legend right of it.
constexpr double kWidth = 1010, kHeight = 540;
constexpr double kLeft = 90, kRight = 720, kTop = 72, kBottom = 468;
constexpr double kLegendX = 735;

// SVG text and attributes, escaped by the loader's one XML escaper.
std::string xml_escape(const std::string &s) {
  std::string out;
  xml::append_escaped(out, s);
  return out;
}

// One axis: the data range (log10 of it on a log axis) mapped to a pixel range.
struct Axis {
  bool log = false;
  double lo = 0.0, hi = 1.0;  // in log10 units on a log axis
  double px_lo = 0.0, px_hi = 1.0;
  double floor = 0.0;  // log axis: values below are drawn here

  // Data values are clamped to the floor, tick values are not.
  double value(double v, bool clamp = true) const {
    return log ? std::log10(clamp ? std::max(v, floor) : v) : v;
  }
  double pixel(double v, bool clamp = true) const {
    return px_lo + (value(v, clamp) - lo) / (hi - lo) * (px_hi - px_lo);
  }
  bool usable(double v) const { return std::isfinite(v) && (!log || v > 0.0 || floor > 0.0); }
};

// 1, 2 or 5 times a power of ten, at least `raw`.
double nice_step(double raw) {
  const double p = std::pow(10.0, std::floor(std::log10(raw)));
  for (double m : {1.0, 2.0, 5.0, 10.0}) {
    if (m * p >= raw * (1.0 - 1e-9)) return m * p;
  }
  return 10.0 * p;
}

std::vector<double> auto_ticks(const Axis &a) {
  std::vector<double> ticks;
  if (!a.log) {
    const double step = nice_step((a.hi - a.lo) / 6.0);
    for (double t = std::ceil(a.lo / step - 1e-9) * step; t <= a.hi + 1e-9 * step; t += step) {
      ticks.push_back(std::abs(t) < 1e-9 * step ? 0.0 : t);
    }
    return ticks;
  }
  const int first = static_cast<int>(std::ceil(a.lo - 1e-9));
  const int last = static_cast<int>(std::floor(a.hi + 1e-9));
  const int stride = std::max(1, (last - first + 1 + 7) / 8);
  for (int k = first; k <= last; k += stride) ticks.push_back(std::pow(10.0, k));
  if (ticks.size() < 2) {  // less than two decades: add 2 and 5 times the powers of ten
    ticks.clear();
    for (int k = first - 1; k <= last; ++k) {
      for (double m : {1.0, 2.0, 5.0}) {
        const double t = m * std::pow(10.0, k), l = std::log10(t);
        if (l >= a.lo - 1e-9 && l <= a.hi + 1e-9) ticks.push_back(t);
      }
    }
  }
  return ticks;
}

std::string tick_label(double v, bool log) {
  if (log && v > 0.0) {
    const double k = std::log10(v);
    if (std::abs(k - std::round(k)) < 1e-9 && std::abs(k) > 3.5) {
      return fmt::format("1e{}", static_cast<int>(std::round(k)));
    }
  }
  return fmt::format("{:g}", v);
}

// The range of the usable coordinates (x when use_x) over every series.
void data_range(const Plot &plot, bool use_x, const Axis &axis, double &lo, double &hi) {
  lo = std::numeric_limits<double>::infinity();
  hi = -lo;
  for (const auto &s : plot.series) {
    const auto &values = use_x ? s.x : s.y;
    for (double v : values) {
      if (!axis.usable(v)) continue;
      lo = std::min(lo, axis.value(v));
      hi = std::max(hi, axis.value(v));
    }
  }
  if (!(lo <= hi)) lo = 0.0, hi = 1.0;  // no data
}

Axis make_axis(const Plot &plot, bool is_x) {
  Axis a;
  a.log = is_x ? plot.log_x : plot.log_y;
  a.px_lo = is_x ? kLeft : kBottom;
  a.px_hi = is_x ? kRight : kTop;
  if (a.log && !is_x) {
    a.floor = plot.y_floor;
    if (!(a.floor > 0.0)) {  // from the data: the smallest positive value
      a.floor = std::numeric_limits<double>::infinity();
      for (const auto &s : plot.series) {
        for (double v : s.y) {
          if (v > 0.0 && std::isfinite(v)) a.floor = std::min(a.floor, v);
        }
      }
      if (!std::isfinite(a.floor)) a.floor = 1e-300;
    }
  }
  double lo, hi;
  data_range(plot, is_x, a, lo, hi);
  if (a.log && !is_x) {  // whole decades
    lo = std::floor(lo + 1e-9);
    hi = std::max(std::ceil(hi - 1e-9), lo + 1.0);
  } else if (a.log) {  // a 4% margin
    const double pad = hi > lo ? 0.04 * (hi - lo) : 0.5;
    lo -= pad;
    hi += pad;
  } else if (hi <= lo) {
    const double pad = lo == 0.0 ? 1.0 : 0.1 * std::abs(lo);
    lo -= pad;
    hi += pad;
  } else if (!is_x) {  // y: round outwards to the tick step
    const double step = nice_step((hi - lo) / 6.0);
    lo = std::floor(lo / step) * step;
    hi = std::ceil(hi / step) * step;
  }
  a.lo = lo;
  a.hi = hi;
  return a;
}

std::string line_style(const PlotSeries &s) {
  return fmt::format("fill=\"none\" stroke=\"{}\" stroke-width=\"1.6\"{}", xml_escape(s.color),
                     s.dashed ? " stroke-dasharray=\"7,4\"" : "");
}

// The document's start: the canvas of `panels` plots stacked vertically.
std::string svg_document(int panels) {
  return fmt::format(
      "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
      "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{0}\" height=\"{1}\" "
      "viewBox=\"0 0 {0} {1}\" font-family=\"Helvetica, Arial, sans-serif\">\n"
      "<rect width=\"{0}\" height=\"{1}\" fill=\"white\"/>\n",
      kWidth, kHeight * panels);
}

// A panel's start: the clip path of its plot area (named clip), the title and subtitle.
std::string svg_header(const Plot &plot, const std::string &clip) {
  std::string out = fmt::format(
      "<defs><clipPath id=\"{}\"><rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\"/>"
      "</clipPath></defs>\n",
      clip, kLeft, kTop, kRight - kLeft, kBottom - kTop);
  out += fmt::format("<text x=\"{}\" y=\"28\" font-size=\"17\" text-anchor=\"middle\">{}</text>\n",
                     (kLeft + kRight) / 2, xml_escape(plot.title));
  if (!plot.subtitle.empty()) {
    out += fmt::format(
        "<text x=\"{}\" y=\"50\" font-size=\"12\" fill=\"#555\" text-anchor=\"middle\">{}</text>\n",
        (kLeft + kRight) / 2, xml_escape(plot.subtitle));
  }
  return out;
}

// Grid lines, ticks and tick labels of both axes.
std::string svg_ticks(const Plot &plot, const Axis &ax, const Axis &ay) {
  std::string out = "<g font-size=\"12\" fill=\"#222\">\n";
  const std::vector<double> xt = plot.x_ticks.empty() ? auto_ticks(ax) : plot.x_ticks;
  for (double t : xt) {
    if (!std::isfinite(t) || (ax.log && !(t > 0.0))) continue;
    const double v = ax.value(t, false);
    if (v < ax.lo - 1e-9 || v > ax.hi + 1e-9) continue;
    const double px = ax.pixel(t, false);
    out += fmt::format(
        "<line x1=\"{0:.2f}\" y1=\"{1}\" x2=\"{0:.2f}\" y2=\"{2}\" stroke=\"#e4e4e4\"/>"
        "<line x1=\"{0:.2f}\" y1=\"{2}\" x2=\"{0:.2f}\" y2=\"{3}\" stroke=\"#222\"/>"
        "<text x=\"{0:.2f}\" y=\"{4}\" text-anchor=\"middle\">{5}</text>\n",
        px, kTop, kBottom, kBottom + 5, kBottom + 19, xml_escape(tick_label(t, ax.log)));
  }
  for (double t : auto_ticks(ay)) {
    const double py = ay.pixel(t, false);
    out += fmt::format(
        "<line x1=\"{0}\" y1=\"{2:.2f}\" x2=\"{1}\" y2=\"{2:.2f}\" stroke=\"#e4e4e4\"/>"
        "<line x1=\"{3}\" y1=\"{2:.2f}\" x2=\"{0}\" y2=\"{2:.2f}\" stroke=\"#222\"/>"
        "<text x=\"{4}\" y=\"{5:.2f}\" text-anchor=\"end\">{6}</text>\n",
        kLeft, kRight, py, kLeft - 5, kLeft - 8, py + 4, xml_escape(tick_label(t, ay.log)));
  }
  return out + "</g>\n";
}

// The frame of the plot area and the axis labels.
std::string svg_frame(const Plot &plot) {
  std::string out = fmt::format(
      "<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"none\" stroke=\"#222\"/>\n", kLeft,
      kTop, kRight - kLeft, kBottom - kTop);
  out += fmt::format("<text x=\"{}\" y=\"{}\" font-size=\"14\" text-anchor=\"middle\">{}</text>\n",
                     (kLeft + kRight) / 2, kBottom + 44, xml_escape(plot.x_label));
  out += fmt::format(
      "<text transform=\"translate({},{}) rotate(-90)\" font-size=\"14\" "
      "text-anchor=\"middle\">{}</text>\n",
      24, (kTop + kBottom) / 2, xml_escape(plot.y_label));
  return out;
}

// The data: one polyline per series, clipped to the plot area.
std::string svg_series(const Plot &plot, const Axis &ax, const Axis &ay, const std::string &clip) {
  std::string out = fmt::format("<g clip-path=\"url(#{})\" stroke-linejoin=\"round\">\n", clip);
  for (const auto &s : plot.series) {
    std::string points;
    for (std::size_t k = 0; k < s.x.size() && k < s.y.size(); ++k) {
      if (!ax.usable(s.x[k]) || !ay.usable(s.y[k])) continue;
      points += fmt::format("{}{:.2f},{:.2f}", points.empty() ? "" : " ", ax.pixel(s.x[k]),
                            ay.pixel(s.y[k]));
    }
    if (points.empty()) continue;
    out += fmt::format("<polyline {} points=\"{}\"/>\n", line_style(s), points);
  }
  return out + "</g>\n";
}

// The legend: labelled series, then the legend-only keys; nothing if there are none.
std::string svg_legend(const Plot &plot) {
  std::vector<const PlotSeries *> keys;
  for (const auto &s : plot.series) {
    if (!s.label.empty()) keys.push_back(&s);
  }
  for (const auto &s : plot.legend_only) keys.push_back(&s);
  if (keys.empty()) return "";
  const double h = 20.0 * static_cast<double>(keys.size()) + 12.0;
  std::string out = fmt::format(
      "<g font-size=\"12\">\n<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"white\" "
      "stroke=\"#999\"/>\n",
      kLegendX, kTop, kWidth - kLegendX - 10, h);
  double y = kTop + 20.0;
  for (const PlotSeries *s : keys) {
    out += fmt::format(
        "<line x1=\"{}\" y1=\"{:.1f}\" x2=\"{}\" y2=\"{:.1f}\" {}/>"
        "<text x=\"{}\" y=\"{:.1f}\">{}</text>\n",
        kLegendX + 10, y - 4, kLegendX + 42, y - 4, line_style(*s), kLegendX + 50, y,
        xml_escape(s->label));
    y += 20.0;
  }
  return out + "</g>\n";
}

}  // namespace

std::string plot_color(int k) {
  static const char *const kPalette[10] = {"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd",
                                           "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf"};
  return kPalette[((k % 10) + 10) % 10];
}

namespace {

// One plot's content in the canvas' coordinates, its clip path named clip.
std::string svg_panel(const Plot &plot, const std::string &clip) {
  const Axis ax = make_axis(plot, true), ay = make_axis(plot, false);
  return svg_header(plot, clip) + svg_ticks(plot, ax, ay) + svg_frame(plot) +
         svg_series(plot, ax, ay, clip) + svg_legend(plot);
}

}  // namespace

std::string render_svg(const Plot &plot) {
  return svg_document(1) + svg_panel(plot, "area") + "</svg>\n";
}

std::string render_svg_panels(const std::vector<Plot> &plots) {
  std::string out = svg_document(static_cast<int>(plots.size()));
  for (std::size_t k = 0; k < plots.size(); ++k) {
    out += fmt::format("<g transform=\"translate(0,{})\">\n", kHeight * static_cast<double>(k));
    out += svg_panel(plots[k], fmt::format("area{}", k)) + "</g>\n";
  }
  return out + "</svg>\n";
}

}  // namespace geolin::cli
