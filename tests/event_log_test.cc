// The self-describing JSON Lines log (docs/log-format.md): the header round-trips, records come
// in time order with their group ids, the compact matrices decode bit for bit and are ≥ 3×
// smaller on the humanoid, and the reader turns malformed input into LogFormatError, never a crash.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <set>
#include <string>

#include "saltation/event_csv.h"
#include "saltation/event_json.h"
#include "saltation/event_log_header.h"
#include "saltation/event_log_reader.h"
#include "saltation/loading.h"
#include "saltation/tangent.h"
#include "test_models.h"
#include "test_util.h"

namespace saltation {
namespace {
using namespace saltation::testing;

bool SameBits(const Eigen::MatrixXd& a, const Eigen::MatrixXd& b) {
  if (a.rows() != b.rows() || a.cols() != b.cols()) return false;
  for (Eigen::Index i = 0; i < a.size(); i++) {
    const double x = a.data()[i], y = b.data()[i];
    if (std::isnan(x) && std::isnan(y)) continue;  // NaN is written as null
    if (std::memcmp(&x, &y, sizeof(double)) != 0) return false;
  }
  return true;
}

// the old nested-array text of a matrix (%.17g), for the size comparison
std::string NestedMatrix(const Eigen::MatrixXd& A) {
  std::string out = "[";
  char buf[32];
  for (Eigen::Index i = 0; i < A.rows(); i++) {
    out += i ? ",[" : "[";
    for (Eigen::Index j = 0; j < A.cols(); j++) {
      std::snprintf(buf, sizeof(buf), "%.17g", A(i, j));
      out += (j ? "," : "") + std::string(buf);
    }
    out += "]";
  }
  return out + "]";
}

struct HumanoidRun {
  ModelPtr m;
  std::unique_ptr<Hook> hook;
  std::string log;                 // header + records, as record --out writes it
  std::vector<HookEvent> streamed; // in on_event order
};

// MuJoCo's humanoid falling for 1.5 s through the hook, logged as the CLI's record does
HumanoidRun& Humanoid() {
  static HumanoidRun* run = [] {
    auto* r = new HumanoidRun;
    char error[1000] = "";
    r->m.reset(mj_loadXML(SALTATION_MUJOCO_MODELS "/humanoid/humanoid.xml", nullptr, error, sizeof(error)));
    if (!r->m) throw std::runtime_error(error);
    r->hook = std::make_unique<Hook>(r->m.get());
    r->log = EventLogHeader(*r->hook, "tests/models/humanoid/humanoid.xml") + "\n";
    r->hook->on_event = [r](HookEvent& ev) {
      r->streamed.push_back(ev);
      r->log += HookEventToJson(r->hook->rigid_model(), ev) + "\n";
    };
    DataPtr d(mj_makeData(r->m.get()));
    while (d->time < 1.5) r->hook->Step(d.get());
    TakeMujocoWarnings();
    return r;
  }();
  return *run;
}

TEST(EventLog, HeaderRoundTripsWithMujocosJointNames) {
  HumanoidRun& run = Humanoid();
  const mjModel* m = run.m.get();
  const EventLog log = ParseEventLog(run.log, "humanoid.jsonl");
  const LogHeader& h = log.header;
  EXPECT_EQ(h.schema, kEventLogSchema);
  EXPECT_EQ(h.saltation_version, Version());
  EXPECT_EQ(h.mujoco_version, MujocoVersionName(mj_version()));
  EXPECT_EQ(h.model, "tests/models/humanoid/humanoid.xml");
  EXPECT_EQ(h.model_name, "Humanoid");  // <mujoco model="Humanoid">
  EXPECT_EQ(h.nq, m->nq);
  EXPECT_EQ(h.nv, m->nv);
  EXPECT_EQ(h.na, m->na);
  EXPECT_EQ(h.ndx, 2 * m->nv + m->na);
  EXPECT_EQ(h.timestep, m->opt.timestep);
  EXPECT_EQ(h.integrator, IntegratorName(m->opt.integrator));
  EXPECT_EQ(h.state_labels, StateLabels(m));
  ASSERT_EQ(static_cast<int>(h.state_units.size()), h.ndx);
  // every hinge joint of MuJoCo's model names its q and v rows
  int hinges = 0;
  for (int j = 0; j < m->njnt; j++) {
    if (m->jnt_type[j] != mjJNT_HINGE) continue;
    const std::string name = mj_id2name(m, mjOBJ_JOINT, j);
    const int dof = m->jnt_dofadr[j];
    EXPECT_EQ(h.state_labels[dof], "q:" + name);
    EXPECT_EQ(h.state_labels[m->nv + dof], "v:" + name);
    EXPECT_EQ(h.state_units[dof], "rad");
    hinges++;
  }
  EXPECT_GT(hinges, 10);
  EXPECT_EQ(h.state_labels[0].substr(0, 2), "q:");  // the free joint's x
  EXPECT_EQ(h.state_units[0], "m");
  // a unit for every field a record carries
  std::set<std::string> fields;
  for (const LogRecord& r : log.records) {
    for (size_t i = 0; i < r.json.keys().size(); i++) {
      if (r.json.items()[i].is_number() || r.json.items()[i].is_array() || r.json.items()[i].is_object()) {
        fields.insert(r.json.keys()[i]);
      }
    }
  }
  for (const char* labels : {"impact", "mode_before", "mode_after", "released"}) fields.erase(labels);  // not quantities
  for (const std::string& f : fields) EXPECT_TRUE(h.units.count(f)) << "no unit for " << f;
  const JsonValue* options = h.options.Find("grazing_threshold");
  ASSERT_TRUE(options && options->is_number());
  EXPECT_EQ(options->number(), 0.01);
  EXPECT_TRUE(h.options.Find("detect_margin")->number() > 0);  // resolved, not −1
}

TEST(EventLog, RecordsAreInTimeOrderWithGroupIds) {
  HumanoidRun& run = Humanoid();
  ASSERT_GT(run.streamed.size(), 20u);
  for (size_t i = 1; i < run.streamed.size(); i++) {
    EXPECT_LE(run.streamed[i - 1].time, run.streamed[i].time) << "record " << i << " (" << run.streamed[i].kind << ")";
  }
  const EventLog log = ParseEventLog(run.log, "humanoid.jsonl");  // the reader checks the order too
  ASSERT_EQ(log.records.size(), run.streamed.size());
  // every simultaneous record's group has members that carry its id, and the number it says
  int groups = 0;
  for (const LogRecord& r : log.records) {
    if (r.kind != "simultaneous") continue;
    groups++;
    int members = 0;
    for (const LogRecord& other : log.records) members += other.kind != "simultaneous" && other.group == r.group;
    EXPECT_GE(members, 1) << "group " << r.group;
  }
  std::printf("humanoid 1.5 s: %zu records, %d simultaneous groups\n", log.records.size(), groups);
}

TEST(EventLog, CompactMatricesDecodeBitForBitAndAreSmaller) {
  HumanoidRun& run = Humanoid();
  const EventLog log = ParseEventLog(run.log, "humanoid.jsonl");
  size_t compact = 0, nested = 0, with_xi = 0;
  for (size_t i = 0; i < log.records.size(); i++) {
    const HookEvent& ev = run.streamed[i];
    const LogRecord& r = log.records[i];
    EXPECT_EQ(r.time, ev.time);
    EXPECT_EQ(r.kind, EventKindName(ev.kind));
    if (ev.has_xi) {
      with_xi++;
      ASSERT_TRUE(r.HasMatrix("xi")) << "line " << r.line;
      EXPECT_TRUE(SameBits(r.Matrix("xi"), ev.rigid.xi.Dense())) << "line " << r.line;
      EXPECT_TRUE(SameBits(r.Matrix("dreset"), ev.rigid.xi.reset.Dense())) << "line " << r.line;
      EXPECT_TRUE(SameBits(r.Vector("grad_g"), ev.rigid.xi.grad_g)) << "line " << r.line;
      const Eigen::MatrixXd dreset = ev.rigid.xi.reset.Dense();
      compact += CompactMatrixJson(ev.rigid.xi.Dense(), &dreset, "dreset").size() + CompactMatrixJson(dreset).size();
      nested += NestedMatrix(ev.rigid.xi.Dense()).size() + NestedMatrix(ev.rigid.xi.reset.Dense()).size();
    }
    if (ev.kind == EventKind::kSimultaneous && ev.composite_first.n) {
      EXPECT_TRUE(SameBits(r.Matrix("composite_first"), ev.composite_first.Dense()));
      EXPECT_TRUE(SameBits(r.Matrix("composite_reverse"), ev.composite_reverse.Dense()));
    }
  }
  ASSERT_GT(with_xi, 10u);
  std::printf("humanoid: Ξ and DΔ of %zu events: %zu bytes compact, %zu nested (%.1f×)\n", with_xi, compact, nested,
              static_cast<double>(nested) / compact);
  EXPECT_GE(static_cast<double>(nested) / compact, 3.0);
}

TEST(EventLog, CompactFormKeepsSignedZerosAndNaNAndPicksTheBase) {
  Eigen::MatrixXd A = Eigen::MatrixXd::Zero(3, 4);
  A(0, 1) = -0.0;
  A(1, 2) = std::numeric_limits<double>::quiet_NaN();
  A(2, 3) = 0.1;
  const std::string zero = CompactMatrixJson(A);
  // bits 1, 6, 11 of the mask; three doubles
  EXPECT_EQ(zero.substr(0, 57), R"({"shape":[3,4],"base":"zero","mask":"Qgg=","data":"AAAAAA)") << zero;
  EXPECT_TRUE(SameBits(DecodeMatrix(ParseJson(zero), "A"), A));
  Eigen::MatrixXd B = Eigen::MatrixXd::Identity(5, 5);
  B(4, 0) = 1.0 / 3;
  const std::string identity = CompactMatrixJson(B);
  EXPECT_NE(identity.find(R"("base":"identity")"), std::string::npos) << identity;
  EXPECT_TRUE(SameBits(DecodeMatrix(ParseJson(identity), "B"), B));
  Eigen::MatrixXd C = Eigen::MatrixXd::Random(5, 5), D = C;
  D(2, 2) = 7;
  const std::string on_reference = CompactMatrixJson(D, &C, "dreset");
  EXPECT_NE(on_reference.find(R"("base":"dreset")"), std::string::npos) << on_reference;
  const std::map<std::string, Eigen::MatrixXd> fields = {{"dreset", C}};
  EXPECT_TRUE(SameBits(DecodeMatrix(ParseJson(on_reference), "D", &fields), D));
  EXPECT_THROW(DecodeMatrix(ParseJson(on_reference), "D"), LogFormatError);  // no dreset to stand on
  const Eigen::MatrixXd empty(0, 0);
  EXPECT_EQ(DecodeMatrix(ParseJson(CompactMatrixJson(empty)), "E").size(), 0);
  // numbers: the shortest text that reads back exactly
  for (double x : {0.1, 1.0 / 3, 5e-324, 1.7976931348623157e308, -2.5, 1e21}) {
    EXPECT_EQ(ParseJson(ShortestJsonNumber(x)).number(), x) << ShortestJsonNumber(x);
  }
}

// a valid log of two records to mutate
std::string SmallLog() {
  ModelPtr m = LoadModelFromString(VerticalBall(0.5));
  Hook hook(m.get());
  std::string log = EventLogHeader(hook, "ball.xml") + "\n";
  hook.on_event = [&](HookEvent& ev) { log += HookEventToJson(hook.rigid_model(), ev) + "\n"; };
  DataPtr d(mj_makeData(m.get()));
  while (d->time < 1.0) hook.Step(d.get());
  return log;
}

TEST(EventLog, ReaderRejectsMalformedLogsWithAClearMessage) {
  const std::string good = SmallLog();
  const EventLog log = ParseEventLog(good);
  ASSERT_GE(log.records.size(), 1u);
  const std::string header = good.substr(0, good.find('\n') + 1);
  const std::string record = good.substr(header.size(), good.find('\n', header.size()) - header.size() + 1);
  const std::string ndx = std::to_string(log.header.ndx);
  auto expect_error = [](const std::string& text, const std::string& words) {
    try {
      ParseEventLog(text, "t.jsonl");
      ADD_FAILURE() << "accepted: " << text.substr(0, 200);
    } catch (const LogFormatError& e) {
      EXPECT_NE(std::string(e.what()).find(words), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find("t.jsonl"), std::string::npos) << e.what();
    }
  };
  expect_error("", "no header");
  expect_error(record, "not the header");
  expect_error("{\"kind\":\"header\"", "expected");
  expect_error(header + "[1,2]\n", "must be a JSON object");
  expect_error(header + header, "second header");
  expect_error(header + "{\"time\":1,\"kind\":\"bounce\"}\n", "unknown kind");
  expect_error(header + "{\"time\":\"1\",\"kind\":\"chatter\"}\n", "\"time\" must be a number");
  expect_error(header + "{\"time\":2,\"kind\":\"chatter\"}\n{\"time\":1,\"kind\":\"chatter\"}\n", "out of time order");
  expect_error(header + "{\"time\":1e999,\"kind\":\"chatter\"}\n", "out of range");
  const std::string chatter = header + "{\"time\":1,\"kind\":\"chatter\",\"dreset\":";
  expect_error(chatter + "{\"shape\":[100000,100000],\"base\":\"zero\",\"mask\":\"\",\"data\":\"\"}}\n", "too large");
  expect_error(chatter + "{\"shape\":[1,1],\"base\":\"zero\",\"mask\":\"AA==\",\"data\":\"AAAAAAAAAAA=\"}}\n", "more entries");
  expect_error(chatter + "{\"shape\":[1,1],\"base\":\"zero\",\"mask\":\"AQ==\",\"data\":\"\"}}\n", "fewer entries");
  expect_error(chatter + "{\"shape\":[1,1],\"base\":\"zero\",\"mask\":\"!!!!\",\"data\":\"\"}}\n", "not base64");
  expect_error(chatter + "{\"shape\":[1,1],\"base\":\"zero\",\"mask\":\"Ag==\",\"data\":\"AAAAAAAAAAA=\"}}\n", "beyond");
  expect_error(chatter + "{\"shape\":[1,1],\"base\":\"xi\",\"mask\":\"AA==\",\"data\":\"\"}}\n", "base \"xi\"");
  expect_error(chatter + "{\"shape\":[1,1],\"base\":\"zero\",\"mask\":\"AA==\",\"data\":\"\"}}\n", "not ndx × ndx");
  expect_error(header + "{\"time\":1,\"kind\":\"chatter\",\"point\":[1,2]}\n", "array of 3 numbers");
  expect_error(header + "{\"time\":1,\"kind\":\"chatter\",\"dreset_dt\":[1,2,3]}\n", "\"dreset_dt\" must be an array of " + ndx);
  expect_error(header + "{\"time\":1,\"kind\":\"chatter\",\"dg_dt\":\"fast\"}\n", "\"dg_dt\" must be a number (or null), not a string");
  expect_error(header + "{\"time\":1,\"kind\":\"chatter\",\"geom1\":\"\\ud800\"}\n", "surrogate");
  expect_error(header + "{\"time\":1,\"kind\":\"chatter\",\"a\":1,\"a\":2}\n", "duplicate key");
  expect_error(header + std::string(100000, '[') + "\n", "nested deeper");
  std::string wrong_schema = header;
  wrong_schema.replace(wrong_schema.find(kEventLogSchema), std::strlen(kEventLogSchema), "saltation.events/99");
  expect_error(wrong_schema, "schema");
  std::string short_labels = header;
  short_labels.replace(short_labels.find("\"state_labels\":["), 16, "\"state_labels\":[\"x\",");
  expect_error(short_labels, "state_labels");
}

// Every field of a record is type-checked: a wrong type per field kind, an unknown field, kind or
// feature name, a state vector of the wrong length, a truncated file — each a LogFormatError
// naming the file, the line, the record's index and the field (before, a flag holding "yes", a
// count holding 1.5, a label list of numbers, an unknown field, feature name or impact member were
// accepted as written)
TEST(EventLog, ReaderTypeChecksEveryFieldOfARecord) {
  const std::string good = SmallLog();
  const std::string header = good.substr(0, good.find('\n') + 1);
  const int ndx = ParseEventLog(good).header.ndx;
  ASSERT_EQ(ndx, 2);  // VerticalBall: one slide joint
  const std::string chatter = "{\"time\":0.5,\"kind\":\"chatter\"}\n";
  auto expect_error = [&](const std::string& fields, const std::string& words) {
    // the bad record is the second (index 1, line 3), after a good one
    const std::string text = header + chatter + "{\"time\":1,\"kind\":\"liftoff\"" + fields + "}\n";
    try {
      ParseEventLog(text, "t.jsonl");
      ADD_FAILURE() << "accepted: " << fields;
    } catch (const LogFormatError& e) {
      EXPECT_NE(std::string(e.what()).find("t.jsonl:3: record 1"), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find(words), std::string::npos) << e.what();
    }
  };
  // flags: true or false only
  expect_error(",\"input_jump\":\"yes\"", "\"input_jump\" must be true or false, not a string");
  expect_error(",\"proxy\":1", "\"proxy\" must be true or false, not a number");
  expect_error(",\"grazing\":null", "\"grazing\" must be true or false, not null");
  // numbers: a number or null
  expect_error(",\"restitution\":\"0.5\"", "\"restitution\" must be a number (or null), not a string");
  expect_error(",\"xi_norm\":true", "\"xi_norm\" must be a number (or null), not true");
  expect_error(",\"min_gap\":[1]", "\"min_gap\" must be a number (or null), not an array");
  // counts: non-negative integers
  expect_error(",\"rank_after\":1.5", "\"rank_after\" must be a non-negative integer, not 1.5");
  expect_error(",\"group\":-1", "\"group\" must be a non-negative integer, not -1");
  expect_error(",\"size\":\"2\"", "\"size\" must be a non-negative integer, not a string");
  expect_error(",\"group\":2000000000", "\"group\" must be at most 2^30, not 2");
  // names and labels
  expect_error(",\"geom1\":3", "\"geom1\" must be a string, not a number");
  expect_error(",\"released\":[\"a/b\",1]", "\"released\" must be an array of strings");
  expect_error(",\"mode_after\":\"a/b\"", "\"mode_after\" must be an array of strings, not a string");
  expect_error(",\"feature\":\"corner\"", "\"feature\" is \"corner\", not a feature name");
  expect_error(",\"feature_before\":3", "\"feature_before\" must be a feature name, not a number");
  // vectors of their length, entries numbers or null
  expect_error(",\"point\":[0,0]", "\"point\" must be an array of 3 numbers, not one of 2");
  expect_error(",\"bracket\":[0,\"1\"]", "\"bracket\" must hold numbers (or null), not a string");
  expect_error(",\"grad_g\":[1]", "\"grad_g\" must be an array of " + std::to_string(ndx) + " numbers, not one of 1");
  expect_error(",\"f_minus\":{}", "\"f_minus\" must be an array of " + std::to_string(ndx) + " numbers, not an object");
  // the impact object, the matrices' shape
  expect_error(",\"impact\":{\"rank\":\"x\"}", "\"impact.rank\" must be a non-negative integer, not a string");
  expect_error(",\"impact\":{\"ranks\":1}", "\"impact\" has an unknown member \"ranks\"");
  expect_error(",\"impact\":[]", "\"impact\" must be an object, not an array");
  expect_error(",\"xi\":{\"shape\":[3,3],\"base\":\"identity\",\"mask\":\"AAA=\",\"data\":\"\"}",
               "\"xi\" is 3 × 3, not ndx × ndx = 2 × 2");
  expect_error(",\"xi\":[[1]]", "a matrix must be an object");
  // unknown fields, kinds; the failure record's own rules
  expect_error(",\"input-jump\":true", "unknown field \"input-jump\"");
  expect_error(",\"error\":\"boom\"", "\"error\" belongs to a failure record only");
  const auto refused = [&](const std::string& text, const std::string& words) {
    try {
      ParseEventLog(text, "t.jsonl");
      ADD_FAILURE() << "accepted: " << text.substr(header.size());
    } catch (const LogFormatError& e) {
      EXPECT_NE(std::string(e.what()).find(words), std::string::npos) << e.what();
    }
  };
  refused(header + chatter + "{\"time\":1,\"kind\":\"Touchdown\"}\n", "t.jsonl:3: record 1: unknown kind \"Touchdown\"");
  refused(header + chatter + "{\"time\":1,\"kind\":7}\n", "t.jsonl:3: record 1: \"kind\" must be a string");
  refused(header + "{\"time\":1,\"kind\":\"failure\"}\n", "t.jsonl:2: record 0: a failure record without its \"error\"");
  refused(header + "{\"time\":1,\"kind\":\"failure\",\"error\":\"x\",\"geom1\":\"a\"}\n",
          "record 0: a failure record holds only time, kind and error, not \"geom1\"");
  refused(header + "{\"time\":1,\"kind\":\"failure\",\"error\":\"x\"}\n" + chatter,
          "t.jsonl:3: record 1: a record after the failure record");
  // a truncated file: the last line cut in a matrix, or after a key
  const std::string last = good.substr(good.rfind('\n', good.size() - 2) + 1);
  const std::string cut = good.substr(0, good.size() - last.size()) + last.substr(0, last.find("\"dreset\"") + 20);
  refused(cut, "t.jsonl:" + std::to_string(std::count(cut.begin(), cut.end(), '\n') + 1));
  refused(header + "{\"time\":1,\"kind\":\"liftoff\",\"proxy\":", "t.jsonl:2: column");
  // what the writers write is accepted: a failure record last, every feature name, flags false
  const EventLog failed = ParseEventLog(header + chatter + "{\"time\":1,\"kind\":\"failure\",\"error\":\"unstable\"}\n");
  ASSERT_EQ(failed.records.size(), 2u);
  EXPECT_EQ(failed.records[1].kind, "failure");
  for (const char* name : {"face", "edge", "vertex", "cylinder", "cap", "caps", "cap-face", "cap-edge", "cap-vertex",
                           "cylinder-edge", "cylinder-vertex", "cyl-side", "cyl-face", "cyl-rim"}) {
    EXPECT_NO_THROW(ParseEventLog(header + "{\"time\":1,\"kind\":\"feature\",\"feature\":\"" + name +
                                  "\",\"feature_before\":\"" + name + "\",\"input_jump\":false}\n"))
        << name;
  }
}

// The CSV and the JSON record say the same of every flag (grazing, proxy, input_jump; a JSON flag
// absent is false) and of the restitution (a liftoff's too): on a run whose release is an input jump (the ball pulled off the plane by a
// control that steps between steps: tests/models/pulled_ball.xml), and on
// records without Ξ carrying each flag (before, the CSV had no input_jump column and the JSON of a
// record without Ξ dropped proxy and input_jump)
TEST(EventLog, CsvAndJsonAgreeOnEveryFlag) {
  ModelPtr m = LoadModel(SALTATION_SOURCE_DIR "/tests/models/pulled_ball.xml");
  Hook hook(m.get());
  std::vector<HookEvent> events;
  hook.on_event = [&](HookEvent& ev) { events.push_back(ev); };
  DataPtr d(mj_makeData(m.get()));
  while (d->time < 0.05) {
    d->ctrl[0] = d->time >= 0.02 ? 2 * 0.1 * 9.81 : 0.0;
    hook.Step(d.get());
  }
  int input_jumps = 0;
  for (const HookEvent& ev : events) input_jumps += ev.input_jump ? 1 : 0;
  ASSERT_EQ(input_jumps, 1);
  // records without Ξ carrying the flags, each alone and all together
  for (int bits = 0; bits < 8; bits++) {
    HookEvent ev;
    ev.kind = EventKind::kGraze;
    ev.time = 0.06;
    ev.contact = events.front().contact;
    ev.grazing = bits & 1;
    ev.proxy = bits & 2;
    ev.input_jump = bits & 4;
    events.push_back(ev);
  }
  std::vector<std::string> columns;
  const std::string csv_header = HookEventCsvHeader();
  for (size_t start = 0, comma; start <= csv_header.size(); start = comma + 1) {
    comma = std::min(csv_header.find(',', start), csv_header.size());
    columns.push_back(csv_header.substr(start, comma - start));
  }
  std::string log = EventLogHeader(hook, "ball.xml") + "\n";
  for (const HookEvent& ev : events) log += HookEventToJson(hook.rigid_model(), ev) + "\n";
  const EventLog read = ParseEventLog(log, "flags.jsonl");
  ASSERT_EQ(read.records.size(), events.size());
  int flags_true = 0, liftoffs_with_e = 0;
  for (size_t i = 0; i < events.size(); i++) {
    const std::string row = HookEventToCsv(hook.rigid_model(), events[i]);
    std::vector<std::string> cells;
    for (size_t start = 0, comma; start <= row.size(); start = comma + 1) {
      comma = std::min(row.find(',', start), row.size());
      cells.push_back(row.substr(start, comma - start));
    }
    ASSERT_EQ(cells.size(), columns.size()) << row;
    // the restitution cell holds the JSON's value where it has one (a liftoff's too), else is empty
    const size_t rc = std::find(columns.begin(), columns.end(), "restitution") - columns.begin();
    ASSERT_LT(rc, columns.size());
    const JsonValue* e = read.records[i].json.Find("restitution");
    if (e && e->is_number()) {
      EXPECT_EQ(cells[rc].empty() ? -1.0 : std::stod(cells[rc]), e->number()) << "record " << i << ": " << row;
      liftoffs_with_e += events[i].kind == EventKind::kLiftoff ? 1 : 0;
    } else {
      EXPECT_EQ(cells[rc], "") << "record " << i << ": " << row;
    }
    for (const char* flag : {"grazing", "proxy", "input_jump"}) {
      const size_t c = std::find(columns.begin(), columns.end(), flag) - columns.begin();
      ASSERT_LT(c, columns.size()) << flag << " has no CSV column";
      const JsonValue* json = read.records[i].json.Find(flag);
      const bool in_json = json && json->boolean();
      EXPECT_EQ(cells[c], in_json ? "true" : "false") << flag << " of record " << i << ": " << row;
      flags_true += in_json ? 1 : 0;
    }
  }
  EXPECT_GE(flags_true, 1 + 12);  // the input jump, and 4 × 3 set on the records without Ξ
  EXPECT_EQ(liftoffs_with_e, 1);  // the input-jump liftoff: its pair's e in both (the CSV's cell was empty)
}

TEST(EventLog, ReaderSurvivesRandomMutations) {
  // what a fuzzer does, deterministic: flips, cuts and splices; every outcome a log or a
  // LogFormatError (anything else, or a crash, fails)
  const std::string good = SmallLog();
  std::mt19937 rng(16);
  const char alphabet[] = "{}[]\",:0123456789-+.eEnulltruefalse\\u \n\x01\xff";
  int accepted = 0, rejected = 0;
  for (int trial = 0; trial < 3000; trial++) {
    std::string s = good;
    const int edits = 1 + static_cast<int>(rng() % 4);
    for (int e = 0; e < edits && !s.empty(); e++) {
      const size_t at = rng() % s.size();
      switch (rng() % 4) {
        case 0: s[at] = alphabet[rng() % (sizeof(alphabet) - 1)]; break;
        case 1: s.erase(at, 1 + rng() % 16); break;
        case 2: s.insert(at, 1, alphabet[rng() % (sizeof(alphabet) - 1)]); break;
        case 3: s.resize(at); break;
      }
    }
    try {
      ParseEventLog(s, "mutant");
      accepted++;
    } catch (const LogFormatError&) {
      rejected++;
    }
  }
  EXPECT_GT(rejected, 1000);
  std::printf("3000 mutants: %d accepted, %d rejected with LogFormatError\n", accepted, rejected);
}

TEST(EventLog, CsvHasAColumnPerFlagAndEmptyCellsWhereAFieldDoesNotApply) {
  HumanoidRun& run = Humanoid();
  const std::string header = HookEventCsvHeader();
  const auto columns = [](const std::string& row) { return std::count(row.begin(), row.end(), ',') + 1; };
  const long n = columns(header);
  EXPECT_EQ(header.find("detail"), std::string::npos);
  bool saw_liftoff = false;
  for (const HookEvent& ev : run.streamed) {
    const std::string row = HookEventToCsv(run.hook->rigid_model(), ev);
    ASSERT_EQ(columns(row), n) << row;
    if (ev.kind == EventKind::kLiftoff) {
      saw_liftoff = true;
      // a liftoff's restitution: its pair's e at the event, as its JSON record has it (not empty)
      std::vector<std::string> cells;
      size_t start = 0;
      for (size_t c; (c = row.find(',', start)) != std::string::npos; start = c + 1) cells.push_back(row.substr(start, c - start));
      ASSERT_NE(cells[5], "") << row;
      EXPECT_EQ(std::stod(cells[5]), ev.rigid.restitution) << row;
      EXPECT_NE(cells[6], "") << row;  // transversality
    }
  }
  EXPECT_TRUE(saw_liftoff);
}

}  // namespace
}  // namespace saltation
