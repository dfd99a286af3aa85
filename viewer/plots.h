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

// A square matrix of the tangent space as coloured cells (blue negative, white zero, red positive;
// signed-log scale so that entries of very different size stay visible), thin lines between the
// blocks at `blocks` (e.g. nv, 2nv). `labels` (the library's StateLabels, "q:<joint>[.c]",
// "v:<joint>[.c]", "act:<actuator>"; empty: indices only) name the rows on the left axis (one
// label per joint, those that fit), the blocks on the top axis, and on hover the row and column
// (tooltip "row <- column = value", the hovered row and column outlined). `label_width` px are
// kept left of the map for the row labels. Returns the drawn size (labels included).
ImVec2 HeatMap(const char* id, const Eigen::MatrixXd& A, float max_size,
               const std::vector<int>& blocks, const std::vector<std::string>& labels = {},
               float label_width = 0);

// The joint part of a state label: "q:hip.rx" -> "q:hip", "v:knee" -> "v:knee".
std::string JointOfLabel(const std::string& label);

// "1.2e-03"-style label of a number
std::string FormatNumber(double x);

}  // namespace saltation_viewer

#endif  // SALTATION_VIEWER_PLOTS_H_
