"""saltation.rigid on two capsules (the pair's points are our own, capsule_capsule_points.cc): a log
dropped across a static rail and one landing near parallel on it, against closed forms.

The rail: radius R = 0.05, half length 0.2, along x, its axis at z = 0.05. The log: radius r = 0.04,
half length L = 0.1, mass m = 1 (its centre of mass at its centre). Lying on the rail, the log's
centre is at z* = 0.05 + R + r = 0.14 when crossed, and at 0.05 + √((R + r)² − (L sin φ)²) when
turned φ from parallel about the vertical through the rail's centre (each end L sin φ off the
rail's axis; below the interior threshold it lies on its two ends). Dropped from rest with its
centre h above that, it touches down at t = √(2h/g), v⁻ = −g t.

Frictionless. Crossed (one contact, the interior point right below the centre of mass, its normal
vertical; the gap's gradient is e_z, tilts and sideways moves change it to second order only) the
impact is a ball's: with restitution e, Ξ[z, z] = Ξ[v_z, v_z] = −e, Ξ's other position rows the
identity's, and Ξ[v_z, z] = (a⁺ − (−e)(−g))/v⁻: (1 + e) g / |v⁻| bouncing off (a⁺ = −g), 0 with e = 0,
where the log stays on the rail with F⁺ = 0: its normal force is m g.
"""
import mujoco
import numpy as np
import pytest

import saltation

G, R_RAIL, R_LOG, HALF, RAIL_Z = 9.81, 0.05, 0.04, 0.1, 0.05

MODEL = """
<mujoco>
  <option gravity="0 0 -9.81"/>
  <worldbody>
    <geom name="rail" type="capsule" size="0.05 0.2" pos="0 0 0.05" euler="0 90 0" condim="1"/>
    <body name="log">
      <freejoint name="log"/>
      <geom name="log" type="capsule" size="0.04 0.1" euler="0 90 0" mass="1" condim="1"/>
    </body>
  </worldbody>
</mujoco>
"""


def log_at(z, yaw):
    """The model and a data with the log's centre at (0, 0, z), its axis turned yaw from the rail's
    about the vertical, at rest."""
    m = mujoco.MjModel.from_xml_string(MODEL)
    d = mujoco.MjData(m)
    d.qpos[:7] = [0, 0, z, np.cos(yaw / 2), 0, 0, np.sin(yaw / 2)]
    return m, d


def rest_height(yaw):
    """The log's centre height lying on the rail: crossed (yaw = π/2), or near parallel on its ends."""
    if abs(yaw - np.pi / 2) < 1e-12:
        return RAIL_Z + R_RAIL + R_LOG
    lateral = HALF * np.sin(yaw)
    return RAIL_Z + np.sqrt((R_RAIL + R_LOG) ** 2 - lateral ** 2)


def index(m, label):
    return saltation.state_labels(m).index(label)


@pytest.mark.parametrize("yaw", [np.pi / 2, 3e-5])
def test_the_log_rests_at_the_closed_form_height(yaw):
    """Started 1 mm into the rail, the start is projected out by exactly that: the rest height."""
    depth = 1e-3
    m, d = log_at(rest_height(yaw) - depth, yaw)
    events = saltation.rigid(m, d, duration=0.01, restitution=0)
    moved = events.start_projection
    assert len(moved["contacts"]) == (1 if yaw > 0.1 else 2)
    for label, how_deep in moved["contacts"]:
        assert label.startswith("rail/log")
        assert how_deep == pytest.approx(depth, abs=TOL["rest_depth"])
    assert moved["dq_norm"] == pytest.approx(depth, abs=TOL["rest_dq"])
    assert list(events) == []


