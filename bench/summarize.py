#!/usr/bin/env python3
"""Turns saltation_bench's Google Benchmark JSON into issue 15's table or its one JSON object.

  summarize.py [--json] [--check] < bench.json          read the JSON saltation_bench wrote
  summarize.py [--json] [--check] --run BINARY [ARGS]   run BINARY ARGS --benchmark_format=json

--json prints one JSON object (the keys of KEYS); without it a table of the figures next to the
issue's targets. --check: exit 1 naming every required key that is missing or not a finite number.
Reads only its input (or the binary's stdout); writes stdout, and stderr for errors.
"""
import json
import math
import subprocess
import sys

# key -> (benchmark, counter, what, target); counters of one benchmark
KEYS = [
    ("stepping_events_humanoid", "Stepping/humanoid", "ratio_on_demand_to_plain",
     "stepping thread (events only, Ξ on demand) / mj_step, humanoid", "≤ 1.05×"),
    ("stepping_events_humanoid100", "Stepping/humanoid100", "ratio_on_demand_to_plain",
     "  … humanoid100 (humanoid + 100 free objects)", "≤ 1.1×"),
    ("stepping_events_balls1", "Stepping/balls1", "ratio_on_demand_to_plain", "  … 1 ball", ""),
    ("stepping_events_balls5", "Stepping/balls5", "ratio_on_demand_to_plain", "  … 5 balls", ""),
    ("stepping_events_balls20", "Stepping/balls20", "ratio_on_demand_to_plain", "  … 20 balls", ""),
    ("stepping_events_balls50", "Stepping/balls50", "ratio_on_demand_to_plain", "  … 50 balls", "≤ 1.1×"),
    ("stepping_worker_humanoid", "Stepping/humanoid", "ratio_worker_step_to_plain",
     "  … with the worker thread: Step alone (queue not full), humanoid", "≤ 1.05×"),
    ("stepping_worker_humanoid100", "Stepping/humanoid100", "ratio_worker_step_to_plain", "    … humanoid100", "≤ 1.1×"),
    ("stepping_worker_balls50", "Stepping/balls50", "ratio_worker_step_to_plain", "    … 50 balls", "≤ 1.1×"),
    ("stepping_worker_median_humanoid", "Stepping/humanoid", "ratio_worker_step_median_to_plain",
     "  … the same, median over the blocks of 10 steps, humanoid", "≤ 1.05×"),
    ("stepping_worker_median_humanoid100", "Stepping/humanoid100", "ratio_worker_step_median_to_plain",
     "    … humanoid100", "≤ 1.1×"),
    ("stepping_worker_median_balls50", "Stepping/balls50", "ratio_worker_step_median_to_plain", "    … 50 balls", "≤ 1.1×"),
    ("stepping_worker_cpu_humanoid", "Stepping/humanoid", "ratio_worker_step_cpu_to_plain",
     "  … the same in the stepping thread's CPU time (no wait for a processor), humanoid", ""),
    ("stepping_worker_cpu_humanoid100", "Stepping/humanoid100", "ratio_worker_step_cpu_to_plain", "    … humanoid100", ""),
    ("stepping_worker_cpu_balls50", "Stepping/balls50", "ratio_worker_step_cpu_to_plain", "    … 50 balls", ""),
    ("throughput_worker_humanoid", "Stepping/humanoid", "ratio_worker_throughput_to_plain",
     "  … with the worker thread: Step + Sync over the run, humanoid", ""),
    ("throughput_worker_humanoid100", "Stepping/humanoid100", "ratio_worker_throughput_to_plain", "    … humanoid100", ""),
    ("throughput_worker_balls50", "Stepping/balls50", "ratio_worker_throughput_to_plain", "    … 50 balls", ""),
    ("worker_thread_cpu_humanoid", "Stepping/humanoid", "ratio_worker_thread_cpu_to_plain",
     "  … the worker thread's CPU time over the run / mj_step's, humanoid", ""),
    ("worker_thread_cpu_humanoid100", "Stepping/humanoid100", "ratio_worker_thread_cpu_to_plain", "    … humanoid100", ""),
    ("worker_thread_cpu_balls50", "Stepping/balls50", "ratio_worker_thread_cpu_to_plain", "    … 50 balls", ""),
    ("stepping_eager_humanoid", "Stepping/humanoid", "ratio_eager_to_plain",
     "hook with Ξ at every event / mj_step, humanoid", ""),
    ("xi_touchdown_humanoid_forwards", "XiTouchdown/humanoid", "xi_in_forwards",
     "Ξ per touchdown, humanoid (mj_forward units)", "≤ 15"),
    ("xi_touchdown_humanoid100_forwards", "XiTouchdown/humanoid100", "xi_in_forwards",
     "Ξ per touchdown of the humanoid in humanoid100 (mj_forward units)", ""),
    ("xi_touchdown_balls1_forwards", "XiTouchdown/balls1", "xi_in_forwards", "Ξ per touchdown, 1 ball (mj_forward units)", ""),
    ("xi_touchdown_balls5_forwards", "XiTouchdown/balls5", "xi_in_forwards", "  … 5 balls", ""),
    ("xi_touchdown_balls20_forwards", "XiTouchdown/balls20", "xi_in_forwards", "  … 20 balls", ""),
    ("xi_touchdown_balls50_forwards", "XiTouchdown/balls50", "xi_in_forwards", "  … 50 balls", ""),
    ("simultaneous_over_touchdown", "Simultaneous/level_balls4", "ratio_simultaneous_to_touchdown",
     "Ξ per simultaneous group / one touchdown of it (4 balls dropped level)", "≤ 3×"),
    ("phi_rigid_over_transitionfd_humanoid", "PhiRigid/humanoid", "ratio_rigid_to_transitionFD",
     "rigid Φ per step / mjd_transitionFD (fair), humanoid", "≤ 0.5"),
    ("closed_form_bias_us", "ClosedFormBias/round_trio", "bias_us",
     "J̇v in closed form, 3 contacts (sphere–sphere, sphere–capsule, capsule–capsule) of free bodies (µs)", ""),
    ("closed_form_evaluate_us", "ClosedFormBias/round_trio", "evaluate_us", "  … EvaluateMode of that mode (µs)", ""),
    ("construct_ms_humanoid", "Construct/humanoid", "construct_ms", "hook construction, humanoid (ms)", "≤ 5 ms"),
    ("construct_ms_balls1", "Construct/balls1", "construct_ms", "  … 1 ball (ms)", ""),
    ("construct_ms_humanoid100", "Construct/humanoid100", "construct_ms", "  … humanoid100 (ms)", ""),
    ("extra_mib_humanoid", "Construct/humanoid", "extra_mib", "hook's extra heap, humanoid (MiB)", "≤ 20 MiB"),
    ("peak_extra_mib_humanoid", "Construct/humanoid", "peak_extra_mib", "  … peak over 1 s (MiB)", ""),
    ("resident_extra_mib_humanoid", "Construct/humanoid", "resident_extra_mib", "  … resident (MiB)", ""),
    ("extra_mib_balls1", "Construct/balls1", "extra_mib", "  … 1 ball (MiB)", ""),
    ("extra_mib_humanoid100", "Construct/humanoid100", "extra_mib", "  … humanoid100 (MiB)", ""),
    ("stepping_events_22_humanoids", "TwentyTwoHumanoids", "ratio_on_demand_to_plain",
     "stepping thread / mj_step, MuJoCo's 22 humanoids, 1 s", ""),
    ("stepping_worker_22_humanoids", "TwentyTwoHumanoids", "ratio_worker_step_to_plain",
     "  … with the worker thread: Step alone (queue not full)", "≤ 1.1×"),
    ("stepping_worker_median_22_humanoids", "TwentyTwoHumanoids", "ratio_worker_step_median_to_plain",
     "    … median over the blocks of 10 steps", "≤ 1.1×"),
    ("stepping_worker_cpu_22_humanoids", "TwentyTwoHumanoids", "ratio_worker_step_cpu_to_plain",
     "    … in the stepping thread's CPU time (no wait for a processor)", ""),
    ("throughput_worker_22_humanoids", "TwentyTwoHumanoids", "ratio_worker_throughput_to_plain",
     "  … with the worker thread: Step + Sync over the second", ""),
    ("worker_thread_cpu_22_humanoids", "TwentyTwoHumanoids", "ratio_worker_thread_cpu_to_plain",
     "    … the worker thread's CPU time / mj_step's", ""),
    ("rigid_pile25_s", "RigidPile/25", "run_s", "rigid reference, pile of 25 bodies, 0.3 s (s; quick: 0.2 s)", ""),
    ("rigid_pile50_s", "RigidPile/50", "run_s", "  … 50 bodies (s)", ""),
    ("rigid_pile100_s", "RigidPile/100", "run_s", "  … 100 bodies (s)", ""),
    ("record_eager_humanoid100", "RecordEager/humanoid100", "ratio_eager_to_plain",
     "record humanoid100, 1 s, Ξ at every event / MuJoCo alone", "≤ 20×"),
    ("record_eager_cpu_humanoid100", "RecordEager/humanoid100", "cpu_ratio_eager_to_plain",
     "  … in the thread's CPU time", "≤ 20×"),
    ("record_eager_peak_mib_humanoid100", "RecordEager/humanoid100", "peak_extra_mib",
     "  … the heap it held at most (MiB)", ""),
    ("plugin_over_plain_humanoid", "PluginOverhead/humanoid", "ratio_plugin_to_plain",
     "mj_step with the engine plugin / without, humanoid", ""),
]
# ratios of two benchmarks' counters: key -> (numerator, denominator, counter, what, target)
RATIOS = [
    ("xi_touchdown_balls50_over_balls1", "XiTouchdown/balls50", "XiTouchdown/balls1", "xi_us",
     "Ξ per touchdown, one ball among 50 / a ball alone (time)", "≤ 2×"),
    ("xi_touchdown_humanoid100_over_humanoid", "XiTouchdown/humanoid100", "XiTouchdown/humanoid", "xi_us",
     "Ξ per touchdown, the humanoid among 100 objects / alone (time)", "≤ 2×"),
]
REQUIRED = ["stepping_events_humanoid", "stepping_events_humanoid100", "stepping_events_balls50",
            "xi_touchdown_humanoid_forwards", "xi_touchdown_balls50_over_balls1", "simultaneous_over_touchdown",
            "phi_rigid_over_transitionfd_humanoid", "construct_ms_humanoid", "extra_mib_humanoid", "rigid_pile25_s"]


