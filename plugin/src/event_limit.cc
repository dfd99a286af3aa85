#include "saltation/event_limit.h"

#include <cstdio>
#include <string>

#include "saltation/errors.h"

namespace saltation {

EventLimit::EventLimit(int max_events) : max_events_(max_events) {
  if (max_events < 1) throw ConfigError("max_events must be at least 1, not " + std::to_string(max_events));
}

void EventLimit::Count(double t) {
  if (count_ == 0 || t < window_start_ || t >= window_start_ + kEventLimitWindow) {
    window_start_ = t;
    count_ = 0;
  }
  if (++count_ <= max_events_) return;
  char msg[320];
  std::snprintf(msg, sizeof(msg),
                "more than %d events within %g s of simulated time (the limit max_events = %d): event %d of the "
                "window at t = %.9g s, its first at t = %.9g s — Zeno bouncing, chattering or events repeating "
                "at one instant (raise the limit if the events are real)",
                max_events_, kEventLimitWindow, max_events_, count_, t, window_start_);
  throw NumericalError(msg);
}

}  // namespace saltation
