#include "plots.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace saltation_viewer {
namespace {

constexpr ImU32 kFrame = IM_COL32(60, 60, 70, 255);
constexpr ImU32 kBackground = IM_COL32(20, 20, 28, 230);
constexpr ImU32 kText = IM_COL32(200, 200, 210, 255);
constexpr ImU32 kThreshold = IM_COL32(255, 190, 0, 255);

double Transform(double y, bool log_y) {
  if (!log_y) return y;
  return std::log10(std::max(y, 1e-300));
}

// diverging colour of v ∈ [−1, 1]
ImU32 Diverging(double v) {
  v = std::clamp(v, -1.0, 1.0);
  const float a = static_cast<float>(std::fabs(v));
  const float w = 1.0f - a;  // towards white at zero
  if (v >= 0) return ImGui::ColorConvertFloat4ToU32(ImVec4(0.85f + 0.15f * w, 0.15f + 0.8f * w, 0.1f + 0.85f * w, 1));
  return ImGui::ColorConvertFloat4ToU32(ImVec4(0.1f + 0.85f * w, 0.3f + 0.65f * w, 0.9f + 0.1f * w, 1));
}

}  // namespace

std::string FormatNumber(double x) {
  char buf[32];
  if (std::isnan(x)) return "-";
  if (std::isinf(x)) return x > 0 ? "inf" : "-inf";
  if (x != 0 && (std::fabs(x) < 1e-2 || std::fabs(x) >= 1e4)) {
    std::snprintf(buf, sizeof(buf), "%.2e", x);
  } else {
    std::snprintf(buf, sizeof(buf), "%.3g", x);
  }
  return buf;
}

int TimePlot(const char* id, const TimePlotSpec& spec, const std::vector<PlotPoint>& points,
             const std::vector<PlotPoint>& line) {
  ImGui::PushID(id);
  ImGui::TextUnformatted(spec.title);
  const float width = std::max(50.0f, ImGui::GetContentRegionAvail().x);
  const ImVec2 p0 = ImGui::GetCursorScreenPos();
  const ImVec2 size(width, spec.height);
  ImGui::InvisibleButton("plot", size);
  const bool clicked = ImGui::IsItemClicked();
  const bool hovered = ImGui::IsItemHovered();
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const ImVec2 p1(p0.x + size.x, p0.y + size.y);
  dl->AddRectFilled(p0, p1, kBackground);
  dl->AddRect(p0, p1, kFrame);

  // y range from the data (transformed), widened to include the threshold
  double lo = INFINITY, hi = -INFINITY;
  auto extend = [&](double y) {
    if (!std::isfinite(y) || (spec.log_y && y <= 0)) return;
    const double v = Transform(y, spec.log_y);
    lo = std::min(lo, v);
    hi = std::max(hi, v);
  };
  for (const PlotPoint& p : points) extend(p.y);
  for (const PlotPoint& p : line) extend(p.y);
  extend(spec.threshold);
  if (std::isfinite(spec.y_min)) lo = Transform(spec.y_min, spec.log_y);
  if (std::isfinite(spec.y_max)) hi = Transform(spec.y_max, spec.log_y);
  if (!(lo < hi)) {
    const double c = std::isfinite(lo) ? lo : 0;
    lo = c - (spec.log_y ? 1 : 0.5);
    hi = c + (spec.log_y ? 1 : 0.5);
  }
  const double pad = 0.08 * (hi - lo);
  if (!std::isfinite(spec.y_min)) lo -= pad;
  if (!std::isfinite(spec.y_max)) hi += pad;
  const double span_t = std::max(spec.t_max - spec.t_min, 1e-9);
  auto X = [&](double t) { return p0.x + static_cast<float>((t - spec.t_min) / span_t) * size.x; };
  auto Y = [&](double y) {
    const double v = (Transform(y, spec.log_y) - lo) / (hi - lo);
    return p1.y - static_cast<float>(std::clamp(v, 0.0, 1.0)) * size.y;
  };

  dl->PushClipRect(p0, p1, true);
  // threshold
  if (std::isfinite(spec.threshold)) {
    const float y = Y(spec.threshold);
    for (float x = p0.x; x < p1.x; x += 8) dl->AddLine(ImVec2(x, y), ImVec2(std::min(x + 4, p1.x), y), kThreshold);
    dl->AddText(ImVec2(p0.x + 4, y - ImGui::GetTextLineHeight()), kThreshold, spec.threshold_label);
  }
  // continuous series
  for (size_t i = 1; i < line.size(); i++) {
    const PlotPoint& a = line[i - 1];
    const PlotPoint& b = line[i];
    if (!std::isfinite(a.y) || !std::isfinite(b.y) || b.t < a.t) continue;
    dl->AddLine(ImVec2(X(a.t), Y(a.y)), ImVec2(X(b.t), Y(b.y)), b.color, 1.5f);
  }
  // events: a faint vertical marker, a stem and a dot
  int nearest = -1;
  float nearest_d = 6;
  const ImVec2 mouse = ImGui::GetIO().MousePos;
  for (size_t i = 0; i < points.size(); i++) {
    const PlotPoint& p = points[i];
    if (p.t < spec.t_min || p.t > spec.t_max) continue;
    const float x = X(p.t);
    const ImU32 faint = (p.color & ~IM_COL32_A_MASK) | IM_COL32(0, 0, 0, p.selected ? 200 : 60);
    dl->AddLine(ImVec2(x, p0.y), ImVec2(x, p1.y), faint, p.selected ? 2.0f : 1.0f);
    if (!std::isfinite(p.y) || (spec.log_y && p.y <= 0)) continue;
    const float y = Y(p.y);
    dl->AddLine(ImVec2(x, p1.y), ImVec2(x, y), p.color, 1.5f);
    dl->AddCircleFilled(ImVec2(x, y), p.selected ? 5.0f : 3.0f, p.color);
    if (p.selected) dl->AddCircle(ImVec2(x, y), 7.0f, IM_COL32_WHITE);
    const float d = std::hypot(mouse.x - x, mouse.y - y);
    if (d < nearest_d) {
      nearest_d = d;
      nearest = static_cast<int>(i);
    }
  }
  dl->PopClipRect();

  // axis labels
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%s", FormatNumber(spec.log_y ? std::pow(10, hi) : hi).c_str());
  dl->AddText(ImVec2(p1.x - ImGui::CalcTextSize(buf).x - 3, p0.y + 1), kText, buf);
  std::snprintf(buf, sizeof(buf), "%s", FormatNumber(spec.log_y ? std::pow(10, lo) : lo).c_str());
  dl->AddText(ImVec2(p1.x - ImGui::CalcTextSize(buf).x - 3, p1.y - ImGui::GetTextLineHeight() - 1), kText, buf);
  std::snprintf(buf, sizeof(buf), "t %.2f .. %.2f s", spec.t_min, spec.t_max);
  ImGui::TextDisabled("%s%s", buf, spec.log_y ? "   (log scale)" : "");

  if (hovered && nearest >= 0) {
    ImGui::SetTooltip("t = %.4f s\n%s", points[nearest].t, FormatNumber(points[nearest].y).c_str());
  }
  ImGui::PopID();
  return (clicked && nearest >= 0) ? nearest : -1;
}

