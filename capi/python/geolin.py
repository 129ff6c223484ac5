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
"""

import ctypes
import ctypes.util
import os

__all__ = [
    "Error", "Model", "Workspace", "version", "status_string", "load_library",
    "OK", "ERR_INVALID_ARGUMENT", "ERR_IO", "ERR_PARSE", "ERR_MODEL", "ERR_UNSUPPORTED",
    "ERR_NONFINITE", "ERR_NUMERIC", "ERR_INTERNAL", "FIXED_BASE", "JOINT_DAMPING",
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


def _identity_pose(x=0.0, y=0.0, z=0.0):
    """A column-major 4x4 identity rotation at (x, y, z) (handy for tests)."""
    return [1.0, 0, 0, 0, 0, 1.0, 0, 0, 0, 0, 1.0, 0, x, y, z, 1.0]