@pytest.mark.parametrize("e", [0.0, 0.5])
def test_a_log_dropped_across_the_rail_lands_like_a_ball(e):
    h = 0.1
    m, d = log_at(rest_height(np.pi / 2) + h, np.pi / 2)
    t_touch = np.sqrt(2 * h / G)
    events = saltation.rigid(m, d, duration=t_touch + 0.01, restitution=e)
    assert [ev.kind for ev in events] == ["touchdown"]
    td = events[0]
    assert td.time == pytest.approx(t_touch, abs=TOL["time"])
    assert td.point == pytest.approx([0, 0, RAIL_Z + R_RAIL], abs=TOL["point"])
    z, vz = index(m, "q:log.z"), index(m, "v:log.z")
    v_minus = -G * t_touch
    xi = td.xi
    assert xi[z, z] == pytest.approx(-e, abs=TOL["xi"])
    assert xi[vz, vz] == pytest.approx(-e, abs=TOL["xi"])
    assert xi[vz, z] == pytest.approx((1 + e) * G / abs(v_minus) if e > 0 else 0, abs=TOL["xi"])
    # the position rows: the identity's but for z's, which is −e on z alone
    nq = len(xi) // 2
    expected = np.eye(nq, len(xi))
    expected[z, z] = -e
    np.testing.assert_allclose(xi[:nq], expected, atol=TOL["xi"])
    if e == 0:
        # at rest on the rail: F⁺ = 0, and the contact's reported normal force at the end is m g
        assert len(td.mode_after) == 1
        assert np.abs(td.f_plus).max() < TOL["f_plus"]
        [(label, force)] = events.final_forces
        assert label == td.mode_after[0]
        assert force == pytest.approx(m.body_mass[1] * G, abs=TOL["force"])


def test_a_log_landing_near_parallel_touches_on_both_ends_and_stays():
    """Turned φ = 3e-5 rad (below the interior threshold: its two ends carry the contact), dropped
    0.1 m with restitution 0: both ends touch at √(2h/g) as one impact and hold it, their normal
    forces carrying m g (F⁺'s a_z = 0). Ξ's z row is e_zᵀ − ∇gᵀ of the end whose guard fired
    (F⁺_z = 0, F⁻_z = ∇gᵀF⁻ = v⁻): its normal leans sideways by β = Lφ/(R + r), so
    ∇g = (0, ±β, 1, 0, ±L, ±Lβ) over (x, y, z, rx, ry, rz) — which end fired is round-off's choice,
    hence the signs."""
    yaw, h = 3e-5, 0.1
    m, d = log_at(rest_height(yaw) + h, yaw)
    t_touch = np.sqrt(2 * h / G)
    events = saltation.rigid(m, d, duration=t_touch + 0.01, restitution=0)
    assert [ev.kind for ev in events] == ["touchdown"]
    td = events[0]
    assert td.time == pytest.approx(t_touch, abs=TOL["time"])
    assert len(td.mode_after) == 2
    vz = index(m, "v:log.z")
    assert abs(td.f_plus[vz]) < TOL["f_plus_parallel"]
    beta = HALF * np.sin(yaw) / (R_RAIL + R_LOG)
    row = td.xi[index(m, "q:log.z")]
    expected = {"x": 0, "y": beta, "z": 0, "rx": 0, "ry": HALF, "rz": HALF * beta}
    for name, value in expected.items():
        assert abs(row[index(m, "q:log." + name)]) == pytest.approx(value, abs=TOL["xi_parallel"]), name
    assert np.abs(row[len(row) // 2:]).max() < TOL["xi_parallel"]  # no velocity column


# measured: rest depth 6e-18 (crossed) and 5.6e-13 (near parallel), its ‖Δq‖ 1.7e-10; touchdown time
# 1e-15; point 6.5e-16; Ξ entries 8e-15, position rows 5e-15; F⁺ 3.4e-14 (crossed, e = 0), its
# reported normal force − m g 0; near
# parallel a_z 9e-8, Ξ's z row 1.9e-9 (Ξ[z, z])
TOL = {"rest_depth": 5e-12, "rest_dq": 1e-9, "time": 1e-14, "point": 1e-14, "xi": 1e-13, "f_plus": 1e-12,
       "force": 1e-12, "f_plus_parallel": 5e-7, "xi_parallel": 4e-9}