std::string JointOfLabel(const std::string& label) {
  // a free or ball joint's component is the last ".x", ".y", ".z", ".rx", ".ry" or ".rz"
  const size_t dot = label.find_last_of('.');
  if (dot == std::string::npos) return label;
  const std::string tail = label.substr(dot + 1);
  static const char* kComponents[] = {"x", "y", "z", "rx", "ry", "rz"};
  for (const char* c : kComponents) {
    if (tail == c) return label.substr(0, dot);
  }
  return label;
}

ImVec2 HeatMap(const char* id, const Eigen::MatrixXd& A, float max_size,
               const std::vector<int>& blocks, const std::vector<std::string>& labels,
               float label_width) {
  ImGui::PushID(id);
  const int rows = static_cast<int>(A.rows()), cols = static_cast<int>(A.cols());
  if (rows == 0 || cols == 0) {
    ImGui::TextDisabled("(empty)");
    ImGui::PopID();
    return ImVec2(0, 0);
  }
  const bool labelled = static_cast<int>(labels.size()) == rows && rows == cols;
  if (!labelled) label_width = 0;
  const float line = ImGui::GetTextLineHeight();
  const float top = labelled ? line + 2 : 0;  // the block names above the map
  const float cell = std::clamp(max_size / std::max(rows, cols), 2.0f, 18.0f);
  const ImVec2 origin = ImGui::GetCursorScreenPos();
  const ImVec2 p0(origin.x + label_width, origin.y + top);
  const ImVec2 size(cell * cols, cell * rows);
  const ImVec2 total(label_width + size.x, top + size.y);
  ImGui::InvisibleButton("map", total);
  const bool item_hovered = ImGui::IsItemHovered();
  ImDrawList* dl = ImGui::GetWindowDrawList();

  // signed log scale relative to the largest entry, floor 1e-4 of it
  const double amax = A.cwiseAbs().maxCoeff();
  const double floor = std::max(amax * 1e-4, 1e-300);
  const double denom = std::log10(1 + amax / floor);
  for (int i = 0; i < rows; i++) {
    for (int j = 0; j < cols; j++) {
      const double v = A(i, j);
      const double c = (amax > 0 && std::isfinite(v))
                           ? std::copysign(std::log10(1 + std::fabs(v) / floor) / denom, v)
                           : 0;
      const ImVec2 a(p0.x + j * cell, p0.y + i * cell);
      dl->AddRectFilled(a, ImVec2(a.x + cell, a.y + cell),
                        std::isfinite(v) ? Diverging(c) : IM_COL32(255, 0, 255, 255));
    }
  }
  for (int b : blocks) {
    if (b <= 0 || b >= std::max(rows, cols)) continue;
    const float o = b * cell;
    dl->AddLine(ImVec2(p0.x + o, p0.y), ImVec2(p0.x + o, p0.y + size.y), IM_COL32(40, 40, 40, 255));
    dl->AddLine(ImVec2(p0.x, p0.y + o), ImVec2(p0.x + size.x, p0.y + o), IM_COL32(40, 40, 40, 255));
  }
  dl->AddRect(p0, ImVec2(p0.x + size.x, p0.y + size.y), kFrame);

  int hover_i = -1, hover_j = -1;
  if (item_hovered) {
    const ImVec2 m = ImGui::GetIO().MousePos;
    if (m.x >= p0.x && m.y >= p0.y) {
      hover_j = static_cast<int>((m.x - p0.x) / cell);
      hover_i = static_cast<int>((m.y - p0.y) / cell);
      if (hover_i >= rows || hover_j >= cols) hover_i = hover_j = -1;
    }
  }

  if (labelled) {
    // left axis: a joint's name at its first row, when it does not overlap the previous label
    dl->PushClipRect(origin, ImVec2(p0.x - 3, p0.y + size.y + line), true);
    float next_free = -1e9f;
    for (int i = 0; i < rows; i++) {
      const std::string joint = JointOfLabel(labels[i]);
      if (i > 0 && JointOfLabel(labels[i - 1]) == joint) continue;
      const float y = p0.y + i * cell + 0.5f * cell - 0.5f * line;
      if (y < next_free) continue;
      const float w = ImGui::CalcTextSize(joint.c_str()).x;
      dl->AddText(ImVec2(std::max(origin.x, p0.x - 4 - w), y), kText, joint.c_str());
      dl->AddLine(ImVec2(p0.x - 3, p0.y + i * cell + 0.5f * cell), ImVec2(p0.x, p0.y + i * cell + 0.5f * cell), kText);
      next_free = y + line;
    }
    dl->PopClipRect();
    // top axis: the block names (dq, dv, act), or the hovered column's label
    if (hover_j >= 0) {
      const char* text = labels[hover_j].c_str();
      const float w = ImGui::CalcTextSize(text).x;
      const float x = std::clamp(p0.x + (hover_j + 0.5f) * cell - 0.5f * w, origin.x, p0.x + size.x - w);
      dl->AddText(ImVec2(x, origin.y), IM_COL32(255, 255, 255, 255), text);
    } else {
      int start = 0;
      std::vector<int> bounds;
      for (int b : blocks) {
        if (b > 0 && b < cols) bounds.push_back(b);
      }
      bounds.push_back(cols);
      for (int end : bounds) {
        if (end <= start) continue;
        const std::string& first = labels[start];
        const std::string name = first.rfind("q:", 0) == 0   ? "dq"
                                 : first.rfind("v:", 0) == 0 ? "dv"
                                                             : "act";
        const float w = ImGui::CalcTextSize(name.c_str()).x;
        dl->AddText(ImVec2(p0.x + 0.5f * (start + end) * cell - 0.5f * w, origin.y), kText, name.c_str());
        start = end;
      }
    }
  }

  if (hover_i >= 0) {
    // outline the hovered row and column
    const ImU32 white = IM_COL32(255, 255, 255, 160);
    dl->AddRect(ImVec2(p0.x, p0.y + hover_i * cell), ImVec2(p0.x + size.x, p0.y + (hover_i + 1) * cell), white);
    dl->AddRect(ImVec2(p0.x + hover_j * cell, p0.y), ImVec2(p0.x + (hover_j + 1) * cell, p0.y + size.y), white);
    if (labelled) {
      ImGui::SetTooltip("row %s  <-  column %s\n= %.6g   (%d, %d)", labels[hover_i].c_str(),
                        labels[hover_j].c_str(), A(hover_i, hover_j), hover_i, hover_j);
    } else {
      ImGui::SetTooltip("(%d, %d) = %.6g", hover_i, hover_j, A(hover_i, hover_j));
    }
  }
  ImGui::PopID();
  return total;
}

}  // namespace saltation_viewer
