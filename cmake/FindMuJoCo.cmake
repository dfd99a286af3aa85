# FindMuJoCo: the MuJoCo C SDK shipped inside the Python package index's `mujoco-core` wheel
# (mujoco/libmujoco.so.X.Y.Z and mujoco/include/mujoco/*.h in the installed package).
#
# Where to look, first hit wins:
#   MUJOCO_ROOT        a directory holding include/mujoco/mujoco.h and libmujoco.so.* (the wheel's
#                      `mujoco` package directory, or any such SDK tree; lib/ is searched too);
#   MUJOCO_PYTHON      a Python interpreter whose environment has mujoco installed
#                      (default: <source>/.venv/bin/python, which scripts/bootstrap creates).
# System directories are NOT searched: Debian's own MuJoCo package (2.2.2) may be installed beside.
#
# Defines the imported target mujoco::mujoco, MuJoCo_FOUND, MuJoCo_VERSION (from mujoco.h's
# mjVERSION_HEADER), MuJoCo_INCLUDE_DIR, MuJoCo_LIBRARY, MuJoCo_ROOT. Honours
# find_package(MuJoCo <version> EXACT).

if(NOT MUJOCO_ROOT)
  if(NOT MUJOCO_PYTHON)
    foreach(_mj_src IN ITEMS "${PROJECT_SOURCE_DIR}" "${CMAKE_SOURCE_DIR}")
      if(EXISTS "${_mj_src}/.venv/bin/python")
        set(MUJOCO_PYTHON "${_mj_src}/.venv/bin/python")
        break()
      endif()
    endforeach()
  endif()
  if(MUJOCO_PYTHON)
    # located without importing the bindings (which load numpy): only the package directory
    execute_process(
      COMMAND "${MUJOCO_PYTHON}" -c
              "import importlib.util as u; print(u.find_spec('mujoco').submodule_search_locations[0])"
      OUTPUT_VARIABLE _mj_dir OUTPUT_STRIP_TRAILING_WHITESPACE
      RESULT_VARIABLE _mj_rc ERROR_QUIET)
    if(_mj_rc EQUAL 0 AND EXISTS "${_mj_dir}/include/mujoco/mujoco.h")
      set(MUJOCO_ROOT "${_mj_dir}" CACHE PATH "MuJoCo SDK directory (include/mujoco, libmujoco.so.*)")
    endif()
  endif()
endif()

set(MuJoCo_ROOT "${MUJOCO_ROOT}")
unset(MuJoCo_INCLUDE_DIR CACHE)
unset(MuJoCo_LIBRARY CACHE)
if(MUJOCO_ROOT)
  find_path(MuJoCo_INCLUDE_DIR mujoco/mujoco.h
            PATHS "${MUJOCO_ROOT}/include" NO_DEFAULT_PATH)
endif()

if(MuJoCo_INCLUDE_DIR)
  file(STRINGS "${MuJoCo_INCLUDE_DIR}/mujoco/mujoco.h" _mj_line
       REGEX "^#define[ \t]+mjVERSION_HEADER[ \t]+[0-9]+")
  string(REGEX REPLACE ".*mjVERSION_HEADER[ \t]+([0-9]+).*" "\\1" _mj_num "${_mj_line}")
  if(_mj_num GREATER_EQUAL 1000000)
    # 3.x and later: major * 1000000 + minor * 1000 + patch (4000001 = 4.0.1)
    math(EXPR _mj_major "${_mj_num} / 1000000")
    math(EXPR _mj_minor "(${_mj_num} / 1000) % 1000")
    math(EXPR _mj_patch "${_mj_num} % 1000")
  else()
    # 2.x: three digits (222 = 2.2.2)
    math(EXPR _mj_major "${_mj_num} / 100")
    math(EXPR _mj_minor "(${_mj_num} / 10) % 10")
    math(EXPR _mj_patch "${_mj_num} % 10")
  endif()
  set(MuJoCo_VERSION "${_mj_major}.${_mj_minor}.${_mj_patch}")
  # the wheel ships only the versioned file (a wheel holds no symlinks): look for it by name
  find_library(MuJoCo_LIBRARY
               NAMES "libmujoco.so.${MuJoCo_VERSION}" mujoco
               PATHS "${MUJOCO_ROOT}" "${MUJOCO_ROOT}/lib" NO_DEFAULT_PATH)
endif()

include(FindPackageHandleStandardArgs)
find_package_handle_standard_args(MuJoCo
  REQUIRED_VARS MuJoCo_LIBRARY MuJoCo_INCLUDE_DIR
  VERSION_VAR MuJoCo_VERSION
  FAIL_MESSAGE "MuJoCo not found: run scripts/bootstrap (it installs the pinned mujoco-core wheel into .venv/), or pass -DMUJOCO_ROOT=<dir with include/mujoco and libmujoco.so.*> or -DMUJOCO_PYTHON=<python with mujoco installed>")

if(MuJoCo_FOUND AND NOT TARGET mujoco::mujoco)
  add_library(mujoco::mujoco SHARED IMPORTED)
  get_filename_component(_mj_soname "${MuJoCo_LIBRARY}" NAME)
  set_target_properties(mujoco::mujoco PROPERTIES
    IMPORTED_LOCATION "${MuJoCo_LIBRARY}"
    IMPORTED_SONAME "${_mj_soname}"
    INTERFACE_INCLUDE_DIRECTORIES "${MuJoCo_INCLUDE_DIR}")
endif()
mark_as_advanced(MuJoCo_INCLUDE_DIR MuJoCo_LIBRARY)
