// The rigid reference's stop for an unbounded number of events in finite time (Zeno bouncing,
// chattering, events repeating at one instant): SimulatorOptions::max_events applied to the events
// of a run as they are found, whatever the run is cut into (RigidSimulator::Advance counts one
// call's events; RunRigid, which advances one event per call, counts its whole run).
//
//   EventLimit(max_events)  a counter for one run (max_events ≥ 1, ConfigError otherwise)
//   Count(t)                one more event at time t => nothing while at most max_events events
//                           fall within kEventLimitWindow s of the first event of their window
//                           (windows follow one another: an event past a window's end opens the
//                           next, as does one earlier than its start); NumericalError on the one
//                           past the limit, naming the limit, the window's first event time and t.
#ifndef SALTATION_EVENT_LIMIT_H_
#define SALTATION_EVENT_LIMIT_H_

namespace saltation {

// simulated time (s) over which SimulatorOptions::max_events events are allowed
constexpr double kEventLimitWindow = 0.1;

class EventLimit {
 public:
  explicit EventLimit(int max_events);
  void Count(double t);

 private:
  int max_events_;
  double window_start_ = 0;
  int count_ = 0;  // events in the window so far (0: no window open yet)
};

}  // namespace saltation

#endif  // SALTATION_EVENT_LIMIT_H_
