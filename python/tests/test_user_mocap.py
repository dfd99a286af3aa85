"""A mocap body the user places between steps through the official bindings (d.mocap_pos /
d.mocap_quat, no mocap table): saltation.Hook and the engine plugin compute the touchdown with the
pose the step ran with, not the model's default pose."""
import json

import mujoco
import numpy as np

import saltation

HALF_THICKNESS = 0.02

# a frictionless ball on slides x, z (1 kg, plastic) above a thin pad whose default pose is 4 m
# away and flat; the test moves it under the ball and tilts it by θ about y
PAD = """
<mujoco>
  <option gravity="0 0 -9.81" timestep="0.001"/>
  <custom><numeric name="saltation_restitution" data="0"/></custom>
  {extension}
  <worldbody>
    <body name="pad" mocap="true" pos="4 0 0">
      <geom name="pad" type="box" size="0.5 0.5 0.02" condim="1"/>
    </body>
    <body name="ball" pos="0 0 0.3">
      <joint name="x" type="slide" axis="1 0 0"/>
      <joint name="z" type="slide" axis="0 0 1"/>
      <geom name="ball" type="sphere" size="0.05" mass="1" condim="1"/>
    </body>
  </worldbody>
</mujoco>"""


def place_pad(d, theta):
    d.mocap_pos[0] = [0.0, 0.0, 0.0]
    d.mocap_quat[0] = [np.cos(theta / 2), 0.0, np.sin(theta / 2), 0.0]  # rotation θ about y


def check_touchdown(td, theta):
    """Plastic, frictionless, M = I on (x, z): v⁺ = v⁻ − (v⁻·n) n with n = (sin θ, cos θ) the tilted
    pad's normal; the contact point on the pad's top face."""
    n = np.array([np.sin(theta), np.cos(theta)])
    v_minus, v_plus = td.f_minus[:2], td.f_plus[:2]  # F = (v, a): the state's velocity rows
    assert v_minus[1] < -1.0
    expected = v_minus - v_minus.dot(n) * n
    assert np.linalg.norm(expected) > 0.5  # the default (flat) pad's v⁺ would be 0
    np.testing.assert_allclose(v_plus, expected, rtol=0, atol=1e-14 * np.linalg.norm(v_minus))
    point = np.array([td.point[0], td.point[2]])
    assert abs(n.dot(point) - HALF_THICKNESS) < 1e-12


def test_the_hook_uses_the_pose_the_user_gave_the_pad():
    theta = 0.3
    m = mujoco.MjModel.from_xml_string(PAD.format(extension=""))
    d = mujoco.MjData(m)
    place_pad(d, theta)
    hook = saltation.Hook(m)
    touchdowns = []
    while d.time < 0.5 and not touchdowns:
        hook.step(d)
        touchdowns = [ev for ev in hook.events if ev.kind == "touchdown"]
    assert touchdowns, "no touchdown on the tilted pad"
    check_touchdown(touchdowns[0], theta)


def test_the_plugin_uses_the_pose_the_user_gave_the_pad(tmp_path):
    theta = -0.25
    log = tmp_path / "events.jsonl"
    extension = (f'<extension><plugin plugin="saltation.events"><instance name="events">'
                 f'<config key="log" value="{log}"/></instance></plugin></extension>')
    m = mujoco.MjModel.from_xml_string(PAD.format(extension=extension))
    d = mujoco.MjData(m)
    place_pad(d, theta)
    for _ in range(400):
        mujoco.mj_step(m, d)
    mujoco.mj_forward(m, d)  # the plugin sees the last step at the next evaluation
    header, *records = [json.loads(line) for line in log.read_text().splitlines()]
    touchdowns = [saltation.Event(r) for r in records if r["kind"] == "touchdown"]
    assert touchdowns, "the plugin logged no touchdown on the tilted pad"
    check_touchdown(touchdowns[0], theta)
