// Where a frame's time goes, for the screenshot mode's summary and the frame-rate work: CPU time
// of the whole process (llvmpipe renders on threads of its own, so the thread's clock would miss
// the rendering), accumulated per phase over the frames of a run. The caller makes the GL work
// of a phase finish (glFinish) before the phase is closed when it wants it counted there.
#ifndef SALTATION_VIEWER_FRAME_TIMES_H_
#define SALTATION_VIEWER_FRAME_TIMES_H_

#include <cstdio>
#include <ctime>
#include <string>

namespace saltation_viewer {

enum class Phase { kPhysics, kScene, kPanels, kRender, kOverlay, kCount };

class FrameTimes {
 public:
  // closes the running phase at now and opens `next` (kCount: none)
  void Switch(Phase next) {
    const double now = ProcessCpuSeconds();
    if (current_ != Phase::kCount) seconds_[static_cast<int>(current_)] += now - since_;
    current_ = next;
    since_ = now;
  }
  double seconds(Phase p) const { return seconds_[static_cast<int>(p)]; }

  // "physics 1.2, scene 0.3, panels 2.1, render 40.0, overlay 3.2 ms of CPU per frame"
  std::string Summary(int frames) const {
    static const char* kNames[] = {"physics", "scene", "panels", "render", "overlay"};
    std::string s;
    char buf[64];
    for (int i = 0; i < static_cast<int>(Phase::kCount); i++) {
      std::snprintf(buf, sizeof(buf), "%s%s %.1f", i ? ", " : "", kNames[i],
                    1e3 * seconds_[i] / (frames > 0 ? frames : 1));
      s += buf;
    }
    return s + " ms of CPU per frame";
  }

  static double ProcessCpuSeconds() {
    timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return ts.tv_sec + 1e-9 * ts.tv_nsec;
  }

 private:
  double seconds_[static_cast<int>(Phase::kCount)] = {};
  Phase current_ = Phase::kCount;
  double since_ = 0;
};

}  // namespace saltation_viewer

#endif  // SALTATION_VIEWER_FRAME_TIMES_H_