def counters(report):
    """benchmark name (without /iterations:N) -> its counters; skipped ones are left out"""
    out = {}
    for b in report.get("benchmarks", []):
        if b.get("error_occurred") or b.get("skipped"):
            continue
        name = b.get("run_name", b["name"]).split("/iterations:")[0]
        out[name] = b
    return out


def summarize(report):
    c = counters(report)
    values = {}
    for key, bench, counter, _, _ in KEYS:
        if bench in c and counter in c[bench]:
            values[key] = float(c[bench][counter])
    for key, num, den, counter, _, _ in RATIOS:
        if num in c and den in c and counter in c[num] and counter in c[den] and c[den][counter] > 0:
            values[key] = float(c[num][counter]) / float(c[den][counter])
    return values


def table(values):
    rows = [(key, what, target) for key, _, _, what, target in KEYS] + \
           [(key, what, target) for key, _, _, _, what, target in RATIOS]
    width = max(len(what) for _, what, _ in rows)
    lines = [f"{'measure':<{width}}  {'measured':>10}  target", "-" * (width + 22)]
    for key, what, target in rows:
        v = values.get(key)
        shown = "—" if v is None else (f"{v:.3g}" if abs(v) < 1000 else f"{v:,.0f}")
        lines.append(f"{what:<{width}}  {shown:>10}  {target}")
    return "\n".join(lines)


