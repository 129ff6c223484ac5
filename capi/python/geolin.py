"""Python bindings of the geolin C API (geolin.h) with ctypes: standard library only.

Forward dynamics of moving-base robots loaded from URDF and its exact left-trivialized
linearization. The library is found from the environment variable GEOLIN_LIBRARY (a path to
libgeolin.so.0), else by its name on the system's search path.

Arrays are plain Python sequences of floats (lists, tuples, array.array, or numpy arrays when
numpy is installed); results are lists, and matrices are returned column-major as flat lists
together with their shape, or as numpy arrays of shape (rows, cols) if numpy is available and
``as_numpy=True``.

    import geolin
    model = geolin.Model.from_urdf_file("robot.urdf")
    ws = model.workspace()
    nu_dot = ws.forward_dynamics(H, s, v, r, tau)     # H: 16 values, column-major 4x4
    A, B = ws.linearize(H, s, v, r, tau)              # column-major, N x N and N x n_J
    tool = model.frame_index("tool")
    H_tool = ws.frame_pose(H, s, tool)                # 16 values, column-major 4x4
    nu_dot = ws.forward_dynamics_ext(H, s, v, r, tau, [tool], [[0, 0, -10, 0, 0, 0]],
                                     geolin.WRENCH_MIXED)
    H, s, v, r = ws.step(geolin.STEP_RK4, 1e-3, H, s, v, r, tau)
"""

import ctypes
import ctypes.util
import os

__all__ = [
    "Error", "Model", "Workspace", "version", "status_string", "load_library",
    "OK", "ERR_INVALID_ARGUMENT", "ERR_IO", "ERR_PARSE", "ERR_MODEL", "ERR_UNSUPPORTED",
    "ERR_NONFINITE", "ERR_NUMERIC", "ERR_INTERNAL", "FIXED_BASE", "JOINT_DAMPING",
    "WRENCH_LOCAL", "WRENCH_MIXED", "STEP_SEMI_IMPLICIT_EULER", "STEP_RK4", "HEADER_VERSION",
]

OK = 0
ERR_INVALID_ARGUMENT = 1
ERR_IO = 2
ERR_PARSE = 3
ERR_MODEL = 4
ERR_UNSUPPORTED = 5
ERR_NONFINITE = 6
ERR_NUMERIC = 7
ERR_INTERNAL = 8

FIXED_BASE = 1
JOINT_DAMPING = 2

# wrench_flags of forward_dynamics_ext / linearize_ext: the axes of every wrench of one call
WRENCH_LOCAL = 0  # the frame's own axes
WRENCH_MIXED = 1  # axes parallel to the inertial frame A (contact forces)

# integration methods of step / step_linearize
STEP_SEMI_IMPLICIT_EULER = 0
STEP_RK4 = 1

# The version of geolin.h these bindings were written for (the library may be newer).
HEADER_VERSION = (0, 3, 0)

_c_double_p = ctypes.POINTER(ctypes.c_double)
_c_int_p = ctypes.POINTER(ctypes.c_int)
_handle = ctypes.c_void_p
_handle_p = ctypes.POINTER(ctypes.c_void_p)

