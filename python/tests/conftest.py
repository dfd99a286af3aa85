"""Shared fixtures: the repository, the C++ command line built by scripts/build, models of our own."""
import os
import pathlib
import subprocess

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
CLI = pathlib.Path(os.environ.get("SALTATION_CLI", ROOT / "build" / "tools" / "saltation"))

# a free ball thrown at a tilted box and a tumbling cube on a plane: touchdowns, liftoffs,
# simultaneous corners, near misses (restitution 0.5 from the <custom> field)
SCENE = """
<mujoco>
  <option gravity="0 0 -9.81" timestep="0.002"/>
  <custom><numeric name="saltation_restitution" data="0.5"/></custom>
  {extension}
  <worldbody>
    <geom name="floor" type="plane" size="3 3 0.1"/>
    <geom name="ramp" type="box" size="0.3 0.3 0.05" pos="1.2 0 0.05" euler="0 -10 0"/>
    <body name="ball" pos="0 0 0.6">
      <freejoint name="ball"/>
      <geom name="ball" type="sphere" size="0.1" mass="1"/>
    </body>
    <body name="cube" pos="-0.5 0.3 0.4" euler="20 10 0">
      <freejoint name="cube"/>
      <geom name="cube" type="box" size="0.08 0.08 0.08" mass="0.5"/>
    </body>
  </worldbody>
  <keyframe><key name="throw" qpos="0 0 0.6 1 0 0 0 -0.5 0.3 0.4 1 0 0 0" qvel="1.5 0 1 0 0 0 0 0 0 0 0 0"/></keyframe>
  {sensor}
</mujoco>
"""


def scene(plugin=False, config=""):
    """The scene's MJCF, with the engine plugin's instance (config lines inside) and sensor."""
    if not plugin:
        return SCENE.format(extension="", sensor="")
    return SCENE.format(
        extension=f'<extension><plugin plugin="saltation.events"><instance name="events">{config}'
                  '</instance></plugin></extension>',
        sensor='<sensor><plugin name="saltation" instance="events"/></sensor>')


@pytest.fixture
def cli():
    """Runs the saltation command; returns the CompletedProcess (fails the test if it is missing)."""
    if not CLI.exists():
        pytest.fail(f"{CLI} not built: run scripts/build (or set SALTATION_CLI)")

    def run(*args, check=True):
        r = subprocess.run([str(CLI), *map(str, args)], capture_output=True, text=True, timeout=600)
        if check and r.returncode != 0:
            pytest.fail(f"saltation {' '.join(map(str, args))} failed ({r.returncode}):\n{r.stdout}\n{r.stderr}")
        return r

    return run


@pytest.fixture
def scene_file(tmp_path):
    path = tmp_path / "scene.xml"
    path.write_text(scene())
    return path
