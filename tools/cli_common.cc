#include "cli_common.h"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace saltation::cli {

double ParseNumber(const std::string& option, const std::string& text) {
  char* end = nullptr;
  const double x = std::strtod(text.c_str(), &end);
  if (text.empty() || *end != '\0' || !std::isfinite(x)) {
    throw UsageError("option " + option + " needs a finite number, got '" + text + "'");
  }
  return x;
}

void CheckNotTheModel(const std::string& option, const std::string& path, const std::string& model_path) {
  struct stat out, model;
  if (path.empty() || stat(path.c_str(), &out) != 0 || stat(model_path.c_str(), &model) != 0) return;
  if (out.st_dev == model.st_dev && out.st_ino == model.st_ino) {
    throw UsageError(option + " '" + path + "' is the model file: writing it would destroy the model");
  }
}

bool ArgumentCursor::Next() {
  if (next_ >= args_.size()) return false;
  arg_ = args_[next_++];
  has_inline_ = false;
  inline_value_.clear();
  const size_t eq = arg_.find('=');
  if (arg_.rfind("--", 0) == 0 && eq != std::string::npos) {
    inline_value_ = arg_.substr(eq + 1);
    arg_.resize(eq);
    has_inline_ = true;
  }
  return true;
}

std::string ArgumentCursor::Value() {
  if (has_inline_) {
    has_inline_ = false;
    return inline_value_;
  }
  if (next_ >= args_.size()) throw UsageError("option " + arg() + " needs a value");
  return args_[next_++];
}

void ArgumentCursor::Flag() const {
  if (has_inline_) throw UsageError("option " + arg() + " takes no value, got '" + arg() + "=" + inline_value_ + "'");
}

void TakeModelArgument(const ArgumentCursor& cursor, std::string& model_path) {
  if (cursor.IsOption()) throw UsageError("unknown option '" + cursor.arg() + "'");
  if (!model_path.empty()) throw UsageError("too many arguments: '" + cursor.arg() + "' (the model is '" + model_path + "')");
  model_path = cursor.arg();
}

namespace {

std::string KeyName(const mjModel* m, int id) {
  const char* name = mj_id2name(m, mjOBJ_KEY, id);
  return name && *name ? std::string("'") + name + "'" : std::to_string(id);
}

}  // namespace

Start ResolveStart(const mjModel* m, const std::string& requested) {
  if (requested == "none") return {"", "qpos0 (--keyframe none)"};
  if (!requested.empty()) {
    const int id = FindKeyframe(m, requested);
    if (id < 0) {
      if (m->nkey == 0) throw ConfigError("model has no keyframe '" + requested + "': it has no keyframes (leave --keyframe out for qpos0)");
      std::string names;
      for (int k = 0; k < m->nkey; k++) names += (k ? ", " : "") + KeyName(m, k);
      throw ConfigError("model has no keyframe '" + requested + "'; its keyframes: " + names + " (or an index 0–" +
                       std::to_string(m->nkey - 1) + ", or none for qpos0)");
    }
    return {requested, "keyframe " + KeyName(m, id)};
  }
  if (m->nkey == 0) return {"", "qpos0 (the model has no keyframe)"};
  const char* name = mj_id2name(m, mjOBJ_KEY, 0);
  // a name finds the keyframe before an index does: pass the index only for an unnamed one
  return {name && *name ? name : "0", "keyframe " + KeyName(m, 0) + " (the model's first; --keyframe none for qpos0)"};
}

Controls ResolveControls(const mjModel* m, const Start& start, double start_time, const std::string& ctrl) {
  Controls out;
  out.start = InitialControl(m, start.key);
  if (ctrl == "hold") {
    out.description = m->nu == 0 ? "none (the model has no actuators)"
                                 : std::string(start.key.empty() ? "0 (no keyframe)" : "the keyframe's ctrl") + ", held";
    return out;
  }
  if (ctrl == "zero") {
    out.start.setZero();
    out.description = "0, held (--ctrl zero)";
    return out;
  }
  const ControlTable table = ControlTable::Read(m, ctrl, out.start);
  table.Evaluate(start_time, out.start.data());
  out.law = table.Law();
  char text[256];
  std::snprintf(text, sizeof(text), "table %s: %zu of %d actuators over %d rows, t = %g…%g s (the others hold %s)",
                ctrl.c_str(), table.actuators().size(), static_cast<int>(m->nu), table.rows(), table.first_time(),
                table.last_time(), start.key.empty() ? "0" : "the keyframe's");
  out.description = text;
  return out;
}

Progress::Progress(const std::string& label, bool forced, bool quiet) : label_(label) {
  terminal_ = isatty(STDERR_FILENO);
  enabled_ = !quiet && (forced || terminal_);
}

void Progress::Update(double fraction, const std::string& note) {
  if (!enabled_) return;
  const int percent = static_cast<int>(std::clamp(fraction, 0.0, 1.0) * 100);
  if (terminal_) {
    const auto now = std::chrono::steady_clock::now();
    if (shown_ && now - last_ < std::chrono::milliseconds(200)) return;
    last_ = now;
    std::fprintf(stderr, "\r%s: %3d%% %s  ", label_.c_str(), percent, note.c_str());
  } else {
    if (percent / 10 == last_tenth_) return;
    last_tenth_ = percent / 10;
    std::fprintf(stderr, "%s: %3d%% %s\n", label_.c_str(), percent, note.c_str());
  }
  std::fflush(stderr);
  shown_ = true;
}

void Progress::Status(const std::string& note) {
  if (!enabled_) return;
  std::fprintf(stderr, terminal_ ? "\r%s: %s  " : "%s: %s\n", label_.c_str(), note.c_str());
  std::fflush(stderr);
  shown_ = true;
}

void Progress::Done() {
  if (enabled_ && terminal_ && shown_) std::fprintf(stderr, "\r\033[K");
  shown_ = false;
}

}  // namespace saltation::cli
