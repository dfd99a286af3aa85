#include "events_instance.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <algorithm>
#include <cstring>

#include "saltation/errors.h"
#include "saltation/event_json.h"
#include "saltation/event_log_header.h"

namespace saltation {
namespace {

constexpr size_t kMaxMarkers = 256;

// log10 of scale · ‖matrix‖_F with scale = exp(log_scale); 0 for an empty matrix
double Log10Norm(const Eigen::MatrixXd& matrix, double log_scale) {
  if (matrix.size() == 0) return 0;
  return std::log10(matrix.norm()) + log_scale / std::log(10.0);
}

// ‖Φ_r − Φ_c‖_F / ‖Φ_c‖_F of two scaled products; 0 unless both are there
double RelativeDifference(const Hook& hook) {
  const Eigen::MatrixXd& r = hook.phi_rigid();
  const Eigen::MatrixXd& c = hook.phi_compliant();
  if (r.size() == 0 || c.size() == 0 || r.rows() != c.rows()) return 0;
  const double ratio = std::exp(hook.phi_rigid_log_scale() - hook.phi_compliant_log_scale());
  return (ratio * r - c).norm() / c.norm();
}
constexpr double kMarkerFade = 1.0;  // s of simulated time

}  // namespace

EventsInstance::EventsInstance(const mjModel* m, int instance) : config_(ParsePluginConfig(m, instance)) {
  if (!config_.log_path.empty()) {
    log_fd_ = ::open(config_.log_path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    if (log_fd_ < 0) {
      throw ConfigError(std::string(kEventsPluginName) + ": cannot open log '" + config_.log_path +
                        "': " + std::strerror(errno));
    }
  }
}

EventsInstance::~EventsInstance() {
  if (log_fd_ >= 0) ::close(log_fd_);
}

void EventsInstance::Reset() {
  if (follower_) follower_->Restart();
  with_xi_ = others_ = 0;
  last_time_ = last_xi_norm_ = last_transversality_ = last_grazing_ = 0;
  markers_.clear();
}

void EventsInstance::Restart() {
  if (follower_) follower_->Restart();
}

void EventsInstance::WriteLog(const std::string& line) {
  if (log_fd_ < 0 || log_failed_) return;
  const std::string whole = line + "\n";
  // one write(2) on an O_APPEND descriptor: the line lands whole or not at all, after any other
  // writer's lines
  const ssize_t n = ::write(log_fd_, whole.data(), whole.size());
  if (n != static_cast<ssize_t>(whole.size())) {
    const std::string reason = n < 0 ? std::strerror(errno) : "short write";
    if (n > 0) {  // take the partial line back (disk full): the file keeps whole lines only
      const off_t end = ::lseek(log_fd_, 0, SEEK_END);
      if (end >= n && ::ftruncate(log_fd_, end - n) != 0) log_failed_ = true;
    }
    log_failed_ = true;
    mju_warning("saltation.events: could not write the log '%s' (%s); no more records are written",
                config_.log_path.c_str(), reason.c_str());
  }
}

void EventsInstance::OnEvent(const HookEvent& ev) {
  const double xi_norm = ev.has_xi && ev.rigid.complete ? ev.rigid.xi.Norm() : NAN;
  if (ev.has_xi) {
    with_xi_++;
    last_time_ = ev.time;
    last_xi_norm_ = std::isnan(xi_norm) ? 0 : xi_norm;
    last_transversality_ = ev.rigid.xi.transversality_rel;
    last_grazing_ = ev.grazing ? 1 : 0;
  } else {
    others_++;
  }
  EventMarker marker;
  if (MarkerOf(ev, xi_norm, marker)) {
    if (markers_.size() >= kMaxMarkers) markers_.erase(markers_.begin(), markers_.begin() + kMaxMarkers / 2);
    markers_.push_back(marker);
  }
  if (log_fd_ >= 0) WriteLog(HookEventToJson(follower_->hook().rigid_model(), ev));
}

void EventsInstance::Compute(const mjModel* m, mjData* d, int instance) {
  if (!follower_) {
    follower_ = std::make_unique<StepFollower>(m, config_.hook);
    follower_->on_event = [this](const HookEvent& ev) { OnEvent(ev); };
    // a log starts with its header (event_log_header.h); a file that has lines already (another
    // instance's, an earlier run's) is appended to as it is
    if (log_fd_ >= 0 && ::lseek(log_fd_, 0, SEEK_END) == 0) WriteLog(EventLogHeader(follower_->hook(), "", "plugin"));
  }
  follower_->Observe(m, d);
  const double values[kSensorSize] = {
      static_cast<double>(with_xi_),
      last_time_,
      last_xi_norm_,
      last_transversality_,
      last_grazing_,
      static_cast<double>(follower_->hook().mode().contacts.size()),
      static_cast<double>(others_),
      static_cast<double>(follower_->discontinuities()),
      Log10Norm(follower_->hook().phi_rigid(), follower_->hook().phi_rigid_log_scale()),
      Log10Norm(follower_->hook().phi_compliant(), follower_->hook().phi_compliant_log_scale()),
      RelativeDifference(follower_->hook()),
  };
  for (int i = 0; i < m->nsensor; i++) {
    if (m->sensor_type[i] != mjSENS_PLUGIN || m->sensor_plugin[i] != instance) continue;
    mju_copy(d->sensordata + m->sensor_adr[i], values, std::min(m->sensor_dim[i], kSensorSize));
  }
}

void EventsInstance::Visualize(const mjModel* m, const mjData* d, mjvScene* scn) const {
  AddEventMarkers(m, d->time, markers_, -1, kMarkerFade, scn);
}

}  // namespace saltation
