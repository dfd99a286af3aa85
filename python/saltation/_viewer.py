"""Event markers in mujoco.viewer (launch_passive's user scene) or any mujoco.MjvScene."""
import mujoco
import numpy as np


def draw_markers(scene, hook, time, fade=1.0):
    """Replaces the scene's user geoms by the markers of the hook's events no older than fade s
    at time (spheres coloured by kind, grazing in amber, sized by log ‖Ξ‖ — the C++ viewer's and
    the engine plugin's markers). scene: a mujoco.MjvScene or a passive viewer (its user_scn).
    Returns the number of markers drawn (fewer when the scene is full)."""
    scn = getattr(scene, "user_scn", scene)
    scn.ngeom = 0
    drawn = 0
    for pos, radius, rgba in hook.markers(time, fade):
        if scn.ngeom >= scn.maxgeom:
            break
        mujoco.mjv_initGeom(scn.geoms[scn.ngeom], mujoco.mjtGeom.mjGEOM_SPHERE, np.array([radius, radius, radius]),
                            np.array(pos, dtype=float), np.eye(3).flatten(), np.array(rgba, dtype=np.float32))
        scn.geoms[scn.ngeom].category = mujoco.mjtCatBit.mjCAT_DECOR
        scn.ngeom += 1
        drawn += 1
    return drawn
