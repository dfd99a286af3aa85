// `saltation compare` run as a user runs it: the stiffness sweep of rigid vs MuJoCo's compliant
// sensitivity on the ball, two-block and slope models, its table, flags and JSON, and bad input.
//
// What the sweep shows. The issue asks for a relative difference ‖Φr − Φc‖/‖Φc‖ that falls
// monotonically with stiffness. It does when MuJoCo's contact converges to the rigid one: an
// impedance that rises from ~0 (smooth onset) and steps that resolve the contact
// (CompareConverges below). With MuJoCo's default impedance it cannot (measured with the
// defaults: τ = 0.02 … 0.002 s, each model's own dampratio 1, its Euler integrator, dt = τ/20):
// the contact force switches on within one step, and the Jacobians of the steps never see that
// switch, so Φc carries a rank-one term along (v_n, q_n) that grows like 1/τ (README, "Rigid vs
// compliant"); |Φc(v_n, q_n)|·τ stays ≈ 0.25 while Φc's norm grows, and the relative difference
// tends to 1, not 0. The tests assert that, and what does converge there: the difference with the
// onset direction of the initial perturbation projected out.
//   vertical_ball  rel 1 (τ = 0.02: MuJoCo's contact is plastic there, e_eff = 0, and the rigid
//                  Φ of a plastic landing into rest is exactly 0), then 1.095, 1.048, 1.019;
//                  off-onset 0.445, 0.232, 0.137
//   two_blocks     rel 0.990, 0.997, 1.000, 1.000: the touchdown falls exactly on the time grid
//                  (t = 0.3 s), so mjd_transitionFD's perturbations straddle the contact switch
//                  and Φc(v_n, q_n)·τ jumps to 28–68 at τ ≤ 0.005 (off the grid it stays 0.27)
//   slope_ball     rel 1.027 (τ = 0.02, e_eff = 0), then 0.789, 0.884, 0.955: rising towards 1;
//                  off-onset 0.040, 0.015, 0.004, 0.008 (a few percent, not monotone at the end)
#include <gmock/gmock.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "cli_util.h"
#include "test_util.h"

