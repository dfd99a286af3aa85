// Time-dependent guards: a ball on a slide joint striking a paddle (a mocap body) moved by the
// prescribed motion p(t) = A sin ωt (Options::mocap_motion), against closed forms.
//
// With g = z − r − p(t), u = ṗ(t_e), u̇ = p̈(t_e), e the restitution and v⁻ the ball's speed:
//   ∂g/∂t = −u,   v⁺ = −e v⁻ + (1 + e) u,   D_tΔ = (0, (1 + e) u̇),
//   Ξ = [[−e, 0], [−(1 + e)(G + u̇)/(v⁻ − u), −e]],   ∂t_e/∂x⁻ = (−1/(v⁻ − u), 0)
// (F⁻ = (v⁻, −G), F⁺ = (v⁺, −G), ∇g = (1, 0)). The flow map through the bounce is itself in
// closed form (parabolas, the event time a root of z(t) − r = p(t)), so Ξ is also held to the
// finite differences of that map, which share nothing with the library.
#include <cmath>
#include <cstdio>
#include <fstream>
#include <unistd.h>

#include "saltation/mocap_table.h"

#include "test_util.h"

namespace saltation::testing {
namespace {

constexpr double kG = 9.81;
constexpr double kPi = 3.14159265358979323846;
constexpr double kR = 0.05, kHalf = 0.02, kE = 0.6;
constexpr double kA = 0.05, kOmega = 2 * kPi * 3;  // 5 cm at 3 Hz: up to 0.94 m/s, 17.8 m/s²

// tests/models/paddle.xml: the ball on a slide joint, the paddle's top face at z = 0 at rest
ModelPtr LoadPaddle() { return LoadModel(std::string(SALTATION_SOURCE_DIR) + "/tests/models/paddle.xml"); }

double P(double t) { return kA * std::sin(kOmega * t); }
double U(double t) { return kA * kOmega * std::cos(kOmega * t); }
double Udot(double t) { return -kA * kOmega * kOmega * std::sin(kOmega * t); }

Options PaddleOptions() {
  Options o;
  o.mocap_motion = [](double t, int) {
    MocapSample s;
    s.pos = Eigen::Vector3d(0, 0, P(t) - kHalf);  // the paddle's top face at p(t)
    s.vel = Eigen::Vector3d(0, 0, U(t));
    return s;
  };
  return o;
}

State BallAt(double t, double z, double v) {
  State x;
  x.time = t;
  x.qpos = Eigen::VectorXd::Constant(1, z);
  x.qvel = Eigen::VectorXd::Constant(1, v);
  x.act.resize(0);
  return x;
}

// The touchdown of the ball on the paddle at x (touching at x.time).
RigidEvent Strike(const Model& model, Data& data, const State& x) {
  ApplyMocapMotion(model, data, x.time);
  EvaluatePosition(model, data.main(), x.qpos.data());
  std::vector<ContactPoint> points;
  ListContacts(model, data.main(), points);
  EXPECT_EQ(points.size(), 1u);
  if (points.empty()) return {};
  return TouchdownEvent(model, data, RestitutionTable(model), x, Mode{}, points[0].id, 1e-9,
                        DefaultForceTolerance(model.mj()));
}

Eigen::Matrix2d ClosedFormXi(double v_minus, double t) {
  Eigen::Matrix2d xi;
  xi << -kE, 0, -(1 + kE) * (kG + Udot(t)) / (v_minus - U(t)), -kE;
  return xi;
}

// The exact flow map from (z0, v0) at t0 to t1 through one bounce: flight, the first root of
// z(t) − r − p(t) (bracketed on a fine grid, then bisection to round-off), the impact, flight.
Eigen::Vector2d FlowThroughBounce(double t0, double z0, double v0, double t1, double* t_event = nullptr) {
  auto gap = [&](double t) {
    const double s = t - t0;
    return z0 + v0 * s - 0.5 * kG * s * s - kR - P(t);
  };
  double lo = t0, hi = t0;
  for (int i = 1; i <= 100000 && gap(hi) > 0; i++) {
    lo = hi;
    hi = t0 + (t1 - t0) * i / 100000.0;
  }
  for (int it = 0; it < 200 && hi - lo > 0; it++) {
    const double mid = 0.5 * (lo + hi);
    if (mid == lo || mid == hi) break;
    (gap(mid) > 0 ? lo : hi) = mid;
  }
  const double te = 0.5 * (lo + hi);
  if (t_event) *t_event = te;
  const double vm = v0 - kG * (te - t0);
  const double zp = P(te) + kR;
  const double vp = -kE * vm + (1 + kE) * U(te);
  const double s = t1 - te;
  return Eigen::Vector2d(zp + vp * s - 0.5 * kG * s * s, vp - kG * s);
}

class MovingSurface : public MujocoTest {};

TEST_F(MovingSurface, PaddleStrikeMatchesClosedForm) {
  ModelPtr m = LoadPaddle();
  Model model(m.get(), PaddleOptions());
  Data data(model);
  double worst_xi = 0, worst_without = 1e9, worst_dtd = 0;
  // the paddle rising fast, at its top, falling fast, and accelerating up
  for (double phase : {0.1, 0.25, 0.45, 0.8}) {
    const double t = phase / 3.0, v_minus = -2.0;
    const RigidEvent ev = Strike(model, data, BallAt(t, P(t) + kR, v_minus));
    ASSERT_EQ(ev.kind, EventKind::kTouchdown);
    ASSERT_TRUE(ev.mode_after.contacts.empty()) << "it bounces off";
    const Eigen::Matrix2d expected = ClosedFormXi(v_minus, t);
    const Eigen::MatrixXd xi = ev.xi.Dense();
    const double err = (xi - expected).cwiseAbs().maxCoeff() / expected.cwiseAbs().maxCoeff();
    worst_xi = std::max(worst_xi, err);
    EXPECT_NEAR(ev.xi.dg_dt, -U(t), 1e-15);
    EXPECT_NEAR(ev.xi.transversality, v_minus - U(t), 1e-15);
    EXPECT_NEAR(ev.x_plus.qvel(0), -kE * v_minus + (1 + kE) * U(t), 1e-14);
    EXPECT_NEAR(ev.xi.dt_dx(0), -1 / (v_minus - U(t)), 1e-14);
    EXPECT_EQ(ev.xi.dt_dx(1), 0);
    EXPECT_NEAR(ev.xi.transversality_rel, 1, 1e-15) << "one DOF: head-on";
    ASSERT_EQ(ev.xi.dreset_dt.size(), 2);
    const double dtd_err = std::abs(ev.xi.dreset_dt(1) / ((1 + kE) * Udot(t)) - 1);
    worst_dtd = std::max(worst_dtd, dtd_err);
    // the same strike without the motion (the paddle placed there, at rest: what the library did
    // before): no ∂g/∂t, no surface velocity in the reset, no D_tΔ
    Model still(m.get());
    Data still_data(still);
    mju_copy3(still_data.main()->mocap_pos, Eigen::Vector3d(0, 0, P(t) - kHalf).data());
    mju_copy3(still_data.aux()->mocap_pos, Eigen::Vector3d(0, 0, P(t) - kHalf).data());
    EvaluatePosition(still, still_data.main(), BallAt(t, P(t) + kR, v_minus).qpos.data());
    std::vector<ContactPoint> points;
    ListContacts(still, still_data.main(), points);
    ASSERT_EQ(points.size(), 1u);
    const RigidEvent without = TouchdownEvent(still, still_data, RestitutionTable(still), BallAt(t, P(t) + kR, v_minus),
                                              Mode{}, points[0].id, 1e-9, DefaultForceTolerance(m.get()));
    const double err_without =
        (without.xi.Dense() - expected).cwiseAbs().maxCoeff() / expected.cwiseAbs().maxCoeff();
    worst_without = std::min(worst_without, err_without);
    std::printf("[ paddle ] phase %.2f: u %+.3f m/s, u̇ %+.2f m/s², Ξ21 %+.6f (closed form %+.6f), error %.1e; "
                "without the time terms Ξ21 %+.4f (error %.2f)\n",
                phase, U(t), Udot(t), xi(1, 0), expected(1, 0), err, without.xi.Dense()(1, 0), err_without);
  }
  std::printf("[ paddle ] worst relative error: Ξ %.1e, D_tΔ %.1e; without the time terms ≥ %.2f\n", worst_xi,
              worst_dtd, worst_without);
  EXPECT_LT(worst_xi, 2e-9);   // D_tΔ by central differences in time (step 1e-6 s); measured 7.2e-10
  EXPECT_LT(worst_dtd, 2e-9);
  EXPECT_GT(worst_without, 0.2) << "dropping the time terms is wrong by a wide margin (measured ≥ 0.25)";
}

// Ξ against the finite differences of the exact flow map through the bounce: Φ(t1, t_e)·Ξ·Φ(t_e, t0)
// with the free-flight Φ = [[1, s], [0, 1]].
TEST_F(MovingSurface, PaddleXiMatchesTheExactFlowMap) {
  ModelPtr m = LoadPaddle();
  Model model(m.get(), PaddleOptions());
  Data data(model);
  const double t0 = 0.0, z0 = 0.4, v0 = 0.5, t1 = 0.45;
  double te = 0;
  FlowThroughBounce(t0, z0, v0, t1, &te);
  const double vm = v0 - kG * (te - t0);
  const RigidEvent ev = Strike(model, data, BallAt(te, P(te) + kR, vm));
  Eigen::Matrix2d before, after;
  before << 1, te - t0, 0, 1;
  after << 1, t1 - te, 0, 1;
  const Eigen::Matrix2d chain = after * ev.xi.Dense() * before;
  Eigen::Matrix2d fd;
  const double h = 1e-6;
  for (int i = 0; i < 2; i++) {
    const Eigen::Vector2d dz = Eigen::Vector2d::Unit(i) * h;
    fd.col(i) = (FlowThroughBounce(t0, z0 + dz(0), v0 + dz(1), t1) - FlowThroughBounce(t0, z0 - dz(0), v0 - dz(1), t1)) /
                (2 * h);
  }
  const double err = RelativeError(chain, fd);
  std::printf("[ paddle ] t_e = %.9f s (u %+.3f, u̇ %+.2f): chain vs exact flow map %.1e\n", te, U(te), Udot(te), err);
  EXPECT_LT(err, 1e-9) << CompareReport(chain, fd, "Φ Ξ Φ", "FD of the exact map");  // measured 1.1e-10
  EXPECT_LT(RelativeError(after * ClosedFormXi(vm, te) * before, fd), 1e-9) << "the closed form itself";
}

// The exact reference on the moving paddle: RigidSimulator's RK4 stages and step ends carry their
// time, the mode evaluations and step ends place the paddle there (mode_flow.h), so the touchdown
// gap is z − r − p(t) and its root the strike time; the event, the state after the bounce and Ξ
// against the closed-form flow.
TEST_F(MovingSurface, ReferenceLocatesTheStrikeOnTheMovingPaddle) {
  ModelPtr m = LoadPaddle();
  Model model(m.get(), PaddleOptions());
  RigidSimulator sim(model);
  const double t0 = 0.0, z0 = 0.4, v0 = 0.5, t1 = 0.45;
  double te = 0;
  const Eigen::Vector2d end = FlowThroughBounce(t0, z0, v0, t1, &te);
  HybridState s = sim.Initialize(BallAt(t0, z0, v0));
  const std::vector<RigidEvent> events = sim.Advance(s, t1);
  ASSERT_EQ(events.size(), 1u);
  const RigidEvent& ev = events[0];
  const double vm = v0 - kG * (te - t0);
  const double xi_err = (ev.xi.Dense() - ClosedFormXi(ev.x_minus.qvel(0), ev.time)).cwiseAbs().maxCoeff() /
                        ClosedFormXi(vm, te).cwiseAbs().maxCoeff();
  std::printf("[ paddle reference ] strike at %.15f s (closed form %.15f, %.1e), v⁻ %.12f (%.1e), end z %.1e v %.1e, "
              "Ξ %.1e\n",
              ev.time, te, ev.time - te, ev.x_minus.qvel(0), ev.x_minus.qvel(0) - vm, s.x.qpos(0) - end(0),
              s.x.qvel(0) - end(1), xi_err);
  // measured 2.2e-16 s, 8.9e-16 m/s, 0 m and 1.6e-14 m/s, 1.5e-11 (constant acceleration: RK4 is exact)
  EXPECT_NEAR(ev.time, te, 1e-13);
  EXPECT_NEAR(ev.x_minus.qvel(0), vm, 1e-13);
  EXPECT_NEAR(s.x.qpos(0), end(0), 1e-12);
  EXPECT_NEAR(s.x.qvel(0), end(1), 1e-12);
  EXPECT_LT(xi_err, 1e-10);
  // without the motion the reference sees the paddle at rest at its model position (top at 0):
  // the strike comes at another time
  Model still(m.get());
  RigidSimulator still_sim(still);
  HybridState s2 = still_sim.Initialize(BallAt(t0, z0, v0));
  const std::vector<RigidEvent> still_events = still_sim.Advance(s2, t1);
  ASSERT_FALSE(still_events.empty());
  EXPECT_GT(std::abs(still_events[0].time - te), 1e-3);
}

// The time derivatives of a moving surface's strike go into the logs: "dg_dt" and "dreset_dt" in
// the JSON record (their closed forms −u and (0, (1 + e) u̇)), read back by the log reader, and
// the CSV's dg_dt and dreset_dt_norm cells; a model without a prescribed motion has neither.
TEST_F(MovingSurface, LogsCarryTheTimeDerivatives) {
  ModelPtr m = LoadPaddle();
  Model model(m.get(), PaddleOptions());
  Data data(model);
  const double t = 0.8 / 3.0;  // the paddle accelerating up: u̇ ≠ 0
  const RigidEvent ev = Strike(model, data, BallAt(t, P(t) + kR, -2.0));
  ASSERT_EQ(ev.kind, EventKind::kTouchdown);
  const std::string json = EventToJson(model, ev, 0.01);
  const JsonValue record = ParseJson(json);
  const JsonValue* dg_dt = record.Find("dg_dt");
  const JsonValue* dreset_dt = record.Find("dreset_dt");
  ASSERT_TRUE(dg_dt && dreset_dt) << json;
  std::printf("[ paddle ] dg_dt %.12f (−u = %.12f), dreset_dt (%g, %.12f) ((1 + e) u̇ = %.12f)\n", dg_dt->number(), -U(t),
              dreset_dt->items()[0].number(), dreset_dt->items()[1].number(), (1 + kE) * Udot(t));
  EXPECT_NEAR(dg_dt->number(), -U(t), 1e-12);
  ASSERT_EQ(dreset_dt->items().size(), 2u);
  EXPECT_EQ(dreset_dt->items()[0].number(), 0.0);
  EXPECT_NEAR(dreset_dt->items()[1].number(), (1 + kE) * Udot(t), 1e-6 * std::abs(Udot(t)));
  // the reader takes it; a copy of the record with a wrong-sized dreset_dt it refuses
  Hook hook(m.get());
  const std::string header = EventLogHeader(hook, "paddle.xml") + "\n";
  EXPECT_NO_THROW(ParseEventLog(header + json + "\n", "paddle.jsonl"));
  std::string bad = json;
  bad.replace(bad.find("\"dreset_dt\":["), 13, "\"dreset_dt\":[1,");
  EXPECT_THROW(ParseEventLog(header + bad + "\n", "paddle.jsonl"), LogFormatError);
  // CSV: the two cells before error
  HookEvent hev;
  hev.kind = ev.kind;
  hev.time = ev.time;
  hev.contact = ev.contact;
  hev.has_xi = true;
  hev.rigid = ev;
  const std::string row = HookEventToCsv(model, hev);
  std::vector<std::string> cells, names;
  for (const auto& [text, out] : {std::pair{row + ",", &cells}, std::pair{HookEventCsvHeader() + ",", &names}}) {
    for (size_t at = 0, c; (c = text.find(',', at)) != std::string::npos; at = c + 1) out->push_back(text.substr(at, c - at));
  }
  ASSERT_EQ(cells.size(), names.size()) << row;
  const size_t n = names.size();
  ASSERT_GE(n, 3u);
  EXPECT_EQ(names[n - 3], "dg_dt");
  EXPECT_EQ(names[n - 2], "dreset_dt_norm");
  EXPECT_EQ(std::strtod(cells[n - 3].c_str(), nullptr), ev.xi.dg_dt) << row;
  EXPECT_NEAR(std::strtod(cells[n - 2].c_str(), nullptr), (1 + kE) * std::abs(Udot(t)), 1e-6 * std::abs(Udot(t))) << row;
  // the same strike without the prescribed motion (the paddle held where it is): no such fields
  Model still(m.get());
  Data still_data(still);
  const RigidEvent plain = Strike(still, still_data, BallAt(0, kR, -2.0));
  const std::string plain_json = EventToJson(still, plain, 0.01);
  EXPECT_EQ(plain_json.find("dg_dt"), std::string::npos) << plain_json;
  EXPECT_EQ(plain_json.find("dreset_dt"), std::string::npos) << plain_json;
  hev.rigid = plain;
  const std::string plain_row = HookEventToCsv(still, hev);
  EXPECT_EQ(plain_row.substr(plain_row.size() - 3), ",,,") << plain_row;
}

}  // namespace
}  // namespace saltation::testing