def main(argv):
    as_json = "--json" in argv
    check = "--check" in argv
    rest = [a for a in argv if a not in ("--json", "--check")]
    if rest and rest[0] == "--run":
        if len(rest) < 2:
            print("summarize.py: --run needs the benchmark binary", file=sys.stderr)
            return 2
        run = subprocess.run(rest[1:] + ["--benchmark_format=json"], stdout=subprocess.PIPE, text=True)
        if run.returncode != 0:
            print(f"summarize.py: {rest[1]} exited with {run.returncode}", file=sys.stderr)
            return 1
        text = run.stdout
    elif rest:
        print(f"summarize.py: unknown arguments {' '.join(rest)}", file=sys.stderr)
        return 2
    else:
        text = sys.stdin.read()
    try:
        report = json.loads(text)
    except json.JSONDecodeError as e:
        print(f"summarize.py: not Google Benchmark JSON: {e}", file=sys.stderr)
        return 1
    values = summarize(report)
    for b in report.get("benchmarks", []):
        if b.get("error_occurred"):  # its row shows "—": say why
            print(f"summarize.py: {b.get('name')}: {b.get('error_message', 'error')}", file=sys.stderr)
    print(json.dumps(values, indent=1, sort_keys=True) if as_json else table(values))
    if check:
        bad = [k for k in REQUIRED if k not in values or not math.isfinite(values[k])]
        if bad:
            print("summarize.py: missing or not finite: " + ", ".join(bad), file=sys.stderr)
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