namespace saltation::testing {
namespace {

using ::testing::HasSubstr;

std::string ReadFile(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// one row of the --out JSON, read minimally
struct Row {
  double tau = 0, restitution = 0, relative = 0, off_onset = 0, onset = 0;
  std::string text;  // the row's JSON, for flags
  bool Flag(const std::string& start) const { return text.find("\"" + start) != std::string::npos; }
};

double Number(const std::string& text, const std::string& key) {
  const size_t at = text.find("\"" + key + "\":");
  if (at == std::string::npos) return NAN;
  return std::strtod(text.c_str() + at + key.size() + 3, nullptr);
}

std::vector<Row> Rows(const std::string& json) {
  std::vector<Row> rows;
  size_t at = json.find("{\"tau\":");
  while (at != std::string::npos) {
    const size_t next = json.find("{\"tau\":", at + 1);
    Row r;
    r.text = json.substr(at, next == std::string::npos ? std::string::npos : next - at);
    r.tau = Number(r.text, "tau");
    r.restitution = Number(r.text, "effective_restitution");
    r.relative = Number(r.text, "relative_difference");
    r.off_onset = Number(r.text, "relative_difference_off_onset");
    r.onset = Number(r.text, "onset_term");
    rows.push_back(r);
    at = next;
  }
  return rows;
}

// whole: one object, brackets balanced outside strings, ends with a newline
void ExpectWholeJson(const std::string& json) {
  ASSERT_FALSE(json.empty());
  EXPECT_EQ(json.front(), '{');
  EXPECT_EQ(json.substr(json.size() - 2), "}\n");
  int depth = 0;
  bool in_string = false;
  for (size_t i = 0; i < json.size(); i++) {
    const char c = json[i];
    if (in_string) {
      if (c == '\\') i++;
      else if (c == '"') in_string = false;
    } else if (c == '"') {
      in_string = true;
    } else if (c == '{' || c == '[') {
      depth++;
    } else if (c == '}' || c == ']') {
      depth--;
      ASSERT_GE(depth, 0) << "unbalanced at " << i;
    }
  }
  EXPECT_EQ(depth, 0);
  EXPECT_FALSE(in_string);
  for (const char* key : {"\"model\":", "\"window\":", "\"rows\":[", "\"timestep\":", "\"max_discrepancy\":",
                          "\"at\":[", "\"at_names\":[", "\"flags\":[", "\"rigid\":[[", "\"compliant\":[["}) {
    EXPECT_THAT(json, HasSubstr(key));
  }
}

// entry (i, j) of the row's "rigid" or "compliant" matrix (row-major nested arrays)
double Entry(const Row& r, const std::string& which, int i, int j) {
  size_t at = r.text.find("\"" + which + "\":[[");
  if (at == std::string::npos) return NAN;
  at += which.size() + 5;  // past "which":[[
  for (int k = 0; k < i; k++) at = r.text.find("],[", at) + 3;
  const char* p = r.text.c_str() + at;
  char* end = nullptr;
  double value = std::strtod(p, &end);
  for (int k = 0; k < j; k++) value = std::strtod(end + 1, &end);
  return value;
}

// runs the default sweep on a model, checks the table, progress and JSON, returns the rows
std::vector<Row> Sweep(const std::string& model, std::string* output = nullptr) {
  const std::string out = TempPath(model + ".json");
  std::remove(out.c_str());
  const Result r = RunCli("compare models/" + model + ".xml --keyframe start --progress --out " + out);
  EXPECT_EQ(r.exit_code, 0) << r.output;
  std::printf("%s", r.output.c_str());
  for (const char* text : {"compare: [1/4] tau = 0.02 s", "compare: [4/4] tau = 0.002 s", "rel diff", "off-onset",
                           "at (row, col)", "|onset|*tau", "flag: ", "verdict: ", "wrote "}) {
    EXPECT_THAT(r.output, HasSubstr(text));
  }
  const std::string json = ReadFile(out);
  ExpectWholeJson(json);
  EXPECT_THAT(json, HasSubstr("\"model\":\"models/" + model + ".xml\""));
  if (output) *output = r.output;
  std::vector<Row> rows = Rows(json);
  EXPECT_EQ(rows.size(), 4u);
  const double taus[] = {0.02, 0.01, 0.005, 0.002};
  for (size_t i = 0; i < rows.size() && i < 4; i++) EXPECT_DOUBLE_EQ(rows[i].tau, taus[i]);
  return rows;
}

// The vertical ball: plastic at τ = 0.02 (the rigid Φ vanishes: flagged); from τ = 0.01 on the
// contact bounces (e_eff 0.07–0.12) and the relative difference falls monotonically — towards 1,
// because the compliant chain's onset term grows like 1/τ — while the difference off the onset
// direction falls monotonically towards 0.
TEST(Compare, VerticalBall) {
  std::string output;
  const std::vector<Row> rows = Sweep("vertical_ball", &output);
  ASSERT_EQ(rows.size(), 4u);
  EXPECT_EQ(rows[0].restitution, 0);
  EXPECT_TRUE(rows[0].Flag("the rigid sensitivity vanishes")) << rows[0].text.substr(0, 600);
  EXPECT_NEAR(rows[0].relative, 1, 1e-9);
  for (size_t i = 1; i < 4; i++) {
    EXPECT_GT(rows[i].restitution, 0.03);
    EXPECT_GT(rows[i].relative, 1.0) << "tau " << rows[i].tau;
    EXPECT_GT(rows[i].onset, 0.2) << "tau " << rows[i].tau;  // |Φc(v_n, q_n)|·τ ≈ 0.25 at every τ
    EXPECT_LT(rows[i].onset, 0.35) << "tau " << rows[i].tau;
    EXPECT_TRUE(rows[i].Flag("compliant FD dominated by the contact-onset term")) << "tau " << rows[i].tau;
    if (i > 1) {
      EXPECT_LT(rows[i].relative, rows[i - 1].relative) << "not monotone at tau " << rows[i].tau;
      EXPECT_LT(rows[i].off_onset, rows[i - 1].off_onset) << "off-onset not monotone at tau " << rows[i].tau;
    }
  }
  EXPECT_LT(rows[3].off_onset, 0.2);
  // the whole sweep is not monotone (the plastic first row), and the output says why
  EXPECT_THAT(output, HasSubstr("does NOT fall monotonically"));
  EXPECT_THAT(output, HasSubstr("the rigid sensitivity vanishes"));
  EXPECT_THAT(output, HasSubstr("(v:z, q:z)"));
}

// Two blocks meeting at t = 0.3 s exactly, on every τ's time grid: flagged on every row, and the
// relative difference tends to 1 (the onset term, here inflated by finite differences across the
// switch) instead of falling.
TEST(Compare, TwoBlocks) {
  std::string output;
  const std::vector<Row> rows = Sweep("two_blocks", &output);
  ASSERT_EQ(rows.size(), 4u);
  for (const Row& r : rows) {
    EXPECT_TRUE(r.Flag("touchdown on the time grid")) << "tau " << r.tau;
    EXPECT_TRUE(r.Flag("compliant FD dominated by the contact-onset term")) << "tau " << r.tau;
    EXPECT_GT(r.relative, 0.98) << "tau " << r.tau;
    EXPECT_LT(r.relative, 1.01) << "tau " << r.tau;
    EXPECT_GT(r.onset, 0.2) << "tau " << r.tau;
    EXPECT_LT(r.off_onset, 0.02) << "tau " << r.tau;  // the momentum exchange itself agrees
    EXPECT_GT(r.restitution, 0.05);
  }
  for (size_t i = 1; i < 4; i++) EXPECT_GE(rows[i].relative, rows[i - 1].relative - 1e-5);
  EXPECT_THAT(output, HasSubstr("does NOT fall monotonically"));
  EXPECT_THAT(output, HasSubstr("(v:xb, q:xb)"));
}

// The ball on the slope (condim 3): plastic at τ = 0.02; from τ = 0.01 on it bounces and the
// relative difference rises monotonically towards 1 as the onset term takes over, while the
// difference off the onset direction stays at a few percent.
TEST(Compare, SlopeBall) {
  std::string output;
  const std::vector<Row> rows = Sweep("slope_ball_bouncing", &output);
  ASSERT_EQ(rows.size(), 4u);
  EXPECT_EQ(rows[0].restitution, 0);
  for (size_t i = 0; i < 4; i++) EXPECT_LT(rows[i].off_onset, 0.06) << "tau " << rows[i].tau;
  for (size_t i = 1; i < 4; i++) {
    EXPECT_GT(rows[i].restitution, 0.03);
    EXPECT_LT(rows[i].relative, 1.0);
    EXPECT_GT(rows[i].onset, 0.2) << "tau " << rows[i].tau;
    EXPECT_LT(rows[i].onset, 0.35) << "tau " << rows[i].tau;
    EXPECT_TRUE(rows[i].Flag("compliant FD dominated by the contact-onset term")) << "tau " << rows[i].tau;
    if (i > 1) EXPECT_GT(rows[i].relative, rows[i - 1].relative) << "tau " << rows[i].tau;
  }
  EXPECT_THAT(output, HasSubstr("does NOT fall monotonically"));
}

// What the onset term is, and how to remove it: on the vertical ball (dampratio 0.2, a real
// bounce; 1000 steps per τ) MuJoCo's default impedance (0.9, 0.95, 0.001) switches the contact
// on within one step, and the compliant ∂v(t1)/∂z(t0) comes out with the wrong sign and growing
// like 1/τ (measured on MuJoCo 4.0.1 |Φc(v,q)|·τ = 1.037, 1.052, 1.080, 1.091 against the rigid
// +3.47…3.49; 2.2.2 gave 1.098 … 1.163), so the relative difference falls towards 1 (1.063 →
// 1.006), not 0. A smooth onset (--solimp 0.0001,0.95,0.05: the impedance rises from 0 over
// 5 cm) removes it: Φc(v,q) = 3.70, 3.67, 3.60, 3.59 against the rigid 3.77, 3.78, 3.78, 3.78,
// relative differences 0.029, 0.034, 0.051, 0.054 (what remains at small τ is the release's kink
// on the time grid, ∝ dt/τ); effective restitution 0.701 … 0.708 (2.2.2: 0.579 … 0.617, its
// constraint regularisation R being a third of 4.0.1's for this slide joint).
TEST(Compare, SmoothOnsetRemovesTheOnsetTerm) {
  const std::string common = "compare models/vertical_ball.xml --keyframe start --dampratio 0.2 --steps-per-tau 1000";
  const std::string sharp_out = TempPath("sharp.json"), smooth_out = TempPath("smooth.json");
  const Result sharp = RunCli(common + " --out " + sharp_out);
  const Result smooth = RunCli(common + " --solimp 0.0001,0.95,0.05 --out " + smooth_out);
  ASSERT_EQ(sharp.exit_code, 0) << sharp.output;
  ASSERT_EQ(smooth.exit_code, 0) << smooth.output;
  std::printf("%s%s", sharp.output.c_str(), smooth.output.c_str());
  EXPECT_THAT(sharp.output, HasSubstr("but stays above 0.5: the compliant chain is dominated by the contact-onset term"));
  EXPECT_THAT(smooth.output, HasSubstr("solimp of every contact: 0.0001 0.95 0.05 0.5 2"));
  const std::string sharp_json = ReadFile(sharp_out), smooth_json = ReadFile(smooth_out);
  EXPECT_THAT(sharp_json, HasSubstr("\"converging\":false"));
  EXPECT_THAT(smooth_json, HasSubstr("\"solimp\":[0.0001,0.94999999999999996,0.050000000000000003,0.5,2]"));
  const std::vector<Row> a = Rows(sharp_json), b = Rows(smooth_json);
  ASSERT_EQ(a.size(), 4u);
  ASSERT_EQ(b.size(), 4u);
  for (size_t i = 0; i < 4; i++) {
    SCOPED_TRACE("tau " + std::to_string(a[i].tau));
    // (v:z, q:z) is entry (1, 0) of the 2×2 tangent layout (dq, dv)
    const double rigid_sharp = Entry(a[i], "rigid", 1, 0), compliant_sharp = Entry(a[i], "compliant", 1, 0);
    const double rigid_smooth = Entry(b[i], "rigid", 1, 0), compliant_smooth = Entry(b[i], "compliant", 1, 0);
    std::printf("[ onset ] tau %-6g sharp: rigid %+.4f compliant %+9.3f (x tau %.3f), rel %.4f | smooth: rigid %+.4f "
                "compliant %+.4f, rel %.4f\n",
                a[i].tau, rigid_sharp, compliant_sharp, compliant_sharp * a[i].tau, a[i].relative, rigid_smooth,
                compliant_smooth, b[i].relative);
    EXPECT_GT(rigid_sharp, 3);
    EXPECT_LT(compliant_sharp * a[i].tau, -1.02);  // −1.037 … −1.091: ∝ 1/τ, wrong sign
    EXPECT_GT(compliant_sharp * a[i].tau, -1.2);
    EXPECT_GT(a[i].relative, 1.0);
    EXPECT_NEAR(compliant_smooth / rigid_smooth, 1, 0.09);  // 0.982 … 0.949
    EXPECT_LT(b[i].relative, 0.1);                         // 0.029 … 0.054
    EXPECT_GT(b[i].restitution, 0.55);                     // a real bounce: 0.701 … 0.708
  }
}

// When MuJoCo's contact does converge to the rigid one, the sweep shows it: an impedance rising
// from ~0 over 0.29 m (--solimp 0.0001,0.95,0.29: over the whole sweep the penetration stays in
// its power-law part, where the compliant restitution does not depend on the impact speed and the
// contact lasts ∝ τ^(1/3)), and 10⁴ steps per τ (the release's kink leaves a sawtooth ∝ dt/τ in
// the finite differences: a few percent at 10³ steps per τ, enough to break the order). Measured
// relative differences on MuJoCo 4.0.1, τ = 0.02 → 0.002:
//   vertical_ball            0.0683 0.0526 0.0336 0.0308
//   two_blocks               0.0231 0.0188 0.0152 0.0119
//   slope_ball_frictionless  0.0733 0.0570 0.0376 0.0337
//   slope_ball_bouncing      0.831  0.625  0.573  0.434   (friction: the spin-up during the
//                                                          contact converges slowest)
// The width was 0.5 on MuJoCo 2.2.2. MuJoCo 4's constraint regulariser R = (1 − d)/d · A is 3×
// 2.2.2's on vertical_ball and two_blocks (its diagonal approximation A: 1.5 for two_blocks,
// where 2.2.2 took 0.5 — R = 1742.85 against 580.95 at 1 cm penetration, τ = 0.01), which for d ≪ 1 divides the
// contact force by 3: at width 0.5 the contact lasted longer than the window and than the
// hook's 0.2 s restitution measurement (two_blocks, τ = 0.01: force 0.150 s, overlap 0.208 s,
// measured plastic; τ = 0.005: force 0.119 s > the 0.1 s window, relative difference 0.97).
// d ∝ (r/width)² in the power-law part, so width 0.5/√3 ≈ 0.29 gives back 2.2.2's force law
// (2.2.2 at width 0.5: 0.0774 … 0.0356, 0.4768 (plastic) … 0.0129, 0.1033 … 0.0461,
// 1.487 … 0.521).
struct Converging {
  std::string model;
  double last;  // bound on the stiffest τ's relative difference (measured value + ~10%)
};
void PrintTo(const Converging& c, std::ostream* os) {
  *os << "models/" << c.model << ".xml, stiffest difference < " << c.last;
}

class CompareConverges : public ::testing::TestWithParam<Converging> {};

TEST_P(CompareConverges, SmoothOnsetFallsMonotonically) {
  const Converging& c = GetParam();
  const std::string out = TempPath(c.model + "_smooth.json");
  std::remove(out.c_str());
  const Result r = RunCli("compare models/" + c.model +
                          ".xml --keyframe start --dampratio 0.2 --solimp 0.0001,0.95,0.29 --steps-per-tau 10000 --out " +
                          out);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  std::printf("%s", r.output.c_str());
  EXPECT_THAT(r.output, HasSubstr("verdict: the relative difference falls monotonically"));
  EXPECT_THAT(r.output, ::testing::Not(HasSubstr("touchdown on the time grid")));  // no force jump to straddle
  const std::string json = ReadFile(out);
  EXPECT_THAT(json, HasSubstr("\"monotone\":true"));
  const std::vector<Row> rows = Rows(json);
  ASSERT_EQ(rows.size(), 4u);
  for (size_t i = 1; i < rows.size(); i++) {
    EXPECT_LT(rows[i].relative, rows[i - 1].relative) << "tau " << rows[i].tau;
  }
  EXPECT_LT(rows.back().relative, c.last);
}

INSTANTIATE_TEST_SUITE_P(Models, CompareConverges,
                         ::testing::Values(Converging{"vertical_ball", 0.034}, Converging{"two_blocks", 0.013},
                                           Converging{"slope_ball_frictionless", 0.037},
                                           Converging{"slope_ball_bouncing", 0.48}),
                         [](const ::testing::TestParamInfo<Converging>& info) { return info.param.model; });

// --taus with one value, a forced integrator and a given window: runs, the JSON carries the window
TEST(Compare, OptionsAreHonoured) {
  const std::string out = TempPath("window.json");
  std::remove(out.c_str());
  const Result r = RunCli("compare models/vertical_ball.xml --keyframe start --taus 0.005 --integrator RK4 "
                          "--dampratio 0.3 --window 0.43,0.5 --out " + out);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr("integrator RK4"));
  EXPECT_THAT(r.output, HasSubstr("one tau only"));
  const std::string json = ReadFile(out);
  ExpectWholeJson(json);
  EXPECT_THAT(json, HasSubstr("\"window\":[0.42999999999999999,0.5]"));
  const std::vector<Row> rows = Rows(json);
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_NEAR(rows[0].restitution, 0.45, 0.05);  // dampratio 0.3: a real bounce
  EXPECT_NEAR(Number(rows[0].text, "t0"), 0.43, 1e-3);
  EXPECT_NEAR(Number(rows[0].text, "t1"), 0.5, 1e-3);
}

struct BadInput {
  std::string name, args;
  int exit_code;
  std::string message;
};
void PrintTo(const BadInput& c, std::ostream* os) {
  *os << "saltation compare " << c.args << " → exit " << c.exit_code << ", \"" << c.message << "\"";
}

class CompareBadInput : public ::testing::TestWithParam<BadInput> {};

TEST_P(CompareBadInput, ExitsNonZeroWithAClearMessage) {
  const BadInput& c = GetParam();
  const std::string out = TempPath(c.name + ".json");
  std::remove(out.c_str());
  const Result r = RunCli("compare --out " + out + " " + c.args);
  EXPECT_FALSE(r.signaled) << r.output;
  EXPECT_EQ(r.exit_code, c.exit_code) << r.output;
  EXPECT_THAT(r.output, HasSubstr(c.message));
  EXPECT_NE(access(out.c_str(), F_OK), 0) << "a failed run must not leave " << out;
}

const char* kOneGeom = "<mujoco><worldbody><body><joint type='slide'/><geom size='0.1'/></body></worldbody></mujoco>";

INSTANTIATE_TEST_SUITE_P(
    All, CompareBadInput,
    ::testing::Values(
        BadInput{"UnknownOption", "models/vertical_ball.xml --bogus", 2, "unknown option '--bogus'"},
        BadInput{"UnsortedTaus", "models/vertical_ball.xml --taus 0.002,0.02", 2, "strictly decreasing"},
        BadInput{"NonPositiveTau", "models/vertical_ball.xml --taus 0.01,0", 2, "--taus must be positive"},
        BadInput{"NotANumber", "models/vertical_ball.xml --taus 0.01,abc", 2, "needs a finite number"},
        BadInput{"TooFewSteps", "models/vertical_ball.xml --steps-per-tau 1", 2, "--steps-per-tau"},
        BadInput{"SolimpTwoValues", "models/vertical_ball.xml --solimp 0.1,0.9", 2, "--solimp needs DMIN,DMAX,WIDTH"},
        BadInput{"SolimpOutOfRange", "models/vertical_ball.xml --solimp 0,0.95,0.05", 2, "DMIN and DMAX in [0.0001, 0.9999]"},
        BadInput{"SolimpBadPower", "models/vertical_ball.xml --solimp 0.1,0.9,0.05,0.5,0.5", 2, "POWER must be"},
        BadInput{"BadIntegrator", "models/vertical_ball.xml --integrator leapfrog", 2, "--integrator must be"},
        BadInput{"BackwardsWindow", "models/vertical_ball.xml --window 0.5,0.4", 2, "T0 < T1"},
        BadInput{"MissingValue", "models/vertical_ball.xml --taus", 2, "needs a value"},
        BadInput{"NoModelFile", "models/no_such_model.xml", 1, "cannot read model file"},
        BadInput{"NoKeyframe", "models/vertical_ball.xml --keyframe nope", 1, "no keyframe 'nope'"},
        BadInput{"NothingTouches", "models/two_blocks.xml --keyframe none --search 0.5", 1, "no touchdown within 0.5 s"},
        BadInput{"NoEventInWindow", "models/vertical_ball.xml --keyframe start --window 0.1,0.2", 1,
                 "no touchdown in the window [0.1, 0.2] s"},
        BadInput{"EmptyModelFile", "/dev/null", 1, "could not load"}),
    [](const ::testing::TestParamInfo<BadInput>& info) { return info.param.name; });

TEST(Compare, ModelWithOneGeomSaysSo) {
  const std::string path = TempPath("one_geom.xml");
  std::ofstream(path) << kOneGeom;
  const Result r = RunCli("compare " + path);
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_THAT(r.output, HasSubstr("has no geoms that could touch"));
}

TEST(Compare, HelpExitsZero) {
  const Result r = RunCli("compare --help");
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_THAT(r.output, HasSubstr("usage: saltation compare"));
  EXPECT_THAT(r.output, HasSubstr("--steps-per-tau"));
}

}  // namespace
}  // namespace saltation::testing
