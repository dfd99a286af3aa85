"""The check that saltation._core and ``mujoco`` run on one and the same MuJoCo library."""


def mismatch(built, linked, mujoco_version, libraries):
    """A message saying what does not match, or None.

    built: the MuJoCo version saltation was compiled against; linked: mj_versionString() of the
    library saltation._core calls; mujoco_version: mujoco.__version__; libraries: the distinct
    libmujoco files loaded in this process.
    """
    if linked != built:
        return (f"saltation was built against MuJoCo {built} but its module loads MuJoCo {linked}: "
                f"reinstall saltation against mujoco=={linked}, or install mujoco=={built}")
    if mujoco_version != built:
        return (f"saltation was built against MuJoCo {built} but the mujoco package is {mujoco_version}: "
                f"install mujoco=={built} (pip uninstall mujoco mujoco-core mujoco-studio first), "
                f"or rebuild saltation against {mujoco_version}")
    if len(libraries) > 1:
        return ("two MuJoCo libraries are loaded in this process (" + ", ".join(sorted(libraries)) +
                "): saltation must use the one the mujoco package loads (install both into one environment)")
    return None


def loaded_mujoco_libraries():
    """Distinct libmujoco files mapped into this process (Linux: /proc/self/maps)."""
    found = set()
    try:
        with open("/proc/self/maps") as maps:
            for line in maps:
                path = line.split(maxsplit=5)[-1].strip() if len(line.split(maxsplit=5)) == 6 else ""
                name = path.rsplit("/", 1)[-1]
                if name.startswith("libmujoco.so"):
                    found.add(path)
    except OSError:
        pass
    return found
