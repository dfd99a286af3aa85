// Small ImDrawList plots: a time plot with event stems, markers and a threshold line, and a
// matrix heat map. Drawn directly so log scales, colours per point and clicks are under control.
#ifndef SALTATION_VIEWER_PLOTS_H_
#define SALTATION_VIEWER_PLOTS_H_

#include <imgui.h>

#include <Eigen/Dense>
#include <string>
#include <vector>

namespace saltation_viewer {

struct PlotPoint {
  double t = 0, y = 0;
  ImU32 color = IM_COL32_WHITE;
  bool selected = false;
};

struct TimePlotSpec {
  const char* title = "";
  double t_min = 0, t_max = 1;
  bool log_y = false;
  double y_min = NAN, y_max = NAN;  // NaN: from the data
  double threshold = NAN;           // horizontal dashed line (NaN: none)
  const char* threshold_label = "";
  float height = 110;
};

// Draws points as stems from the bottom of the plot (events), an optional polyline (continuous
// series), and a vertical line at every point's time. Returns the index of a point clicked
// (nearest within a few pixels), −1 otherwise.
int TimePlot(const char* id, const TimePlotSpec& spec, const std::vector<PlotPoint>& points,
             const std::vector<PlotPoint>& line = {});

// A matrix as coloured cells (blue negative, white zero, red positive; signed-log scale so that
// entries of very different size stay visible), thin lines between the blocks at `blocks`
// (e.g. nv, 2nv), a tooltip with (i, j) and the value. Returns the drawn size.
ImVec2 HeatMap(const char* id, const Eigen::MatrixXd& A, float max_size,
               const std::vector<int>& blocks);

// "1.2e-03"-style label of a number
std::string FormatNumber(double x);

}  // namespace saltation_viewer

#endif  // SALTATION_VIEWER_PLOTS_H_