# name: (restype, argtypes) for every function of geolin.h
_SIGNATURES = {
    "geolin_version": (None, [_c_int_p, _c_int_p, _c_int_p]),
    "geolin_last_error": (ctypes.c_char_p, []),
    "geolin_status_string": (ctypes.c_char_p, [ctypes.c_int]),
    "geolin_model_load_urdf": (ctypes.c_int, [ctypes.c_char_p, ctypes.c_uint, _handle_p]),
    "geolin_model_load_urdf_string": (ctypes.c_int, [ctypes.c_char_p, ctypes.c_uint, _handle_p]),
    "geolin_model_free": (None, [_handle]),
    "geolin_model_num_joints": (ctypes.c_int, [_handle]),
    "geolin_model_num_dofs": (ctypes.c_int, [_handle]),
    "geolin_model_state_dim": (ctypes.c_int, [_handle]),
    "geolin_model_num_bodies": (ctypes.c_int, [_handle]),
    "geolin_model_is_fixed_base": (ctypes.c_int, [_handle]),
    "geolin_model_parent": (ctypes.c_int, [_handle, ctypes.c_int]),
    "geolin_model_num_children": (ctypes.c_int, [_handle, ctypes.c_int]),
    "geolin_model_child": (ctypes.c_int, [_handle, ctypes.c_int, ctypes.c_int]),
    "geolin_model_body_name": (ctypes.c_char_p, [_handle, ctypes.c_int]),
    "geolin_model_joint_name": (ctypes.c_char_p, [_handle, ctypes.c_int]),
    "geolin_model_joint_index": (ctypes.c_int, [_handle, ctypes.c_char_p]),
    "geolin_model_total_mass": (ctypes.c_double, [_handle]),
    "geolin_workspace_new": (ctypes.c_int, [_handle, _handle_p]),
    "geolin_workspace_free": (None, [_handle]),
    "geolin_workspace_set_gravity": (ctypes.c_int, [_handle, _c_double_p]),
    "geolin_forward_dynamics": (ctypes.c_int, [_handle] + [_c_double_p] * 6),
    "geolin_inverse_dynamics": (ctypes.c_int, [_handle] + [_c_double_p] * 6),
    "geolin_mass_matrix": (ctypes.c_int, [_handle, _c_double_p, _c_double_p]),
    "geolin_mass_matrix_inverse": (ctypes.c_int, [_handle, _c_double_p, _c_double_p]),
    "geolin_linearize": (ctypes.c_int, [_handle] + [_c_double_p] * 7),
    "geolin_linearize_finite_difference": (
        ctypes.c_int, [_handle] + [_c_double_p] * 5 + [ctypes.c_double] + [_c_double_p] * 2),
    "geolin_model_num_frames": (ctypes.c_int, [_handle]),
    "geolin_model_frame_name": (ctypes.c_char_p, [_handle, ctypes.c_int]),
    "geolin_model_frame_index": (ctypes.c_int, [_handle, ctypes.c_char_p]),
    "geolin_frame_pose": (ctypes.c_int, [_handle, _c_double_p, _c_double_p, ctypes.c_int,
                                         _c_double_p]),
    "geolin_frame_jacobian": (ctypes.c_int, [_handle, _c_double_p, _c_double_p, ctypes.c_int,
                                             _c_double_p]),
    "geolin_forward_dynamics_ext": (
        ctypes.c_int, [_handle] + [_c_double_p] * 5
        + [ctypes.c_int, _c_int_p, _c_double_p, ctypes.c_uint, _c_double_p]),
    "geolin_linearize_ext": (
        ctypes.c_int, [_handle] + [_c_double_p] * 5
        + [ctypes.c_int, _c_int_p, _c_double_p, ctypes.c_uint, _c_double_p, _c_double_p]),
    "geolin_step": (ctypes.c_int, [_handle, ctypes.c_int, ctypes.c_double] + [_c_double_p] * 9),
    "geolin_step_linearize": (
        ctypes.c_int, [_handle, ctypes.c_int, ctypes.c_double] + [_c_double_p] * 7),
}

_lib = None


def load_library(path=None):
    """Load libgeolin (path, else $GEOLIN_LIBRARY, else the default name) and declare every
    function's signature. Called on first use; returns the ctypes.CDLL."""
    global _lib
    if _lib is not None and path is None:
        return _lib
    if path is None:
        path = os.environ.get("GEOLIN_LIBRARY") or ctypes.util.find_library("geolin") \
            or "libgeolin.so.0"
    lib = ctypes.CDLL(path)
    for name, (restype, argtypes) in _SIGNATURES.items():
        fn = getattr(lib, name)
        fn.restype = restype
        fn.argtypes = argtypes
    _lib = lib
    return lib


def _L():
    return _lib if _lib is not None else load_library()


def _decode(b):
    return None if b is None else b.decode("utf-8", "replace")


class Error(Exception):
    """A failed call: .status (a GEOLIN_ERR_* code) and .message (geolin_last_error)."""

    def __init__(self, status, message):
        super().__init__("%s: %s" % (status_string(status), message))
        self.status = status
        self.message = message


