// The rigid reference's stop for an unbounded number of events in finite time (Zeno bouncing,
// chattering, events repeating at one instant): SimulatorOptions::max_events applied to the events
// of a run as they are found, whatever the run is cut into. The one counter is RigidSimulator's
// (rigid_simulator.h): its Advance calls count into it while each starts from the hybrid state the last
// one left (or Initialize returned), unchanged bit for bit (x and mode; any other state — a
// perturbed copy at the same time — starts a new run), so a run cut into calls of one event each (RunRigid, a caller's own loop) is counted
// whole.
//
//   EventLimit(max_events)  a counter for one run (max_events ≥ 1, ConfigError otherwise: the one
//                           check of the limit, the simulator's constructor makes it)
//   Restart()               forget the events counted: a new run begins
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
  void Restart() { count_ = 0; }
  void Count(double t);

 private:
  int max_events_;
  double window_start_ = 0;
  int count_ = 0;  // events in the window so far (0: no window open yet)
};

}  // namespace saltation

#endif  // SALTATION_EVENT_LIMIT_H_
