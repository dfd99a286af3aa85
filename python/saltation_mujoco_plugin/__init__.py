"""Loads the engine plugin ``saltation.events`` into MuJoCo.

MuJoCo's Python package calls :func:`load` while ``import mujoco`` runs (entry point group
``mujoco.plugins``), so any program that imports mujoco can load models declaring the plugin.
This module imports neither mujoco (half-initialised at that moment) nor ``saltation`` (which
imports mujoco): it only opens the library file that ships inside the ``saltation`` package.
"""
import ctypes
import importlib.util
import os

_handles = []


def library_path():
    """Path of libsaltation_events.so inside the installed ``saltation`` package."""
    spec = importlib.util.find_spec("saltation")
    if spec is None or not spec.submodule_search_locations:
        raise FileNotFoundError("the saltation package is not installed")
    return os.path.join(spec.submodule_search_locations[0], "libsaltation_events.so")


def load():
    """Opens the plugin library once; its constructor registers ``saltation.events``."""
    if _handles:
        return
    path = library_path()
    if not os.path.isfile(path):
        raise FileNotFoundError(f"saltation's engine plugin is missing: {path}")
    _handles.append(ctypes.CDLL(path))
