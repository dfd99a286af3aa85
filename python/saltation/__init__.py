"""saltation: the saltation matrix Ξ at contact events of MuJoCo models, on the official
``mujoco`` bindings' own MjModel and MjData.

    import mujoco, saltation
    m = mujoco.MjModel.from_xml_path("robot.xml"); d = mujoco.MjData(m)
    hook = saltation.Hook(m)
    for _ in range(2000):
        hook.step(d)                    # instead of mujoco.mj_step(m, d)
    for ev in hook.events:
        print(ev.kind, ev.time, ev.geom1, ev.geom2, ev.xi.shape)

Errors are saltation.Error subclasses (ConfigError, NumericalError, MujocoError) with the
command line's messages; a MuJoCo error inside saltation raises MujocoError.
"""
import os as _os

import mujoco as _mujoco
import saltation_mujoco_plugin as _saltation_mujoco_plugin

from . import _core
from ._linking import loaded_mujoco_libraries as _loaded_mujoco_libraries
from ._linking import mismatch as _mismatch

_problem = _mismatch(_core.built_mujoco_version, _core.linked_mujoco_version(), _mujoco.__version__,
                     _loaded_mujoco_libraries())
if _problem:
    raise ImportError(_problem)

from ._core import ConfigError, Error, MujocoError, NumericalError  # noqa: E402
from ._events import Event, read_events  # noqa: E402
from ._hook import Hook  # noqa: E402
from ._analysis import Floquet, RigidEvents, floquet, rigid, state_labels  # noqa: E402
from ._viewer import draw_markers  # noqa: E402

__version__ = _core.__version__
mujoco_version = _core.linked_mujoco_version()


def plugin_library():
    """Path of the engine plugin library (for mujoco.mj_loadPluginLibrary; ``import mujoco``
    already loads it through the mujoco.plugins entry point when saltation is installed)."""
    path = _saltation_mujoco_plugin.library_path()
    if not _os.path.isfile(path):
        raise FileNotFoundError(f"saltation's engine plugin is missing: {path} (reinstall saltation)")
    return path


__all__ = ["Hook", "Event", "Floquet", "RigidEvents", "rigid", "floquet", "state_labels", "read_events", "plugin_library",
           "draw_markers", "Error", "ConfigError", "NumericalError", "MujocoError", "__version__",
           "mujoco_version"]