namespace saltation::testing {
namespace {

// The same paddle from a table (mocap_table.h): A sin ωt sampled every `dt` s into a CSV file,
// read back as a not-a-knot cubic spline. The strike and Ξ of the reference against the closed
// forms, the errors falling with dt as the spline's (position O(dt⁴), acceleration O(dt²)).
std::string PaddleTable(double dt) {
  const std::string path = ::testing::TempDir() + "/saltation_paddle_" + std::to_string(::getpid()) + "_" +
                           std::to_string(static_cast<int>(1 / dt)) + ".csv";
  std::ofstream out(path);
  out << "# the paddle's centre: top face at A sin ωt\ntime,paddle.z\n";
  out.precision(17);
  for (int i = 0; i * dt <= 1.0 + 1e-12; i++) out << i * dt << "," << P(i * dt) - kHalf << "\n";
  return path;
}

TEST_F(MovingSurface, ATableOfThePaddlesMotionGivesTheClosedForm) {
  ModelPtr m = LoadPaddle();
  const double t0 = 0.0, z0 = 0.4, v0 = 0.5, t1 = 0.45;
  double te = 0;
  FlowThroughBounce(t0, z0, v0, t1, &te);
  double previous_time_err = 0, previous_xi_err = 0;
  for (double dt : {4e-3, 1e-3}) {
    const MocapTable table = MocapTable::Read(m.get(), PaddleTable(dt));
    // the table between rows against the function it samples
    double pos_err = 0, vel_err = 0;
    for (double t = 0.1; t < 0.9; t += 0.000173) {
      const MocapSample s = table.Sample(t, 0);
      pos_err = std::max(pos_err, std::abs(s.pos(2) - (P(t) - kHalf)));
      vel_err = std::max(vel_err, std::abs(s.vel(2) - U(t)));
    }
    Options options;
    options.mocap_motion = table.Motion();
    Model model(m.get(), options);
    RigidSimulator sim(model);
    HybridState s = sim.Initialize(BallAt(t0, z0, v0));
    const std::vector<RigidEvent> events = sim.Advance(s, t1);
    ASSERT_EQ(events.size(), 1u);
    const RigidEvent& ev = events[0];
    const Eigen::Matrix2d closed = ClosedFormXi(v0 - kG * (te - t0), te);
    const double xi_err = (ev.xi.Dense() - closed).cwiseAbs().maxCoeff() / closed.cwiseAbs().maxCoeff();
    const double time_err = std::abs(ev.time - te);
    std::printf("[ paddle table ] rows every %g s: position %.1e m, velocity %.1e m/s; strike %.1e s, Ξ %.1e\n", dt,
                pos_err, vel_err, time_err, xi_err);
    // measured at 4 ms: position 4.2e-9 m, velocity 3.2e-6 m/s, strike 1.4e-10 s, Ξ 3.9e-5; at 1 ms:
    // 1.6e-11 m, 5.1e-8 m/s, 6.1e-13 s, Ξ 2.7e-6 (u̇ from the spline's second derivative: O(dt²))
    EXPECT_LT(pos_err, dt == 1e-3 ? 3e-11 : 6e-9);
    EXPECT_LT(time_err, dt == 1e-3 ? 1e-12 : 2e-10);
    EXPECT_LT(xi_err, dt == 1e-3 ? 4e-6 : 5e-5);
    if (previous_time_err > 0) EXPECT_LT(time_err, previous_time_err / 50);  // O(dt⁴): 256× at 4×
    if (previous_xi_err > 0) EXPECT_LT(xi_err, previous_xi_err / 8);          // O(dt²): 16× at 4×
    previous_xi_err = xi_err;
    previous_time_err = time_err;
  }
}

TEST(MocapTableFile, MalformedTablesAreRefusedWithFileLineAndReason) {
  ModelPtr m = LoadPaddle();
  const std::pair<const char*, const char*> cases[] = {
      {"time,ball.z\n0,1\n1,2\n", "line 1: 'ball' is not a mocap body of the model (its mocap bodies: paddle)"},
      {"time,paddle.w\n0,1\n1,2\n", "line 1: 'paddle.w' is not BODY.x, BODY.y or BODY.z"},
      {"time,paddle.z,paddle.z\n0,1,1\n1,2,2\n", "line 1: 'paddle.z' is listed twice"},
      {"time,paddle.z\n0,1\n0,2\n", "line 3: times must increase"},
      {"time,paddle.z\n0,1\n1,inf\n", "line 3: value 'inf' is not a finite number"},
      {"time,paddle.z\n0,1,2\n", "line 2: 3 values where the header has 2"},
      {"time,paddle.z\n0,1\n", "needs at least two rows"},
      {"pos,paddle.z\n0,1\n", "line 1: the header must start with 'time'"},
  };
  int i = 0;
  for (const auto& [text, message] : cases) {
    const std::string path = ::testing::TempDir() + "/saltation_badmocap_" + std::to_string(::getpid()) + "_" +
                             std::to_string(i++) + ".csv";
    std::ofstream(path) << text;
    try {
      MocapTable::Read(m.get(), path);
      ADD_FAILURE() << "accepted: " << text;
    } catch (const ConfigError& e) {
      EXPECT_NE(std::string(e.what()).find(message), std::string::npos) << e.what();
    }
  }
  EXPECT_THROW(MocapTable::Read(m.get(), "/nonexistent/paddle.csv"), ConfigError);
}

}  // namespace
}  // namespace saltation::testing