def _check(status):
    if status != OK:
        raise Error(status, _decode(_L().geolin_last_error()))


def version():
    """The run-time library version (major, minor, patch)."""
    a, b, c = ctypes.c_int(), ctypes.c_int(), ctypes.c_int()
    _L().geolin_version(ctypes.byref(a), ctypes.byref(b), ctypes.byref(c))
    return a.value, b.value, c.value


def status_string(status):
    """The name of a status code."""
    return _decode(_L().geolin_status_string(status))


def _in(name, values, size):
    """A C array of doubles from a sequence (None stays NULL); checks the length."""
    if values is None:
        return None
    try:
        flat = [float(x) for x in (values.ravel(order="F") if hasattr(values, "ravel") else values)]
    except TypeError:
        raise Error(ERR_INVALID_ARGUMENT, "'%s' is not a sequence of numbers" % name)
    if len(flat) != size:
        raise Error(ERR_INVALID_ARGUMENT,
                    "'%s' has %d entries, expected %d" % (name, len(flat), size))
    return (ctypes.c_double * max(size, 1))(*flat)


def _frames_and_wrenches(frames, wrenches):
    """(nf, int array or None, double array or None) from a list of frame indices and the
    wrenches: a flat sequence of 6 nf values or a sequence of nf 6-vectors."""
    frames = [] if frames is None else list(frames)
    nf = len(frames)
    if wrenches is None:
        wrenches = []
    elif hasattr(wrenches, "ravel"):
        wrenches = wrenches.ravel()  # numpy: nf x 6 (row k is wrench k) or flat
    flat = []
    for w in wrenches:
        if hasattr(w, "__len__"):
            flat.extend(w)
        else:
            flat.append(w)
    if nf == 0 and not flat:
        return 0, None, None
    try:
        c_frames = (ctypes.c_int * nf)(*[int(f) for f in frames])
    except (TypeError, ValueError, OverflowError):
        raise Error(ERR_INVALID_ARGUMENT, "'frames' is not a sequence of frame indices")
    return nf, c_frames, _in("wrenches", flat, 6 * nf)


def _out(size):
    return (ctypes.c_double * max(size, 1))()


def _matrix(buf, rows, cols, as_numpy):
    flat = list(buf[: rows * cols])
    if as_numpy:
        import numpy as np  # optional dependency
        return np.array(flat, dtype=float).reshape((rows, cols), order="F")
    return flat


class Model:
    """An immutable robot model (shareable between threads)."""

    def __init__(self, handle):
        self._h = handle

    @classmethod
    def from_urdf_file(cls, path, flags=0):
        out = ctypes.c_void_p()
        _check(_L().geolin_model_load_urdf(os.fsencode(path), flags, ctypes.byref(out)))
        return cls(out)

    @classmethod
    def from_urdf_string(cls, xml, flags=0):
        out = ctypes.c_void_p()
        _check(_L().geolin_model_load_urdf_string(xml.encode("utf-8"), flags, ctypes.byref(out)))
        return cls(out)

    def close(self):
        """Free the model now (every workspace of it must be gone)."""
        if getattr(self, "_h", None) is not None and self._h.value:
            _L().geolin_model_free(self._h)
        self._h = None

    def __del__(self):
        try:
            self.close()
        except Exception:
            pass

    @property
    def num_joints(self):
        return _L().geolin_model_num_joints(self._h)

    @property
    def num_dofs(self):
        return _L().geolin_model_num_dofs(self._h)

    @property
    def state_dim(self):
        return _L().geolin_model_state_dim(self._h)

    @property
    def num_bodies(self):
        return _L().geolin_model_num_bodies(self._h)

    @property
    def is_fixed_base(self):
        return _L().geolin_model_is_fixed_base(self._h) == 1

    @property
    def total_mass(self):
        return _L().geolin_model_total_mass(self._h)

    def parent(self, body):
        """The parent body (-1 for the base); raises Error if body is out of range."""
        p = _L().geolin_model_parent(self._h, body)
        if p < 0 and body != 0:
            raise Error(ERR_INVALID_ARGUMENT, _decode(_L().geolin_last_error()))
        return p

    def children(self, body):
        count = _L().geolin_model_num_children(self._h, body)
        if count < 0:
            raise Error(ERR_INVALID_ARGUMENT, _decode(_L().geolin_last_error()))
        return [_L().geolin_model_child(self._h, body, k) for k in range(count)]

    def body_name(self, body):
        name = _L().geolin_model_body_name(self._h, body)
        if name is None:
            raise Error(ERR_INVALID_ARGUMENT, _decode(_L().geolin_last_error()))
        return _decode(name)

    def joint_name(self, joint):
        name = _L().geolin_model_joint_name(self._h, joint)
        if name is None:
            raise Error(ERR_INVALID_ARGUMENT, _decode(_L().geolin_last_error()))
        return _decode(name)

    def joint_index(self, name):
        """The index of a joint, or -1 if there is none of that name."""
        return _L().geolin_model_joint_index(self._h, name.encode("utf-8"))

    @property
    def num_frames(self):
        """The number of frames (every URDF link, also those merged by fixed joints)."""
        return _L().geolin_model_num_frames(self._h)

    def frame_name(self, frame):
        name = _L().geolin_model_frame_name(self._h, frame)
        if name is None:
            raise Error(ERR_INVALID_ARGUMENT, _decode(_L().geolin_last_error()))
        return _decode(name)

    def frame_index(self, name):
        """The index of a frame, or -1 if there is none of that name."""
        return _L().geolin_model_frame_index(self._h, name.encode("utf-8"))

    def workspace(self):
        return Workspace(self)


