// SVG line plots (svg.cpp) of geolin simulate and geolin bench.
#pragma once

#include <string>
#include <vector>

namespace geolin::cli {

/// One polyline of a plot. Points with a non-finite coordinate are skipped; on a log axis,
/// values below the axis floor are drawn at the floor.
struct PlotSeries {
  std::string label;  // in the legend unless empty
  std::string color;  // an SVG colour, "#1f77b4"
  bool dashed = false;
  std::vector<double> x, y;
};

/// A self-contained SVG line plot: title, subtitle, labelled axes with ticks, legend.
struct Plot {
  std::string title, subtitle, x_label, y_label;
  bool log_x = false, log_y = false;
  double y_floor = 0.0;         // log y: the smallest value drawn (0: from the data)
  std::vector<double> x_ticks;  // explicit x ticks (empty: automatic)
  std::vector<PlotSeries> series;
  std::vector<PlotSeries> legend_only;  // legend keys without data (line styles)
};

/// The SVG document of a plot.
std::string render_svg(const Plot &plot);
/// One SVG document of several plots stacked vertically (each a full-size panel).
std::string render_svg_panels(const std::vector<Plot> &plots);

/// A qualitative colour for series k (a 10-colour palette).
std::string plot_color(int k);

}  // namespace geolin::cli