class Workspace:
    """Scratch memory and gravity of one thread. Keeps its model alive."""

    def __init__(self, model):
        self.model = model  # the model must outlive the workspace: keep a reference
        out = ctypes.c_void_p()
        _check(_L().geolin_workspace_new(model._h, ctypes.byref(out)))
        self._h = out
        self._nj = model.num_joints
        self._n = model.num_dofs
        self._N = model.state_dim

    def close(self):
        if getattr(self, "_h", None) is not None and self._h.value:
            _L().geolin_workspace_free(self._h)
        self._h = None

    def __del__(self):
        try:
            self.close()
        except Exception:
            pass

    def set_gravity(self, g):
        _check(_L().geolin_workspace_set_gravity(self._h, _in("g", g, 3)))

    def _state(self, H, s, v, r):
        nj = self._nj
        return (_in("H", H, 16), _in("s", s, nj), _in("v", v, 6), _in("r", r, nj))

    def forward_dynamics(self, H, s, v, r, tau):
        """nu_dot (n) for joint torques tau. H, v may be None for a fixed base."""
        out = _out(self._n)
        _check(_L().geolin_forward_dynamics(self._h, *self._state(H, s, v, r),
                                            _in("tau", tau, self._nj), out))
        return list(out[: self._n])

    def inverse_dynamics(self, H, s, v, r, nu_dot):
        """[base wrench; joint torques] (n) producing nu_dot."""
        out = _out(self._n)
        _check(_L().geolin_inverse_dynamics(self._h, *self._state(H, s, v, r),
                                            _in("nu_dot", nu_dot, self._n), out))
        return list(out[: self._n])

    def mass_matrix(self, s, as_numpy=False):
        """M(s): a column-major flat list of n*n values (or an n x n numpy array)."""
        out = _out(self._n * self._n)
        _check(_L().geolin_mass_matrix(self._h, _in("s", s, self._nj), out))
        return _matrix(out, self._n, self._n, as_numpy)

    def mass_matrix_inverse(self, s, as_numpy=False):
        out = _out(self._n * self._n)
        _check(_L().geolin_mass_matrix_inverse(self._h, _in("s", s, self._nj), out))
        return _matrix(out, self._n, self._n, as_numpy)

    def linearize(self, H, s, v, r, tau, as_numpy=False):
        """(A, B): column-major N x N and N x n_J."""
        N, nj = self._N, self._nj
        A, B = _out(N * N), _out(N * nj)
        _check(_L().geolin_linearize(self._h, *self._state(H, s, v, r), _in("tau", tau, nj), A, B))
        return _matrix(A, N, N, as_numpy), _matrix(B, N, nj, as_numpy)

    def linearize_finite_difference(self, H, s, v, r, tau, eps=1e-6, as_numpy=False):
        N, nj = self._N, self._nj
        A, B = _out(N * N), _out(N * nj)
        _check(_L().geolin_linearize_finite_difference(
            self._h, *self._state(H, s, v, r), _in("tau", tau, nj), float(eps), A, B))
        return _matrix(A, N, N, as_numpy), _matrix(B, N, nj, as_numpy)

    def frame_pose(self, H, s, frame):
        """The world pose of a frame: 16 values, column-major 4x4. H may be None for a fixed
        base."""
        out = _out(16)
        _check(_L().geolin_frame_pose(self._h, _in("H", H, 16), _in("s", s, self._nj), frame,
                                      out))
        return list(out[:16])

    def frame_jacobian(self, H, s, frame, as_numpy=False):
        """The frame Jacobian (6 x n, column-major): body twist of the frame = J nu."""
        out = _out(6 * self._n)
        _check(_L().geolin_frame_jacobian(self._h, _in("H", H, 16), _in("s", s, self._nj),
                                          frame, out))
        return _matrix(out, 6, self._n, as_numpy)

    def forward_dynamics_ext(self, H, s, v, r, tau, frames, wrenches, flags=WRENCH_LOCAL):
        """nu_dot (n) with external wrenches [force; torque] at the origins of frames
        (wrenches: nf 6-vectors or 6 nf values; flags WRENCH_LOCAL or WRENCH_MIXED)."""
        nf, c_frames, c_wrenches = _frames_and_wrenches(frames, wrenches)
        out = _out(self._n)
        _check(_L().geolin_forward_dynamics_ext(self._h, *self._state(H, s, v, r),
                                                _in("tau", tau, self._nj), nf, c_frames,
                                                c_wrenches, flags, out))
        return list(out[: self._n])

    def linearize_ext(self, H, s, v, r, tau, frames, wrenches, flags=WRENCH_LOCAL,
                      as_numpy=False):
        """(A, B) with the wrenches as inputs too: N x N and N x (n_J + 6 nf)."""
        N, nj = self._N, self._nj
        nf, c_frames, c_wrenches = _frames_and_wrenches(frames, wrenches)
        A, B = _out(N * N), _out(N * (nj + 6 * nf))
        _check(_L().geolin_linearize_ext(self._h, *self._state(H, s, v, r), _in("tau", tau, nj),
                                         nf, c_frames, c_wrenches, flags, A, B))
        return _matrix(A, N, N, as_numpy), _matrix(B, N, nj + 6 * nf, as_numpy)

    def step(self, method, h, H, s, v, r, tau):
        """One step of length h: (H_next, s_next, v_next, r_next). For a fixed base H, v may be
        None, and H_next, v_next are None."""
        nj = self._nj
        fixed = self.model.is_fixed_base
        Hn, sn, vn, rn = _out(16), _out(nj), _out(6), _out(nj)
        _check(_L().geolin_step(self._h, method, float(h), *self._state(H, s, v, r),
                                _in("tau", tau, nj), None if fixed else Hn, sn,
                                None if fixed else vn, rn))
        if fixed:
            return None, list(sn[:nj]), None, list(rn[:nj])
        return list(Hn[:16]), list(sn[:nj]), list(vn[:6]), list(rn[:nj])

    def step_linearize(self, method, h, H, s, v, r, tau, as_numpy=False):
        """(A_d, B_d): the exact linearization of step, N x N and N x n_J."""
        N, nj = self._N, self._nj
        A, B = _out(N * N), _out(N * nj)
        _check(_L().geolin_step_linearize(self._h, method, float(h), *self._state(H, s, v, r),
                                          _in("tau", tau, nj), A, B))
        return _matrix(A, N, N, as_numpy), _matrix(B, N, nj, as_numpy)


def _identity_pose(x=0.0, y=0.0, z=0.0):
    """A column-major 4x4 identity rotation at (x, y, z) (handy for tests)."""
    return [1.0, 0, 0, 0, 0, 1.0, 0, 0, 0, 0, 1.0, 0, x, y, z, 1.0]

