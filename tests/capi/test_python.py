"""Tests of the ctypes bindings capi/python/geolin.py against the built library.

Environment: GEOLIN_LIBRARY (path to libgeolin.so.0), GEOLIN_PYTHON_DIR (capi/python),
GEOLIN_TEST_URDF (tests/capi/tree.urdf), GEOLIN_MODELS_DIR (models/, for the quadruped of the
contact tests; default: found from this file's path). The numpy tests (TestNumpy) skip when
numpy is not installed; TestWithoutNumpy runs the bindings in a subprocess where numpy cannot be
imported.

Results are numpy arrays by default when numpy is installed, lists without it. Most tests are
written against flat column-major lists: they call the bindings through Lists (as_numpy=False),
so that they run unchanged with either interpreter; TestNumpy checks that the default arrays
hold the same numbers as those lists.
"""
import array
import ctypes
import inspect
import math
import os
import subprocess
import sys
import threading
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.environ.get("GEOLIN_PYTHON_DIR",
                                  os.path.join(HERE, "..", "..", "capi", "python")))
import geolin  # noqa: E402

try:
    import numpy as np
except ImportError:
    np = None

URDF = os.environ.get("GEOLIN_TEST_URDF", os.path.join(HERE, "tree.urdf"))
MODELS = os.environ.get("GEOLIN_MODELS_DIR", os.path.join(HERE, "..", "..", "models"))
QUADRUPED = os.path.join(MODELS, "quadruped.urdf")
FEET = ("FL_foot", "FR_foot", "HL_foot", "HR_foot")
HEADER = os.path.join(os.environ.get("GEOLIN_PYTHON_DIR",
                                     os.path.join(HERE, "..", "..", "capi", "python")),
                      "..", "geolin.h")


def header_version():
    """GEOLIN_VERSION_{MAJOR,MINOR,PATCH} parsed from capi/geolin.h."""
    parts = {}
    with open(HEADER) as f:
        for line in f:
            words = line.split()
            if len(words) >= 3 and words[0] == "#define" and \
                    words[1].startswith("GEOLIN_VERSION_"):
                parts[words[1][len("GEOLIN_VERSION_"):]] = int(words[2])
    return parts["MAJOR"], parts["MINOR"], parts["PATCH"]


class Lists:
    """A geolin.Model or Workspace whose methods return lists: as_numpy=False unless the call
    says otherwise; the models and workspaces they make are wrapped too, and an array attribute
    (Model.armature) is read as a list."""

    def __init__(self, obj):
        self._obj = obj

    def __getattr__(self, name):
        value = getattr(self._obj, name)
        if np is not None and isinstance(value, np.ndarray):
            return value.tolist()
        if not inspect.ismethod(value):
            return value
        takes_as_numpy = "as_numpy" in inspect.signature(value).parameters

        def call(*args, **kwargs):
            if takes_as_numpy:
                kwargs.setdefault("as_numpy", False)
            result = value(*args, **kwargs)
            if isinstance(result, (geolin.Model, geolin.Workspace)):
                return Lists(result)
            return result
        return call


def lists_model(path, flags=0):
    return Lists(geolin.Model.from_urdf_file(path, flags))


def pose(angle, x=0.1, y=-0.2, z=0.3):
    c, s = math.cos(angle), math.sin(angle)
    return [c, s, 0, 0, -s, c, 0, 0, 0, 0, 1, 0, x, y, z, 1]


class StateFixture(unittest.TestCase):
    """The test model, a workspace and one moving, torqued state (lists)."""

    def setUp(self):
        self.model = lists_model(URDF)
        self.ws = self.model.workspace()
        nj = self.model.num_joints
        self.H = pose(0.4)
        self.v = [0.1, -0.2, 0.3, 0.4, -0.5, 0.6]
        self.s = [0.2 * i - 0.1 for i in range(nj)]
        self.r = [0.3 - 0.1 * i for i in range(nj)]
        self.tau = [0.5 * (i + 1) for i in range(nj)]


class TestGeolin(StateFixture):

    def test_version_and_status(self):
        major, minor, patch = header_version()
        self.assertEqual(geolin.version(), (major, minor, patch))
        # the bindings may be older than the header (within one major version), never newer
        self.assertEqual(geolin.HEADER_VERSION[0], major)
        self.assertLessEqual(geolin.HEADER_VERSION[1], minor)
        self.assertIn("GEOLIN_OK", geolin.status_string(geolin.OK))
        self.assertEqual(geolin.status_string(42), "unknown status")

    def test_library_of_another_major_or_older_minor_version_is_refused(self):
        major, minor, patch = geolin.version()
        path = os.environ["GEOLIN_LIBRARY"]
        saved = geolin.HEADER_VERSION
        try:
            for header in [(major + 1, 0, 0), (major, minor + 1, 0)]:
                geolin.HEADER_VERSION = header
                with self.assertRaises(geolin.VersionError) as caught:
                    geolin.load_library(path)
                text = str(caught.exception)
                self.assertIn("%d.%d.%d" % (major, minor, patch), text)
                self.assertIn("%d.%d.%d" % header, text)
            geolin.HEADER_VERSION = (major, 0, 0)  # an older minor version of the bindings
            geolin.load_library(path)
        finally:
            geolin.HEADER_VERSION = saved
        self.assertEqual(geolin.version(), (major, minor, patch))

    def test_a_function_missing_from_the_library_is_refused_when_called(self):
        # the functions newer than HEADER_VERSION are optional at load time (_OPTIONAL)
        self.assertIn("geolin_step_feedback", geolin._OPTIONAL)
        with self.assertRaises(geolin.VersionError) as caught:
            geolin._optional("geolin_no_such_function")
        self.assertIn("geolin_no_such_function", str(caught.exception))
        self.assertIn("%d.%d.%d" % geolin.version(), str(caught.exception))

    def test_every_function_of_the_abi_list_is_bound(self):
        with open(os.path.join(os.path.dirname(HEADER), "abi_functions.txt")) as f:
            listed = {line.strip() for line in f if line.strip() and not line.startswith("#")}
        self.assertEqual(sorted(listed - set(geolin._SIGNATURES)), [])
        # bound but not (yet) in the list: only the optional functions
        self.assertLessEqual(set(geolin._SIGNATURES) - listed, geolin._OPTIONAL)

    def test_structure(self):
        m = self.model
        self.assertEqual((m.num_joints, m.num_dofs, m.state_dim, m.num_bodies), (3, 9, 18, 4))
        self.assertFalse(m.is_fixed_base)
        self.assertAlmostEqual(m.total_mass, 9.5, places=12)
        self.assertEqual(m.parent(0), -1)
        self.assertEqual(m.body_name(0), "base")
        self.assertEqual(len(m.children(0)), 2)
        for k in range(m.num_joints):
            self.assertEqual(m.joint_index(m.joint_name(k)), k)
        self.assertEqual(m.joint_index("absent"), -1)
        with self.assertRaises(geolin.Error) as cm:
            m.body_name(99)
        self.assertEqual(cm.exception.status, geolin.ERR_INVALID_ARGUMENT)

    def test_load_errors(self):
        with self.assertRaises(geolin.Error) as cm:
            geolin.Model.from_urdf_file("/nonexistent/robot.urdf")
        self.assertEqual(cm.exception.status, geolin.ERR_IO)
        with self.assertRaises(geolin.Error) as cm:
            geolin.Model.from_urdf_string("<robot name='x'>")
        self.assertEqual(cm.exception.status, geolin.ERR_PARSE)
        with open(URDF) as f:
            m = geolin.Model.from_urdf_string(f.read(), geolin.FIXED_BASE)
        self.assertTrue(m.is_fixed_base)
        self.assertEqual(m.num_dofs, 3)

    def test_round_trip(self):
        nu_dot = self.ws.forward_dynamics(self.H, self.s, self.v, self.r, self.tau)
        f = self.ws.inverse_dynamics(self.H, self.s, self.v, self.r, nu_dot)
        for i in range(6):
            self.assertAlmostEqual(f[i], 0.0, places=9)
        for k, t in enumerate(self.tau):
            self.assertAlmostEqual(f[6 + k], t, places=9)

    def test_inverse_dynamics_linearize_identities(self):
        # at nu_dot = FD: M F + dtau_dz = 0 for the nu_dot rows F of linearize's A; M is
        # mass_matrix; the force is inverse_dynamics'
        n, N = self.model.num_dofs, self.model.state_dim
        nu_dot = self.ws.forward_dynamics(self.H, self.s, self.v, self.r, self.tau)
        f, dz, M = self.ws.inverse_dynamics_linearize(self.H, self.s, self.v, self.r, nu_dot)
        f_id = self.ws.inverse_dynamics(self.H, self.s, self.v, self.r, nu_dot)
        M_crba = self.ws.mass_matrix(self.s)
        A, _ = self.ws.linearize(self.H, self.s, self.v, self.r, self.tau)
        for i in range(n):
            self.assertAlmostEqual(f[i], f_id[i], places=10)
        for k in range(n * n):
            self.assertAlmostEqual(M[k], M_crba[k], places=10)
        for i in range(n):
            for j in range(N):
                res = dz[i + n * j] + sum(M[i + n * k] * A[n + k + N * j] for k in range(n))
                self.assertAlmostEqual(res, 0.0, places=8)
        with self.assertRaises(geolin.Error) as cm:
            self.ws.inverse_dynamics_linearize(self.H, self.s, self.v, self.r, nu_dot[:-1])
        self.assertEqual(cm.exception.status, geolin.ERR_INVALID_ARGUMENT)
        self.assertIn("nu_dot", str(cm.exception))

    def test_mass_matrix_inverse(self):
        n = self.model.num_dofs
        M = self.ws.mass_matrix(self.s)
        Minv = self.ws.mass_matrix_inverse(self.s)
        for i in range(n):
            for j in range(n):
                p = sum(M[i + n * k] * Minv[k + n * j] for k in range(n))
                self.assertAlmostEqual(p, 1.0 if i == j else 0.0, places=9)

    def test_linearize(self):
        n, N, nj = self.model.num_dofs, self.model.state_dim, self.model.num_joints
        A, B = self.ws.linearize(self.H, self.s, self.v, self.r, self.tau)
        Minv = self.ws.mass_matrix_inverse(self.s)
        for k in range(nj):
            for i in range(n):
                self.assertEqual(B[i + N * k], 0.0)
                self.assertAlmostEqual(B[n + i + N * k], Minv[i + n * (6 + k)], places=10)
        Afd, Bfd = self.ws.linearize_finite_difference(self.H, self.s, self.v, self.r, self.tau)
        scale = 1 + max(abs(x) for x in A)
        self.assertLess(max(abs(a - b) for a, b in zip(A, Afd)), 1e-5 * scale)

    def test_misuse(self):
        with self.assertRaises(geolin.Error) as cm:
            self.ws.forward_dynamics(self.H, self.s[:-1], self.v, self.r, self.tau)
        self.assertEqual(cm.exception.status, geolin.ERR_INVALID_ARGUMENT)
        with self.assertRaises(geolin.Error) as cm:
            self.ws.forward_dynamics(None, self.s, self.v, self.r, self.tau)
        self.assertEqual(cm.exception.status, geolin.ERR_INVALID_ARGUMENT)
        self.assertIn("'H'", cm.exception.message)
        bad = list(self.tau)
        bad[-1] = float("nan")
        with self.assertRaises(geolin.Error) as cm:
            self.ws.forward_dynamics(self.H, self.s, self.v, self.r, bad)
        self.assertEqual(cm.exception.status, geolin.ERR_NONFINITE)
        self.assertIn("tau", cm.exception.message)
        H = list(self.H)
        H[0] *= 2
        with self.assertRaises(geolin.Error) as cm:
            self.ws.linearize(H, self.s, self.v, self.r, self.tau)
        self.assertEqual(cm.exception.status, geolin.ERR_INVALID_ARGUMENT)
        with self.assertRaises(geolin.Error) as cm:
            self.ws.linearize_finite_difference(self.H, self.s, self.v, self.r, self.tau, eps=0.0)
        self.assertEqual(cm.exception.status, geolin.ERR_INVALID_ARGUMENT)

    def test_gravity_per_workspace_and_threads(self):
        results = {}

        def work(t):
            ws = self.model.workspace()
            ws.set_gravity([0.0, 0.0, -9.81 + t])
            results[t] = ws.forward_dynamics(pose(0.0), self.s, self.v, self.r, self.tau)

        threads = [threading.Thread(target=work, args=(t,)) for t in range(4)]
        for th in threads:
            th.start()
        for th in threads:
            th.join()
        for t in range(1, 4):
            self.assertAlmostEqual(results[t][2] - results[0][2], float(t), places=9)

    def test_frames(self):
        m = self.model
        self.assertEqual(m.num_frames, 5)
        for k in range(m.num_frames):
            self.assertEqual(m.frame_index(m.frame_name(k)), k)
        self.assertEqual(m.frame_index("absent"), -1)
        with self.assertRaises(geolin.Error) as cm:
            m.frame_name(m.num_frames)
        self.assertEqual(cm.exception.status, geolin.ERR_INVALID_ARGUMENT)
        # the root link's frame is the base pose; the tool sits 0.2 m along link2's x axis
        Hb = self.ws.frame_pose(self.H, self.s, m.frame_index("base"))
        for a, b in zip(Hb, self.H):
            self.assertAlmostEqual(a, b, places=12)
        H2 = self.ws.frame_pose(self.H, self.s, m.frame_index("link2"))
        Ht = self.ws.frame_pose(self.H, self.s, m.frame_index("tool"))
        for i in range(3):
            self.assertAlmostEqual(Ht[12 + i], H2[12 + i] + 0.2 * H2[i], places=12)
        J = self.ws.frame_jacobian(self.H, self.s, m.frame_index("base"))
        n = m.num_dofs
        for c in range(n):
            for i in range(6):
                self.assertAlmostEqual(J[i + 6 * c], 1.0 if i == c else 0.0, places=12)
        with self.assertRaises(geolin.Error) as cm:
            self.ws.frame_jacobian(self.H, self.s, -1)
        self.assertIn("'frame'", cm.exception.message)

    def test_costs(self):
        """The cost functions: their identities and their z-derivatives against central
        differences along a base-velocity and a joint direction (x exp(z))."""
        m, n, N, nj = self.model, self.model.num_dofs, self.model.state_dim, self.model.num_joints
        nu = self.v + self.r
        c, cv, J = self.ws.center_of_mass(self.H, self.s, self.v, self.r)
        for i in range(3):
            self.assertAlmostEqual(cv[i], sum(J[i + 3 * k] * nu[k] for k in range(n)), places=12)
        h, A, D = self.ws.centroidal_momentum(self.H, self.s, self.v, self.r)
        for i in range(6):
            self.assertAlmostEqual(h[i], sum(A[i + 6 * k] * nu[k] for k in range(n)), places=12)
        for i in range(3):
            self.assertAlmostEqual(h[i], m.total_mass * cv[i], places=12)
        # d/dz along z_s[0] and z_r[0] (column 6 and n + 6): central differences.
        eps = 1e-6

        def moved(k, e):
            s, r = list(self.s), list(self.r)
            if k < n:
                s[k - 6] += e
            else:
                r[k - n - 6] += e
            return s, r
        tool = m.frame_index("tool")
        nd = [0.1 * (k - 3) for k in range(n)]
        for k in (6, n + 6):
            (sp, rp), (sm, rm) = moved(k, eps), moved(k, -eps)
            hp = self.ws.centroidal_momentum(self.H, sp, self.v, rp, derivatives=False)[0]
            hm = self.ws.centroidal_momentum(self.H, sm, self.v, rm, derivatives=False)[0]
            for i in range(6):
                self.assertAlmostEqual(D[i + 6 * k], (hp[i] - hm[i]) / (2 * eps), places=6)
            for flags in (geolin.WRENCH_LOCAL, geolin.WRENCH_MIXED):
                a, Da, Dn = self.ws.frame_acceleration(self.H, self.s, self.v, self.r, nd, tool,
                                                       flags)
                ap = self.ws.frame_acceleration(self.H, sp, self.v, rp, nd, tool, flags, False)[0]
                am = self.ws.frame_acceleration(self.H, sm, self.v, rm, nd, tool, flags, False)[0]
                t, Dt = self.ws.frame_velocity(self.H, self.s, self.v, self.r, tool, flags)
                tp = self.ws.frame_velocity(self.H, sp, self.v, rp, tool, flags, False)[0]
                tm = self.ws.frame_velocity(self.H, sm, self.v, rm, tool, flags, False)[0]
                for i in range(6):
                    self.assertAlmostEqual(Da[i + 6 * k], (ap[i] - am[i]) / (2 * eps), places=6)
                    self.assertAlmostEqual(Dt[i + 6 * k], (tp[i] - tm[i]) / (2 * eps), places=6)
        # pose error: zero at the frame's own pose, derivative there = the Jacobian.
        HF = self.ws.frame_pose(self.H, self.s, tool)
        e, De = self.ws.frame_pose_error(self.H, self.s, tool, HF)
        Jt = self.ws.frame_jacobian(self.H, self.s, tool)
        for i in range(6):
            self.assertAlmostEqual(e[i], 0.0, places=12)
            for k in range(6 + nj):
                self.assertAlmostEqual(De[i + 6 * k], Jt[i + 6 * k], places=12)
        with self.assertRaises(geolin.Error) as cm:
            self.ws.frame_pose_error(self.H, self.s, tool, [2.0] + HF[1:])
        self.assertIn("'H_ref'", cm.exception.message)
        with self.assertRaises(geolin.Error) as cm:
            self.ws.frame_velocity(self.H, self.s, self.v, self.r, tool, 3)
        self.assertIn("'flags'", cm.exception.message)
        self.assertEqual(len(D), 6 * N)

    def test_wrenches(self):
        m, n = self.model, self.model.num_dofs
        tool = m.frame_index("tool")
        a0 = self.ws.forward_dynamics(self.H, self.s, self.v, self.r, self.tau)
        self.assertEqual(a0, self.ws.forward_dynamics_ext(self.H, self.s, self.v, self.r,
                                                          self.tau, [], None))
        w = [1.0, -2.0, 0.5, 0.1, 0.2, -0.3]
        a1 = self.ws.forward_dynamics_ext(self.H, self.s, self.v, self.r, self.tau, [tool], [w])
        M = self.ws.mass_matrix(self.s)
        J = self.ws.frame_jacobian(self.H, self.s, tool)
        for i in range(n):
            lhs = sum(M[i + n * k] * (a1[k] - a0[k]) for k in range(n))
            rhs = sum(J[k + 6 * i] * w[k] for k in range(6))
            self.assertAlmostEqual(lhs, rhs, places=9)
        A, B = self.ws.linearize_ext(self.H, self.s, self.v, self.r, self.tau, [tool, tool],
                                     w + w, geolin.WRENCH_MIXED)
        self.assertEqual(len(B), m.state_dim * (m.num_joints + 12))
        with self.assertRaises(geolin.Error) as cm:
            self.ws.forward_dynamics_ext(self.H, self.s, self.v, self.r, self.tau, [tool], [w],
                                         flags=7)
        self.assertIn("wrench_flags", cm.exception.message)
        with self.assertRaises(geolin.Error) as cm:
            self.ws.forward_dynamics_ext(self.H, self.s, self.v, self.r, self.tau, [tool], w[:5])
        self.assertEqual(cm.exception.status, geolin.ERR_INVALID_ARGUMENT)

    def test_step(self):
        N, nj = self.model.state_dim, self.model.num_joints
        nu_dot = self.ws.forward_dynamics(self.H, self.s, self.v, self.r, self.tau)
        A, B = self.ws.linearize(self.H, self.s, self.v, self.r, self.tau)
        h = 1e-5
        for method in (geolin.STEP_SEMI_IMPLICIT_EULER, geolin.STEP_RK4):
            H1, s1, v1, r1 = self.ws.step(method, h, self.H, self.s, self.v, self.r, self.tau)
            for k in range(nj):
                self.assertAlmostEqual((r1[k] - self.r[k]) / h, nu_dot[6 + k], places=3)
                self.assertAlmostEqual((s1[k] - self.s[k]) / h, self.r[k], places=3)
            for k in range(6):
                self.assertAlmostEqual((v1[k] - self.v[k]) / h, nu_dot[k], places=3)
            Ad, Bd = self.ws.step_linearize(method, h, self.H, self.s, self.v, self.r, self.tau)
            scale = 1 + max(abs(x) for x in A)
            err = max(abs((Ad[i + N * j] - (i == j)) / h - A[i + N * j])
                      for i in range(N) for j in range(N))
            self.assertLess(err, 1e-3 * scale)
            err = max(abs(Bd[i] / h - B[i]) for i in range(N * nj))
            self.assertLess(err, 1e-3 * (1 + max(abs(x) for x in B)))
        with self.assertRaises(geolin.Error) as cm:
            self.ws.step(geolin.STEP_RK4, float("nan"), self.H, self.s, self.v, self.r, self.tau)
        self.assertEqual(cm.exception.status, geolin.ERR_NONFINITE)
        with self.assertRaises(geolin.Error) as cm:
            self.ws.step_linearize(5, 1e-3, self.H, self.s, self.v, self.r, self.tau)
        self.assertIn("'method'", cm.exception.message)
        # fixed base: no pose in, no pose out
        fixed = lists_model(URDF, geolin.FIXED_BASE)
        ws = fixed.workspace()
        H1, s1, v1, r1 = ws.step(geolin.STEP_RK4, 1e-3, None, self.s, None, self.r, self.tau)
        self.assertIsNone(H1)
        self.assertIsNone(v1)
        self.assertEqual(len(s1), nj)

    def test_state_algebra_inverts_and_its_jacobians_match_finite_differences(self):
        m, N, nj = self.model, self.model.state_dim, self.model.num_joints
        x = (self.H, self.s, self.v, self.r)
        z = [0.3 * math.sin(k + 1) for k in range(N)]
        z[3:6] = [1.2, -0.9, 0.7]  # a rotation by 1.65 rad
        y = m.state_integrate(*x, z)
        back = m.state_difference(*x, *y)
        self.assertLess(max(abs(a - b) for a, b in zip(back, z)), 1e-12)
        d_dx, d_dz = m.state_integrate_derivatives(*x, z)
        dz_dx0, dz_dx1 = m.state_difference_derivatives(*x, *y)
        eps, worst = 1e-6, 0.0
        for k in range(N):
            e = [eps if i == k else 0.0 for i in range(N)]
            me = [-a for a in e]
            # d_dz: x exp(z + dz) read at y; dz_dx0: log((x exp(dx))^-1 y); dz_dx1: at y exp(dx)
            p_ = m.state_difference(*y, *m.state_integrate(*x, [a + b for a, b in zip(z, e)]))
            q_ = m.state_difference(*y, *m.state_integrate(*x, [a + b for a, b in zip(z, me)]))
            pa = m.state_difference(*m.state_integrate(*x, e), *y)
            qa = m.state_difference(*m.state_integrate(*x, me), *y)
            pb = m.state_difference(*x, *m.state_integrate(*y, e))
            qb = m.state_difference(*x, *m.state_integrate(*y, me))
            for i in range(N):
                worst = max(worst, abs((p_[i] - q_[i]) / (2 * eps) - d_dz[i + N * k]),
                            abs((pa[i] - qa[i]) / (2 * eps) - dz_dx0[i + N * k]),
                            abs((pb[i] - qb[i]) / (2 * eps) - dz_dx1[i + N * k]))
        self.assertLess(worst, 1e-7)
        # the chain rule of log(x^-1 x exp(z)) = z: dz_dx0 + dz_dx1 d_dx = 0
        chain = max(abs(dz_dx0[i + N * j] + sum(dz_dx1[i + N * k] * d_dx[k + N * j]
                                                for k in range(N)))
                    for i in range(N) for j in range(N))
        self.assertLess(chain, 1e-12)
        with self.assertRaises(geolin.Error) as cm:
            m.state_difference([2.0] + self.H[1:], self.s, self.v, self.r, *y)
        self.assertEqual(cm.exception.status, geolin.ERR_INVALID_ARGUMENT)
        self.assertIn("'H0'", cm.exception.message)
        with self.assertRaises(geolin.Error) as cm:
            m.state_integrate(*x, [float("nan")] + z[1:])
        self.assertEqual(cm.exception.status, geolin.ERR_NONFINITE)
        self.assertIn("'z'", cm.exception.message)
        # fixed base: no pose, no base twist
        fixed = lists_model(URDF, geolin.FIXED_BASE)
        zf = [0.1 * k for k in range(2 * nj)]
        H1, s1, v1, r1 = fixed.state_integrate(None, self.s, None, self.r, zf)
        self.assertIsNone(H1)
        self.assertIsNone(v1)
        self.assertEqual(fixed.state_difference(None, self.s, None, self.r, None, s1, None, r1),
                         [b - a for a, b in zip(self.s + self.r, s1 + r1)])

    def test_strings_and_non_numbers_are_refused(self):
        nj = self.model.num_joints
        cases = [
            ("tau", dict(tau="1" * nj)),          # a string of the right length
            ("s", dict(s=b"\x00" * (8 * nj))),   # bytes, even of the size of nj doubles
            ("tau", dict(tau=["0.5"] * nj)),      # strings inside a list
            ("v", dict(v=[0, 0, 0, 0, 0, None])),
            ("r", dict(r=[[0.1]] * nj)),          # nested
            ("H", dict(H=object())),
        ]
        for name, change in cases:
            args = dict(H=self.H, s=self.s, v=self.v, r=self.r, tau=self.tau)
            args.update(change)
            with self.assertRaises(geolin.Error, msg=repr(change)) as cm:
                self.ws.forward_dynamics(**args)
            self.assertEqual(cm.exception.status, geolin.ERR_INVALID_ARGUMENT)
            self.assertIn("'%s'" % name, cm.exception.message)
        tool = self.model.frame_index("tool")
        with self.assertRaises(geolin.Error) as cm:
            self.ws.forward_dynamics_ext(self.H, self.s, self.v, self.r, self.tau, "1", [0] * 6)
        self.assertIn("'frames'", cm.exception.message)
        with self.assertRaises(geolin.Error) as cm:
            self.ws.forward_dynamics_ext(self.H, self.s, self.v, self.r, self.tau, [tool],
                                         ["abcdef"])
        self.assertIn("'wrenches'", cm.exception.message)
        with self.assertRaises(geolin.Error) as cm:
            self.ws.step("rk4", 1e-3, self.H, self.s, self.v, self.r, self.tau)
        self.assertIn("'method'", cm.exception.message)

    def test_buffers_of_doubles_in_and_out(self):
        n, N, nj = self.model.num_dofs, self.model.state_dim, self.model.num_joints
        expected = self.ws.forward_dynamics(self.H, self.s, self.v, self.r, self.tau)
        out = array.array("d", [0.0] * n)
        got = self.ws.forward_dynamics(array.array("d", self.H), array.array("d", self.s),
                                       tuple(self.v), memoryview(array.array("d", self.r)),
                                       array.array("d", self.tau), out=out)
        self.assertIs(got, out)
        self.assertEqual(list(out), expected)
        A, B = self.ws.linearize(self.H, self.s, self.v, self.r, self.tau)
        outA, outB = array.array("d", [0.0] * (N * N)), array.array("d", [0.0] * (N * nj))
        self.ws.linearize(self.H, self.s, self.v, self.r, self.tau, out=(outA, outB))
        self.assertEqual((list(outA), list(outB)), (A, B))
        # a wrong size, a read-only buffer or another element type is refused; nothing written
        for bad in (array.array("d", [7.0] * (n - 1)), bytes(8 * n), array.array("f", [7.0] * n)):
            with self.assertRaises(geolin.Error) as cm:
                self.ws.forward_dynamics(self.H, self.s, self.v, self.r, self.tau, out=bad)
            self.assertIn("nu_dot", cm.exception.message)
        sentinel = array.array("d", [7.0] * n)
        with self.assertRaises(geolin.Error):
            self.ws.forward_dynamics(self.H, self.s, self.v, self.r, [math.inf] * nj,
                                     out=sentinel)
        self.assertEqual(list(sentinel), [7.0] * n)


class TestArmature(StateFixture):
    """Model.with_armature: the copy's M is M + diag(0_6, a), its inverse dynamics gains a * r_dot,
    the original is unchanged, and bad entries are refused naming armature[j] and the joint."""

    def test_mass_matrix_and_inverse_dynamics_gain_the_armature(self):
        n, nj = self.model.num_dofs, self.model.num_joints
        a = [0.01 * (k + 1) for k in range(nj)]
        geared = self.model.with_armature(a)
        self.assertEqual(self.model.armature, [0.0] * nj)
        self.assertEqual(geared.armature, a)
        ws = geared.workspace()
        M0, M1 = self.ws.mass_matrix(self.s), ws.mass_matrix(self.s)
        for j in range(n):
            for i in range(n):
                extra = a[i - 6] if i == j and i >= 6 else 0.0
                self.assertAlmostEqual(M1[i + n * j] - M0[i + n * j], extra, places=14)
        nu_dot = [0.3 * math.sin(i + 1.0) for i in range(n)]
        f0 = self.ws.inverse_dynamics(self.H, self.s, self.v, self.r, nu_dot)
        f1 = ws.inverse_dynamics(self.H, self.s, self.v, self.r, nu_dot)
        for i in range(n):
            extra = a[i - 6] * nu_dot[i] if i >= 6 else 0.0
            self.assertAlmostEqual(f1[i] - f0[i], extra, places=12)
        # the forward dynamics of the copy inverts its inverse dynamics
        nu = ws.forward_dynamics(self.H, self.s, self.v, self.r, self.tau)
        f = ws.inverse_dynamics(self.H, self.s, self.v, self.r, nu)
        for k, t in enumerate(self.tau):
            self.assertAlmostEqual(f[6 + k], t, places=9)

    def test_srdf_rotor_params_give_rotor_inertia_times_gear_ratio_squared(self):
        import tempfile
        name = self.model.joint_name(1)
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "rotors.srdf")
            with open(path, "w") as f:
                f.write('<robot name="r"><rotor_params><joint name="%s" mass="2e-4" '
                        'gear_ratio="9"/></rotor_params></robot>' % name)
            geared = self.model.with_srdf_rotor_params(path)
            self.assertAlmostEqual(geared.armature[1], 2e-4 * 81, places=15)
            self.assertEqual(geared.armature[0], 0.0)
            with self.assertRaises(geolin.Error) as cm:
                self.model.with_srdf_rotor_params(os.path.join(tmp, "absent.srdf"))
            self.assertEqual(cm.exception.status, geolin.ERR_IO)

    def test_bad_entries_are_refused_naming_the_joint(self):
        nj = self.model.num_joints
        for bad, status in [(-0.1, geolin.ERR_INVALID_ARGUMENT),
                            (float("inf"), geolin.ERR_NONFINITE)]:
            a = [0.01] * nj
            a[1] = bad
            with self.assertRaises(geolin.Error) as cm:
                self.model.with_armature(a)
            self.assertEqual(cm.exception.status, status)
            self.assertIn("armature[1]", cm.exception.message)
            self.assertIn(self.model.joint_name(1), cm.exception.message)
        with self.assertRaises(geolin.Error) as cm:
            self.model.with_armature([0.01] * (nj + 1))
        self.assertEqual(cm.exception.status, geolin.ERR_INVALID_ARGUMENT)


class TestContacts(unittest.TestCase):
    """contact_dynamics / contact_linearize on the quadruped standing on its 4 point feet."""

    def setUp(self):
        self.model = lists_model(QUADRUPED)
        self.ws = self.model.workspace()
        m = self.model
        nj = m.num_joints
        self.feet = [m.frame_index(name) for name in FEET]
        self.types = [geolin.CONTACT_POINT] * 4
        self.H = pose(0.3, 0.05, -0.02, 0.45)
        self.s = [(0.05, 0.7, -1.4)[i % 3] + 0.03 * math.sin(i) for i in range(nj)]
        self.v = [0.1, -0.05, 0.02, 0.03, -0.04, 0.05]
        self.r = [0.2 * math.cos(i) for i in range(nj)]
        self.tau = [0.5 * math.sin(1.0 + i) for i in range(nj)]

    def state(self):
        return self.H, self.s, self.v, self.r, self.tau

    def check_lambda_reproduces_nu_dot(self, flags, gains, refs):
        n = self.model.num_dofs
        nu, lam = self.ws.contact_dynamics(*self.state(), self.feet, self.types, flags, gains,
                                           refs)
        self.assertEqual((len(nu), len(lam)), (n, 12))
        wrenches = [lam[3 * k:3 * k + 3] + [0.0, 0.0, 0.0] for k in range(4)]
        nu_ext = self.ws.forward_dynamics_ext(*self.state(), self.feet, wrenches, flags)
        scale = max(1.0, max(abs(x) for x in nu))
        for a, b in zip(nu, nu_ext):
            self.assertLess(abs(a - b), 1e-9 * scale)

    def test_lambda_as_wrenches_reproduces_nu_dot(self):
        self.assertEqual(len(self.feet), 4)
        self.assertTrue(all(f >= 0 for f in self.feet))
        self.check_lambda_reproduces_nu_dot(geolin.WRENCH_LOCAL, None, None)
        refs = []
        for f in self.feet:  # reference points a little away from the feet
            Hf = self.ws.frame_pose(self.H, self.s, f)
            refs.append(Hf[:12] + [Hf[12] + 0.01, Hf[13] - 0.02, Hf[14] + 0.005, 1.0])
        self.check_lambda_reproduces_nu_dot(geolin.WRENCH_MIXED, [40.0, 9.0], refs)
        # nc = 0 is the free dynamics
        nu, lam = self.ws.contact_dynamics(*self.state(), [], [])
        self.assertEqual(nu, self.ws.forward_dynamics(*self.state()))
        self.assertEqual(lam, [])

    def test_linearize(self):
        m = self.model
        N, nj = m.state_dim, m.num_joints
        A, B, dz, dw = self.ws.contact_linearize(*self.state(), self.feet, self.types)
        self.assertEqual((len(A), len(B), len(dz), len(dw)), (N * N, N * nj, 12 * N, 12 * nj))
        A2, B2, none_z, none_w = self.ws.contact_linearize(*self.state(), self.feet, self.types,
                                                           dlambda=False)
        self.assertEqual((A2, B2, none_z, none_w), (A, B, None, None))
        # the torque derivative of lambda by a central difference of contact_dynamics
        h = 1e-6
        for j in (0, 5):
            tp, tm = list(self.tau), list(self.tau)
            tp[j] += h
            tm[j] -= h
            lp = self.ws.contact_dynamics(self.H, self.s, self.v, self.r, tp, self.feet,
                                          self.types)[1]
            lm = self.ws.contact_dynamics(self.H, self.s, self.v, self.r, tm, self.feet,
                                          self.types)[1]
            for i in range(12):
                self.assertAlmostEqual((lp[i] - lm[i]) / (2 * h), dw[i + 12 * j], places=5)
        # nc = 0 is geolin_linearize
        A0, B0, dz0, dw0 = self.ws.contact_linearize(*self.state(), [], [])
        self.assertEqual((A0, B0), self.ws.linearize(*self.state()))
        self.assertEqual((dz0, dw0), ([], []))

    def test_regularization_solves_a_redundant_set_softly(self):
        foot = self.feet[0]  # held rigidly and as a point: 9 rows for 6 directions
        redundant = ([foot, foot], [geolin.CONTACT_RIGID, geolin.CONTACT_POINT])
        with self.assertRaises(geolin.Error) as cm:
            self.ws.contact_dynamics(*self.state(), *redundant)
        self.assertEqual(cm.exception.status, geolin.ERR_NUMERIC)
        with self.assertRaises(geolin.Error) as cm:
            self.ws.set_contact_regularization(-1.0)
        self.assertEqual(cm.exception.status, geolin.ERR_INVALID_ARGUMENT)
        self.assertIn("'mu'", cm.exception.message)
        self.ws.set_contact_regularization(1e-8)
        nu, lam = self.ws.contact_dynamics(*self.state(), *redundant)
        self.assertEqual(len(lam), 9)
        self.assertTrue(all(math.isfinite(x) for x in nu + lam))
        # At rest the two holds ask the same of the foot's origin (moving, the point holds its
        # classical acceleration, the rigid hold its spatial one): they share its force, whose
        # sum, and the torque, are those of the rigid hold alone, to O(mu).
        rest = (self.H, self.s, [0.0] * 6, [0.0] * len(self.r), self.tau)
        lam = self.ws.contact_dynamics(*rest, *redundant)[1]
        lam_rigid = self.ws.contact_dynamics(*rest, [foot], [geolin.CONTACT_RIGID])[1]
        for k in range(3):
            self.assertAlmostEqual(lam[k] + lam[6 + k], lam_rigid[k], delta=1e-6 * 50)
            self.assertAlmostEqual(lam[3 + k], lam_rigid[3 + k], delta=1e-6 * 50)
        self.ws.set_contact_regularization(0.0)  # back to exact: refused again
        with self.assertRaises(geolin.Error):
            self.ws.contact_dynamics(*self.state(), *redundant)

    def test_misuse(self):
        with self.assertRaises(geolin.Error) as cm:
            self.ws.contact_dynamics(*self.state(), self.feet, [3, 3, 4, 3])
        self.assertEqual(cm.exception.status, geolin.ERR_INVALID_ARGUMENT)
        self.assertIn("'types'", cm.exception.message)
        with self.assertRaises(geolin.Error) as cm:
            self.ws.contact_linearize(*self.state(), self.feet, self.types[:3])
        self.assertEqual(cm.exception.status, geolin.ERR_INVALID_ARGUMENT)
        with self.assertRaises(geolin.Error) as cm:  # Kp != 0 needs the reference poses
            self.ws.contact_dynamics(*self.state(), self.feet, self.types, gains=[1.0, 0.0])
        self.assertEqual(cm.exception.status, geolin.ERR_INVALID_ARGUMENT)
        self.assertIn("refs", cm.exception.message)
        with self.assertRaises(geolin.Error) as cm:
            self.ws.contact_dynamics(*self.state(), self.feet, self.types, flags=7)
        self.assertIn("wrench_flags", cm.exception.message)
        with self.assertRaises(geolin.Error) as cm:
            self.ws.contact_dynamics(*self.state(), self.feet, self.types, gains=[1.0])
        self.assertIn("'gains'", cm.exception.message)
        with self.assertRaises(geolin.Error) as cm:
            self.ws.contact_dynamics(*self.state(), ["FL_foot"], [geolin.CONTACT_POINT])
        self.assertIn("frame indices", cm.exception.message)

    def test_workspace_features(self):
        m = self.model
        small = m.workspace_bytes(geolin.WORKSPACE_DYNAMICS)
        self.assertGreater(small, 0)
        self.assertLess(small, m.workspace_bytes(geolin.WORKSPACE_ALL))
        self.assertLessEqual(m.workspace_bytes(geolin.WORKSPACE_ALL, 4),
                             m.workspace_bytes(geolin.WORKSPACE_ALL))
        ws = m.workspace(geolin.WORKSPACE_CONTACTS, max_wrenches=4)
        nu, lam = ws.contact_dynamics(*self.state(), self.feet, self.types)
        self.assertEqual((nu, lam), self.ws.contact_dynamics(*self.state(), self.feet,
                                                             self.types))
        with self.assertRaises(geolin.Error) as cm:  # no LINEARIZE feature
            ws.contact_linearize(*self.state(), self.feet, self.types)
        self.assertEqual(cm.exception.status, geolin.ERR_INVALID_ARGUMENT)
        with self.assertRaises(geolin.Error) as cm:  # room for 4 contacts only
            ws.contact_dynamics(*self.state(), self.feet + self.feet[:1], self.types + [3])
        self.assertIn("max_wrenches", cm.exception.message)
        ws = Lists(geolin.Workspace(m, geolin.WORKSPACE_CONTACTS | geolin.WORKSPACE_LINEARIZE,
                                    4))
        A, B, dz, dw = ws.contact_linearize(*self.state(), self.feet, self.types)
        self.assertEqual(len(dz), 12 * m.state_dim)
        with self.assertRaises(geolin.Error) as cm:
            m.workspace_bytes(1 << 7)
        self.assertIn("'features'", cm.exception.message)
        with self.assertRaises(geolin.Error) as cm:
            m.workspace(geolin.WORKSPACE_ALL, -1)
        self.assertIn("'max_wrenches'", cm.exception.message)



class TestImpulseAndContactStep(unittest.TestCase):
    """impulse / impulse_linearize and contact_step / contact_step_linearize on the quadruped
    state of TestContacts: the impact map's defining identities, and the step's reductions to
    step and to contact_dynamics."""

    setUp = TestContacts.setUp
    state = TestContacts.state

    def feet_velocity(self, nu):
        """J_c nu for point contacts in local axes: each frame Jacobian's linear rows times nu."""
        n = self.model.num_dofs
        out = []
        for f in self.feet:
            J = self.ws.frame_jacobian(self.H, self.s, f)
            out += [sum(J[row + 6 * c] * nu[c] for c in range(n)) for row in range(3)]
        return out

    def test_impulse_reverses_contact_velocities_by_the_restitution(self):
        n = self.model.num_dofs
        nu_minus = self.v + self.r
        before = self.feet_velocity(nu_minus)
        M = self.ws.mass_matrix(self.s)
        for e in (0.0, 0.5, 1.0):
            v1, r1, imp = self.ws.impulse(self.H, self.s, self.v, self.r, self.feet, self.types,
                                          restitution=e)
            nu_plus = v1 + r1
            for a, b in zip(self.feet_velocity(nu_plus), before):
                self.assertLess(abs(a + e * b), 1e-10)
            # M (nu+ - nu-) = J_c^T Lambda
            rhs = [0.0] * n
            for k, f in enumerate(self.feet):
                J = self.ws.frame_jacobian(self.H, self.s, f)
                for c in range(n):
                    rhs[c] += sum(J[row + 6 * c] * imp[3 * k + row] for row in range(3))
            for i in range(n):
                lhs = sum(M[i + n * c] * (nu_plus[c] - nu_minus[c]) for c in range(n))
                self.assertLess(abs(lhs - rhs[i]), 1e-9 * (1.0 + abs(rhs[i])))
        # no contacts: nu+ = nu- and A_imp = I, exactly
        v1, r1, imp = self.ws.impulse(self.H, self.s, self.v, self.r, [], [])
        self.assertEqual((v1, r1, imp), (self.v, self.r, []))
        N = self.model.state_dim
        A, none = self.ws.impulse_linearize(self.H, self.s, self.v, self.r, [], [])
        self.assertEqual(A, [1.0 if i == j else 0.0 for j in range(N) for i in range(N)])
        self.assertEqual(none, [])

    def test_impulse_linearize_matches_central_differences_in_velocity(self):
        n, N = self.model.num_dofs, self.model.state_dim
        A, D = self.ws.impulse_linearize(self.H, self.s, self.v, self.r, self.feet, self.types,
                                         geolin.WRENCH_MIXED, 0.3)
        self.assertEqual((len(A), len(D)), (N * N, 12 * N))
        A2, none = self.ws.impulse_linearize(self.H, self.s, self.v, self.r, self.feet,
                                             self.types, geolin.WRENCH_MIXED, 0.3, dimpulse=False)
        self.assertEqual((A2, none), (A, None))
        eps = 1e-6
        for c in (0, 4, 8, n - 1):  # z_v, z_r enter additively: nu -> nu + eps e_c
            res = []
            for sign in (1.0, -1.0):
                nu = self.v + self.r
                nu[c] += sign * eps
                v1, r1, imp = self.ws.impulse(self.H, self.s, nu[:6], nu[6:], self.feet,
                                              self.types, geolin.WRENCH_MIXED, 0.3)
                res.append((v1 + r1, imp))
            for i in range(n):
                fd = (res[0][0][i] - res[1][0][i]) / (2 * eps)
                self.assertAlmostEqual(fd, A[n + i + N * (n + c)], places=6)
            for i in range(12):
                fd = (res[0][1][i] - res[1][1][i]) / (2 * eps)
                self.assertLess(abs(fd - D[i + 12 * (n + c)]), 1e-5 * (1.0 + abs(fd)))

    def test_contact_step_without_contacts_is_step(self):
        for method in (geolin.STEP_SEMI_IMPLICIT_EULER, geolin.STEP_RK4):
            got = self.ws.contact_step(method, 1e-3, *self.state(), [], [])
            self.assertEqual(got[:4], self.ws.step(method, 1e-3, *self.state()))
            self.assertEqual(got[4], [])
            A, B, dz, dw = self.ws.contact_step_linearize(method, 1e-3, *self.state(), [], [])
            self.assertEqual((A, B), self.ws.step_linearize(method, 1e-3, *self.state()))

    def test_euler_contact_step_follows_contact_dynamics(self):
        h = 1e-3
        nu_dot, lam = self.ws.contact_dynamics(*self.state(), self.feet, self.types)
        H1, s1, v1, r1, lam1 = self.ws.contact_step(geolin.STEP_SEMI_IMPLICIT_EULER, h,
                                                    *self.state(), self.feet, self.types)
        for a, b, d in zip(v1 + r1, self.v + self.r, nu_dot):
            self.assertLess(abs(a - b - h * d), 1e-12 * (1.0 + abs(d)))
        self.assertEqual(lam1, lam)
        A, B, dz, dw = self.ws.contact_step_linearize(geolin.STEP_RK4, h, *self.state(),
                                                      self.feet, self.types)
        N, nj = self.model.state_dim, self.model.num_joints
        self.assertEqual((len(A), len(B), len(dz), len(dw)), (N * N, N * nj, 12 * N, 12 * nj))
        self.assertTrue(all(math.isfinite(x) for x in A + B + dz + dw))
        A2, B2, none_z, none_w = self.ws.contact_step_linearize(
            geolin.STEP_RK4, h, *self.state(), self.feet, self.types, dlambda=False)
        self.assertEqual((A2, B2, none_z, none_w), (A, B, None, None))

    def test_misuse_of_impulse_and_contact_step(self):
        with self.assertRaises(geolin.Error) as cm:
            self.ws.impulse(self.H, self.s, self.v, self.r, self.feet, self.types,
                            restitution=1.5)
        self.assertEqual(cm.exception.status, geolin.ERR_INVALID_ARGUMENT)
        self.assertIn("restitution", cm.exception.message)
        with self.assertRaises(geolin.Error) as cm:
            self.ws.impulse_linearize(self.H, self.s, self.v, self.r, self.feet, [3, 3, 4, 3])
        self.assertIn("'types'", cm.exception.message)
        with self.assertRaises(geolin.Error) as cm:
            self.ws.contact_step(7, 1e-3, *self.state(), self.feet, self.types)
        self.assertIn("method", cm.exception.message)
        with self.assertRaises(geolin.Error) as cm:  # Kp != 0 needs the reference poses
            self.ws.contact_step_linearize(geolin.STEP_RK4, 1e-3, *self.state(), self.feet,
                                           self.types, gains=[1.0, 0.0])
        self.assertIn("refs", cm.exception.message)
        with self.assertRaises(geolin.Error) as cm:  # no STEP_LINEARIZE feature
            self.model.workspace(geolin.WORKSPACE_CONTACTS | geolin.WORKSPACE_LINEARIZE, 4) \
                .contact_step_linearize(geolin.STEP_RK4, 1e-3, *self.state(), self.feet,
                                        self.types)
        self.assertEqual(cm.exception.status, geolin.ERR_INVALID_ARGUMENT)
        # a failed call writes nothing
        sentinel = array.array("d", [7.0] * self.model.num_joints)
        with self.assertRaises(geolin.Error):
            self.ws.contact_step(geolin.STEP_RK4, -1e-3, *self.state(), self.feet, self.types,
                                 out=(None, sentinel, None, None, None))
        self.assertEqual(list(sentinel), [7.0] * self.model.num_joints)


# A fixed-base arm of two revolute joints whose second mimics the first (<mimic>).
MIMIC_URDF = """<robot name="mimic">
  <link name="base"><inertial><mass value="1"/><inertia ixx="1" iyy="1" izz="1" ixy="0" ixz="0"
    iyz="0"/></inertial></link>
  <link name="a"><inertial><origin xyz="0.2 0 0"/><mass value="1.5"/><inertia ixx="0.01"
    iyy="0.02" izz="0.03" ixy="0" ixz="0" iyz="0"/></inertial></link>
  <link name="b"><inertial><origin xyz="0.1 0.05 0"/><mass value="0.7"/><inertia ixx="0.01"
    iyy="0.01" izz="0.02" ixy="0" ixz="0" iyz="0"/></inertial></link>
  <joint name="j0" type="revolute"><parent link="base"/><child link="a"/><axis xyz="0 1 0"/>
    <limit lower="-3" upper="3" effort="10" velocity="10"/></joint>
  <joint name="j1" type="revolute"><parent link="a"/><child link="b"/><origin xyz="0.4 0 0"/>
    <axis xyz="0 1 0"/><limit lower="-3" upper="3" effort="10" velocity="10"/>
    <mimic joint="j0" multiplier="-0.5" offset="0.1"/></joint>
</robot>
"""


class TestConstraints(unittest.TestCase):
    """Constraints and the constrained_* functions on the quadruped state of TestContacts: a set
    of contacts only is the contact functions, an empty set the unconstrained ones, a coupling
    holds its accelerations in ratio, and misuse names the argument."""

    setUp = TestContacts.setUp
    state = TestContacts.state

    def feet_set(self):
        cs = self.model.constraints()
        for k, f in enumerate(self.feet):
            self.assertEqual(cs.add_contact(f, geolin.CONTACT_POINT), k)
        self.assertEqual((cs.num_rows, len(cs)), (12, 4))
        return cs

    def test_a_set_of_contacts_only_is_the_contact_functions_exactly(self):
        cs = self.feet_set()
        x, tau = self.state()[:4], self.tau
        feet = (self.feet, self.types)
        self.assertEqual(self.ws.constrained_dynamics(cs, *x, tau),
                         self.ws.contact_dynamics(*x, tau, *feet))
        self.assertEqual(self.ws.constrained_linearize(cs, *x, tau),
                         self.ws.contact_linearize(*x, tau, *feet))
        self.assertEqual(self.ws.constrained_impulse(cs, *x, restitution=0.5),
                         self.ws.impulse(*x, *feet, restitution=0.5))
        self.assertEqual(self.ws.constrained_impulse_linearize(cs, *x, restitution=0.5),
                         self.ws.impulse_linearize(*x, *feet, restitution=0.5))
        # gains, references and world axes of the set are those of the contact call
        refs = []
        for k, f in enumerate(self.feet):
            Hf = self.ws.frame_pose(self.H, self.s, f)
            refs.append(Hf[:12] + [Hf[12] + 0.01, Hf[13] - 0.02, Hf[14] + 0.005, 1.0])
            cs.set_ref(k, refs[-1])
        cs.set_gains(40.0, 9.0)
        cs.set_axes(geolin.WRENCH_MIXED)
        held = feet + (geolin.WRENCH_MIXED, [40.0, 9.0], refs)
        nu, lam = self.ws.constrained_dynamics(cs, *x, tau)
        self.assertEqual((nu, lam), self.ws.contact_dynamics(*x, tau, *held))
        self.assertNotEqual(nu, self.ws.contact_dynamics(*x, tau, *feet)[0])
        if np is not None:  # the default results are arrays holding the same numbers
            nu_a, lam_a = self.ws._obj.constrained_dynamics(cs, *x, tau)
            self.assertIsInstance(lam_a, np.ndarray)
            self.assertEqual((nu_a.tolist(), lam_a.tolist()), (nu, lam))
        nj = self.model.num_joints
        fb = ([60.0] * nj, [3.0] * nj, [(0.0, 0.8, -1.5)[i % 3] for i in range(nj)], [0.0] * nj)
        for method in (geolin.STEP_SEMI_IMPLICIT_EULER, geolin.STEP_RK4):
            self.assertEqual(self.ws.constrained_step(cs, method, 1e-3, *x, tau),
                             self.ws.contact_step(method, 1e-3, *x, tau, *held))
            self.assertEqual(self.ws.constrained_step_feedback(cs, method, 1e-3, *x, tau, *fb),
                             self.ws.contact_step_feedback(method, 1e-3, *x, tau, *fb, *held))
        method = geolin.STEP_RK4
        self.assertEqual(self.ws.constrained_step_linearize(cs, method, 1e-3, *x, tau),
                         self.ws.contact_step_linearize(method, 1e-3, *x, tau, *held))
        self.assertEqual(
            self.ws.constrained_step_feedback_linearize(cs, method, 1e-3, *x, tau, *fb,
                                                        dlambda=False),
            self.ws.contact_step_feedback_linearize(method, 1e-3, *x, tau, *fb, *held,
                                                    dlambda=False))
        cs.set_ref(0, None)  # Kp != 0 and a contact without its pose: refused
        with self.assertRaises(geolin.Error) as cm:
            self.ws.constrained_dynamics(cs, *x, tau)
        self.assertEqual(cm.exception.status, geolin.ERR_INVALID_ARGUMENT)

    def test_an_empty_set_is_the_unconstrained_dynamics(self):
        cs = self.model.constraints()
        self.assertEqual(cs.num_rows, 0)
        x, tau = self.state()[:4], self.tau
        self.assertEqual(self.ws.constrained_dynamics(cs, *x, tau),
                         (self.ws.forward_dynamics(*x, tau), []))
        A, B, dz, dw = self.ws.constrained_linearize(cs, *x, tau)
        self.assertEqual(((A, B), dz, dw), (self.ws.linearize(*x, tau), [], []))
        for method in (geolin.STEP_SEMI_IMPLICIT_EULER, geolin.STEP_RK4):
            got = self.ws.constrained_step(cs, method, 1e-3, *x, tau)
            self.assertEqual(got, self.ws.step(method, 1e-3, *x, tau) + ([],))
            A_d, B_d, _, _ = self.ws.constrained_step_linearize(cs, method, 1e-3, *x, tau)
            self.assertEqual((A_d, B_d), self.ws.step_linearize(method, 1e-3, *x, tau))
        v1, r1, imp = self.ws.constrained_impulse(cs, *x)
        self.assertEqual((v1, r1, imp), (self.v, self.r, []))

    def test_a_coupling_holds_the_accelerations_in_ratio(self):
        joint, source, ratio = 4, 1, -0.7
        cs = self.model.constraints()
        self.assertEqual(cs.add_coupling(joint, source, ratio, 0.05), 0)
        self.assertEqual(cs.add_mimic_joints(), 0)  # the quadruped has no <mimic>
        self.assertEqual(cs.num_rows, 1)
        r = list(self.r)
        r[joint] = ratio * r[source]  # the velocity satisfies the coupling; gains are 0
        x = (self.H, self.s, self.v, r)
        nu, lam = self.ws.constrained_dynamics(cs, *x, self.tau)
        scale = max(1.0, max(abs(a) for a in nu))
        self.assertLess(abs(nu[6 + joint] - ratio * nu[6 + source]), 1e-9 * scale)
        free = self.ws.forward_dynamics(*x, self.tau)  # not held without the set
        self.assertGreater(abs(free[6 + joint] - ratio * free[6 + source]), 1e-3)
        # lambda is the generalized force on joint, -ratio times it on source
        tau = list(self.tau)
        tau[joint] += lam[0]
        tau[source] -= ratio * lam[0]
        for a, b in zip(nu, self.ws.forward_dynamics(*x, tau)):
            self.assertLess(abs(a - b), 1e-9 * scale)
        # a URDF <mimic> is the same coupling
        model = lists_model_from_string(MIMIC_URDF, geolin.FIXED_BASE)
        ws = model.workspace()
        cs = model.constraints()
        self.assertEqual(cs.add_mimic_joints(), 1)
        self.assertEqual((cs.num_rows, len(cs)), (1, 1))
        s, r = [0.3, 0.1 - 0.15], [0.8, -0.4]
        nu, lam = ws.constrained_dynamics(cs, None, s, None, r, [0.5, -0.2])
        self.assertLess(abs(nu[1] + 0.5 * nu[0]), 1e-9 * max(1.0, abs(nu[0])))
        self.assertGreater(abs(lam[0]), 1e-6)

    def test_misuse_names_the_argument_and_adds_nothing(self):
        cs = self.feet_set()
        x, tau = self.state()[:4], self.tau
        for call, name in [
                (lambda: cs.add_loop(self.feet[0], self.feet[0], geolin.LOOP_POINT), "'frame_b'"),
                (lambda: cs.add_loop(self.feet[0], self.feet[1], 4), "'type'"),
                (lambda: cs.add_contact(10 ** 6), "'frame'"),
                (lambda: cs.add_coupling(2, 2, 1.0, 0.0), "'source'"),
                (lambda: cs.add_wheel(self.feet[0], [0.0, 1.0, 0.0], -0.1), "'radius'"),
                (lambda: cs.add_wheel(self.feet[0], [0.0, 0.0, 0.0], 0.1), "'axis'"),
                (lambda: cs.set_gains(-1.0, 0.0), "'kp'"),
                (lambda: cs.set_ref(99, None), "'k'")]:
            with self.assertRaises(geolin.Error) as cm:
                call()
            self.assertEqual(cm.exception.status, geolin.ERR_INVALID_ARGUMENT)
            self.assertIn(name, cm.exception.message)
            self.assertEqual((cs.num_rows, len(cs)), (12, 4))  # nothing added
        other = lists_model(URDF).constraints()  # a set of another model
        with self.assertRaises(geolin.Error) as cm:
            self.ws.constrained_dynamics(other, *x, tau)
        self.assertIn("'set'", cm.exception.message)
        with self.assertRaises(geolin.Error) as cm:  # not a set
            self.ws.constrained_dynamics([self.feet], *x, tau)
        self.assertIn("'set'", cm.exception.message)
        with self.assertRaises(geolin.Error) as cm:  # rows beyond the workspace's room
            self.model.workspace(geolin.WORKSPACE_CONTACTS, 3).constrained_dynamics(cs, *x, tau)
        self.assertIn("max_wrenches", cm.exception.message)
        cs.close()
        cs.close()  # twice: a no-op
        with self.assertRaises(geolin.Error) as cm:
            self.ws.constrained_dynamics(cs, *x, tau)
        self.assertIn("'set'", cm.exception.message)


def lists_model_from_string(xml, flags=0):
    return Lists(geolin.Model.from_urdf_string(xml, flags))


def step_jacobians_by_central_differences(model, step, x, tau, eps=1e-6):
    """(A_d, B_d, dlambda_dz, dlambda_dw), column-major lists, of a step (x, tau) -> (x+, lambda)
    by central differences in the coordinates of step_linearize: x exp(z) -> x+ exp(A_d z +
    B_d w) for tau + w, read back with state_difference."""
    N, nj = model.state_dim, model.num_joints
    x_next, _ = step(x, tau)
    cols, lam_cols = [], []
    for k in range(N + nj):
        ends = []
        for sign in (1.0, -1.0):
            if k < N:
                z = [sign * eps if i == k else 0.0 for i in range(N)]
                ends.append(step(model.state_integrate(*x, z), tau))
            else:
                w = list(tau)
                w[k - N] += sign * eps
                ends.append(step(x, w))
        plus, minus = (model.state_difference(*x_next, *end[0]) for end in ends)
        cols.append([(a - b) / (2 * eps) for a, b in zip(plus, minus)])
        lam_cols.append([(a - b) / (2 * eps) for a, b in zip(ends[0][1], ends[1][1])])
    flat = [[value for col in part for value in col]
            for part in (cols[:N], cols[N:], lam_cols[:N], lam_cols[N:])]
    return tuple(flat)


class TestStepFeedback(unittest.TestCase):
    """step_feedback / contact_step_feedback (joint PD feedback tau + kp (s_ref - s) +
    kd (r_ref - r) inside the step) and their linearizations: without feedback they are step /
    contact_step exactly; the semi-implicit Euler step is step with the feedback torque of the
    initial state; every linearization matches central differences of its step."""

    METHODS = (geolin.STEP_SEMI_IMPLICIT_EULER, geolin.STEP_RK4, geolin.STEP_IMPLICIT_EULER)

    def setUp(self):
        self.tree = lists_model(URDF)
        self.tree_ws = self.tree.workspace()
        nj = self.tree.num_joints
        self.tree_x = (pose(0.4), [0.2 * i - 0.1 for i in range(nj)],
                       [0.1, -0.2, 0.3, 0.4, -0.5, 0.6], [0.3 - 0.1 * i for i in range(nj)])
        self.tree_tau = [0.5 * (i + 1) for i in range(nj)]
        self.tree_fb = ([20.0 + i for i in range(nj)], [2.0 + 0.5 * i for i in range(nj)],
                        [0.3 * math.sin(i) for i in range(nj)], [0.1] * nj)
        TestContacts.setUp(self)  # self.model, self.ws, self.feet, self.types: the quadruped
        nj = self.model.num_joints
        self.fb = ([60.0] * nj, [3.0] * nj, [(0.0, 0.8, -1.5)[i % 3] for i in range(nj)],
                   [0.0] * nj)

    def state(self):
        return self.H, self.s, self.v, self.r

    def feedback_torque(self, x, tau, fb):
        kp, kd, s_ref, r_ref = fb
        return [t + p * (sr - s) + d * (rr - r)
                for t, p, d, sr, rr, s, r in zip(tau, kp, kd, s_ref, r_ref, x[1], x[3])]

    def assertClose(self, got, expected, rel, msg=None):
        scale = 1.0 + max((abs(e) for e in expected), default=0.0)
        self.assertEqual(len(got), len(expected), msg)
        worst = max((abs(g - e) for g, e in zip(got, expected)), default=0.0)
        self.assertLess(worst, rel * scale, msg)

    def test_without_feedback_the_steps_are_step_and_contact_step_exactly(self):
        ws, x, tau, h = self.tree_ws, self.tree_x, self.tree_tau, 1e-3
        for method in self.METHODS:
            self.assertEqual(ws.step_feedback(method, h, *x, tau), ws.step(method, h, *x, tau))
            self.assertEqual(ws.step_feedback(method, h, *x, tau, None, None, None, None),
                             ws.step(method, h, *x, tau))
            self.assertEqual(ws.step_feedback_linearize(method, h, *x, tau),
                             ws.step_linearize(method, h, *x, tau))
            got = self.ws.contact_step_feedback(method, h, *self.state(), self.tau, None, None,
                                                None, None, self.feet, self.types)
            self.assertEqual(got, self.ws.contact_step(method, h, *self.state(), self.tau,
                                                       self.feet, self.types))
            got = self.ws.contact_step_feedback_linearize(method, h, *self.state(), self.tau,
                                                          None, None, None, None, self.feet,
                                                          self.types)
            self.assertEqual(got, self.ws.contact_step_linearize(
                method, h, *self.state(), self.tau, self.feet, self.types))

    def test_semi_implicit_euler_feeds_back_the_initial_state(self):
        euler, h = geolin.STEP_SEMI_IMPLICIT_EULER, 1e-3
        ws, x = self.tree_ws, self.tree_x
        total = self.feedback_torque(x, self.tree_tau, self.tree_fb)
        got = ws.step_feedback(euler, h, *x, self.tree_tau, *self.tree_fb)
        for a, b in zip(got, ws.step(euler, h, *x, total)):
            self.assertClose(a, b, 1e-12)
        x = self.state()
        total = self.feedback_torque(x, self.tau, self.fb)
        got = self.ws.contact_step_feedback(euler, h, *x, self.tau, *self.fb, self.feet,
                                            self.types)
        expected = self.ws.contact_step(euler, h, *x, total, self.feet, self.types)
        for a, b in zip(got, expected):
            self.assertClose(a, b, 1e-12)
        # the feedback acts: without it the step differs
        plain = self.ws.contact_step(euler, h, *x, self.tau, self.feet, self.types)
        self.assertGreater(max(abs(a - b) for a, b in zip(got[3], plain[3])), 1e-6)

    def test_step_feedback_linearize_matches_central_differences(self):
        ws, x, tau, h = self.tree_ws, self.tree_x, self.tree_tau, 1e-2
        for method in self.METHODS:
            A, B = ws.step_feedback_linearize(method, h, *x, tau, *self.tree_fb)
            fd = step_jacobians_by_central_differences(
                self.tree, lambda x, tau: (ws.step_feedback(method, h, *x, tau, *self.tree_fb),
                                           []), x, tau)
            self.assertClose(A, fd[0], 1e-6, "A_d, method %d" % method)
            self.assertClose(B, fd[1], 1e-6, "B_d, method %d" % method)

    def test_contact_step_feedback_linearize_matches_central_differences(self):
        h = 1e-2

        def step(x, tau):
            out = self.ws.contact_step_feedback(method, h, *x, tau, *self.fb, self.feet,
                                                self.types, geolin.WRENCH_MIXED)
            return out[:4], out[4]
        for method in self.METHODS:
            got = self.ws.contact_step_feedback_linearize(method, h, *self.state(), self.tau,
                                                          *self.fb, self.feet, self.types,
                                                          geolin.WRENCH_MIXED)
            fd = step_jacobians_by_central_differences(self.model, step, self.state(),
                                                       self.tau)
            for name, a, b in zip(("A_d", "B_d", "dlambda_dz", "dlambda_dw"), got, fd):
                self.assertClose(a, b, 1e-6, "%s, method %d" % (name, method))
            A, B, none_z, none_w = self.ws.contact_step_feedback_linearize(
                method, h, *self.state(), self.tau, *self.fb, self.feet, self.types,
                geolin.WRENCH_MIXED, dlambda=False)
            self.assertEqual((A, B, none_z, none_w), (got[0], got[1], None, None))

    @unittest.skipIf(np is None, "numpy is not installed for %s" % sys.executable)
    def test_default_results_are_arrays(self):
        ws = geolin.Model.from_urdf_file(QUADRUPED).workspace()
        x, h = self.state(), 1e-3
        got = ws.contact_step_feedback(geolin.STEP_RK4, h, *x, self.tau, *self.fb, self.feet,
                                       self.types)
        expected = self.ws.contact_step_feedback(geolin.STEP_RK4, h, *x, self.tau, *self.fb,
                                                 self.feet, self.types)
        for a, b, shape in zip(got, expected, [(4, 4), (12,), (6,), (12,), (12,)]):
            self.assertIsInstance(a, np.ndarray)
            self.assertEqual(a.shape, shape)
            self.assertEqual(a.ravel(order="F").tolist(), b)
        A, B = ws.step_feedback_linearize(geolin.STEP_IMPLICIT_EULER, h, *x, self.tau, *self.fb)
        self.assertEqual((A.shape, B.shape), ((36, 36), (36, 12)))

    def test_fixed_base_misuse_and_out_arrays(self):
        fixed = lists_model(URDF, geolin.FIXED_BASE)
        ws = fixed.workspace()
        _, s, _, r = self.tree_x
        H1, s1, v1, r1 = ws.step_feedback(geolin.STEP_RK4, 1e-3, None, s, None, r, self.tree_tau,
                                          *self.tree_fb)
        self.assertEqual((H1, v1, len(s1), len(r1)), (None, None, len(s), len(r)))
        kp = self.tree_fb[0]
        with self.assertRaises(geolin.Error) as cm:
            ws.step_feedback(geolin.STEP_RK4, 1e-3, None, s, None, r, self.tree_tau, kp[:-1])
        self.assertEqual(cm.exception.status, geolin.ERR_INVALID_ARGUMENT)
        self.assertIn("'kp'", cm.exception.message)
        with self.assertRaises(geolin.Error) as cm:
            ws.step_feedback_linearize(7, 1e-3, None, s, None, r, self.tree_tau)
        self.assertIn("method", cm.exception.message)
        # out= fills the given buffers, in place on the inputs; nothing written on failure
        x = [array.array("d", part) for part in self.state()]
        expected = self.ws.contact_step_feedback(geolin.STEP_RK4, 1e-3, *self.state(), self.tau,
                                                 *self.fb, self.feet, self.types)
        lam = array.array("d", [7.0] * 12)
        got = self.ws.contact_step_feedback(geolin.STEP_RK4, 1e-3, *x, self.tau, *self.fb,
                                            self.feet, self.types, out=(*x, lam))
        self.assertIs(got[4], lam)
        self.assertEqual([list(a) for a in x] + [list(lam)], list(expected))
        with self.assertRaises(geolin.Error):
            self.ws.contact_step_feedback(geolin.STEP_RK4, -1.0, *x, self.tau, *self.fb,
                                          self.feet, self.types, out=(*x, lam))
        self.assertEqual(list(lam), expected[4])


class TestWithoutNumpy(unittest.TestCase):
    def test_bindings_work_when_numpy_cannot_be_imported(self):
        code = "\n".join([
            "import sys",
            "sys.modules['numpy'] = None  # makes 'import numpy' fail",
            "sys.path.insert(0, %r)" % os.path.dirname(os.path.abspath(geolin.__file__)),
            "import geolin",
            "assert not geolin.HAVE_NUMPY",
            "m = geolin.Model.from_urdf_file(%r)" % URDF,
            "ws = m.workspace()",
            "nj = m.num_joints",
            "H = [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 1, 1]",
            "a = ws.forward_dynamics(H, [0.1] * nj, [0] * 6, [0] * nj, [0] * nj)",
            "assert isinstance(a, list) and abs(a[2] + 9.81) < 1e-12, a",
            "A, B = ws.linearize(H, [0.1] * nj, [0] * 6, [0] * nj, [0] * nj)",
            "assert isinstance(A, list) and len(A) == m.state_dim ** 2",
            "assert ws.linearize(H, [0.1] * nj, [0] * 6, [0] * nj, [0] * nj,",
            "                    as_numpy=False) == (A, B)",
            "assert isinstance(m.armature, list)",
            "import array",
            "out = array.array('d', [7.0] * len(a))",
            "assert ws.forward_dynamics(H, [0.1] * nj, [0] * 6, [0] * nj, [0] * nj,",
            "                           out=out) is out",
            "assert out.tolist() == a",
            "try:",
            "    ws.mass_matrix([0.1] * nj, as_numpy=True)",
            "except geolin.Error as e:",
            "    assert 'numpy' in e.message, e.message",
            "else:",
            "    raise AssertionError('as_numpy without numpy')",
            "print('ok')",
        ])
        proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                              env=dict(os.environ), timeout=120)
        self.assertEqual(proc.returncode, 0, proc.stderr)
        self.assertEqual(proc.stdout.strip(), "ok")


@unittest.skipIf(np is None, "numpy is not installed for %s" % sys.executable)
class TestNumpy(StateFixture):

    def arrays(self):
        return tuple(np.array(x) for x in (self.H, self.s, self.v, self.r, self.tau))

    def test_results_are_numpy_arrays_by_default_holding_the_lists_numbers(self):
        """Every kind of result, called without as_numpy: a float64 array of the documented
        shape, Fortran-ordered, whose column-major entries are the list result's."""
        model = geolin.Model.from_urdf_file(URDF)
        ws = model.workspace()
        n, N, nj = model.num_dofs, model.state_dim, model.num_joints
        x = (self.H, self.s, self.v, self.r)
        tool = model.frame_index("tool")
        z = [0.1 * k for k in range(N)]
        calls = [  # (name, call with **kw, shapes of the array results)
            ("forward_dynamics", lambda **kw: ws.forward_dynamics(*x, self.tau, **kw), [(n,)]),
            ("linearize", lambda **kw: ws.linearize(*x, self.tau, **kw), [(N, N), (N, nj)]),
            ("mass_matrix", lambda **kw: ws.mass_matrix(self.s, **kw), [(n, n)]),
            ("frame_pose", lambda **kw: ws.frame_pose(self.H, self.s, tool, **kw), [(4, 4)]),
            ("frame_jacobian", lambda **kw: ws.frame_jacobian(self.H, self.s, tool, **kw),
             [(6, n)]),
            ("step", lambda **kw: ws.step(geolin.STEP_RK4, 1e-3, *x, self.tau, **kw),
             [(4, 4), (nj,), (6,), (nj,)]),
            ("center_of_mass", lambda **kw: ws.center_of_mass(*x, **kw), [(3,), (3,), (3, n)]),
            ("state_integrate", lambda **kw: model.state_integrate(*x, z, **kw),
             [(4, 4), (nj,), (6,), (nj,)]),
            ("state_difference_derivatives",
             lambda **kw: model.state_difference_derivatives(*x, *x, **kw), [(N, N), (N, N)]),
        ]
        for name, call, shapes in calls:
            got, as_lists = call(), call(as_numpy=False)
            if len(shapes) == 1:
                got, as_lists = (got,), (as_lists,)
            for a, values, shape in zip(got, as_lists, shapes):
                self.assertIsInstance(a, np.ndarray, name)
                self.assertIsInstance(values, list, name)
                self.assertEqual((a.dtype, a.shape), (np.float64, shape), name)
                self.assertTrue(a.flags.f_contiguous, name)
                self.assertEqual(a.ravel(order="F").tolist(), values, name)
            # as_numpy=True, kept for compatibility, is the default
            for a, b in zip(got, call(as_numpy=True) if len(shapes) > 1 else (call(),)):
                np.testing.assert_array_equal(a, b)
        self.assertIsInstance(model.armature, np.ndarray)
        self.assertEqual(model.armature.tolist(), [0.0] * nj)
        # a result whose size is zero is an empty array of its shape
        _, lam = ws.contact_dynamics(*x, self.tau, [], [])
        self.assertEqual(lam.shape, (0,))

    def test_default_results_are_new_arrays_and_out_arrays_are_filled(self):
        model = geolin.Model.from_urdf_file(URDF)
        ws = model.workspace()
        N, nj = model.state_dim, model.num_joints
        A1, B1 = ws.linearize(*self.arrays())
        A2, B2 = ws.linearize(*self.arrays())
        self.assertFalse(np.shares_memory(A1, A2) or np.shares_memory(B1, B2))
        A, B = np.full((N, N), 7.0, order="F"), np.full((N, nj), 7.0, order="F")
        got = ws.linearize(*self.arrays(), out=(A, B))
        self.assertIs(got[0], A)
        self.assertIs(got[1], B)
        np.testing.assert_array_equal(A, A1)
        np.testing.assert_array_equal(B, B1)

    def test_numpy_inputs_give_the_list_results(self):
        self.assertTrue(geolin.HAVE_NUMPY)
        expected = self.ws.forward_dynamics(self.H, self.s, self.v, self.r, self.tau)
        got = self.ws.forward_dynamics(*self.arrays(), as_numpy=True)
        self.assertIsInstance(got, np.ndarray)
        self.assertEqual(got.tolist(), expected)
        A, B = self.ws.linearize(self.H, self.s, self.v, self.r, self.tau)
        An, Bn = self.ws.linearize(*self.arrays(), as_numpy=True)
        N, nj = self.model.state_dim, self.model.num_joints
        self.assertEqual((An.shape, Bn.shape), ((N, N), (N, nj)))
        self.assertEqual(An.ravel(order="F").tolist(), A)
        self.assertEqual(Bn.ravel(order="F").tolist(), B)
        # other dtypes and strided views are converted
        s32 = np.array(self.s, dtype=np.float32)
        self.assertEqual(self.ws.mass_matrix(s32), self.ws.mass_matrix([float(x) for x in s32]))
        strided = np.zeros(2 * len(self.s))
        strided[::2] = self.s
        self.assertEqual(self.ws.mass_matrix(strided[::2]), self.ws.mass_matrix(self.s))

    def test_pose_matrix_is_read_as_a_matrix_in_any_memory_order(self):
        expected = self.ws.forward_dynamics(self.H, self.s, self.v, self.r, self.tau)
        Hm = np.array(self.H).reshape((4, 4), order="F")  # the 4x4 matrix
        for H in (Hm, np.ascontiguousarray(Hm), np.asfortranarray(Hm)):
            self.assertEqual(self.ws.forward_dynamics(H, self.s, self.v, self.r, self.tau),
                             expected)

    def test_column_major_float64_inputs_are_not_copied(self):
        nj = self.model.num_joints
        for a in (np.array(self.s), np.asfortranarray(np.eye(4)), np.zeros((nj, 1))):
            ptr = geolin._in("s", a, a.size)
            self.assertEqual(ctypes.addressof(ptr), a.ctypes.data)
        readonly = np.array(self.s)
        readonly.flags.writeable = False
        ptr = geolin._in("s", readonly, nj)
        self.assertEqual(ctypes.cast(ptr, ctypes.c_void_p).value, readonly.ctypes.data)
        # a row-major matrix must be transposed into column-major order: a copy
        c_order = np.ascontiguousarray(np.arange(16.0).reshape(4, 4))
        self.assertNotEqual(ctypes.addressof(geolin._in("H", c_order, 16)), c_order.ctypes.data)

    def test_out_arrays_are_filled_in_place(self):
        N, n, nj = self.model.state_dim, self.model.num_dofs, self.model.num_joints
        H, s, v, r, tau = self.arrays()
        A = np.full((N, N), 7.0, order="F")
        B = np.full((N, nj), 7.0, order="F")
        ra, rb = self.ws.linearize(H, s, v, r, tau, out=(A, B))
        self.assertIs(ra, A)
        self.assertIs(rb, B)
        A2, B2 = self.ws.linearize(H, s, v, r, tau, as_numpy=True)
        np.testing.assert_array_equal(A, A2)
        np.testing.assert_array_equal(B, B2)
        nu = np.empty(n)
        self.assertIs(self.ws.forward_dynamics(H, s, v, r, tau, out=nu), nu)
        # in-place stepping
        Hs, ss, vs, rs = np.asfortranarray(H.reshape(4, 4, order="F")), s.copy(), v.copy(), r.copy()
        expected = self.ws.step(geolin.STEP_RK4, 1e-3, Hs, ss, vs, rs, tau)
        got = self.ws.step(geolin.STEP_RK4, 1e-3, Hs, ss, vs, rs, tau, out=(Hs, ss, vs, rs))
        self.assertIs(got[1], ss)
        self.assertEqual(Hs.ravel(order="F").tolist(), expected[0])
        self.assertEqual(ss.tolist(), expected[1])

    def test_bad_out_arrays_are_refused_and_failed_calls_write_nothing(self):
        N, n, nj = self.model.state_dim, self.model.num_dofs, self.model.num_joints
        H, s, v, r, tau = self.arrays()
        good_b = np.empty((N, nj), order="F")
        for bad, what in ((np.empty((N, N)), "Fortran"),            # C order matrix
                          (np.empty((N, N), dtype=np.float32, order="F"), "float64"),
                          (np.empty((N, N - 1), order="F"), "entries"),
                          (np.empty((2 * N, N), order="F")[::2], "Fortran")):
            with self.assertRaises(geolin.Error) as cm:
                self.ws.linearize(H, s, v, r, tau, out=(bad, good_b))
            self.assertIn("'A'", cm.exception.message)
            self.assertIn(what, cm.exception.message)
        readonly = np.empty(n)
        readonly.flags.writeable = False
        with self.assertRaises(geolin.Error) as cm:
            self.ws.forward_dynamics(H, s, v, r, tau, out=readonly)
        self.assertIn("read-only", cm.exception.message)
        A = np.full((N, N), 7.0, order="F")
        B = np.full((N, nj), 7.0, order="F")
        bad_tau = tau.copy()
        bad_tau[0] = np.nan
        with self.assertRaises(geolin.Error) as cm:
            self.ws.linearize(H, s, v, r, bad_tau, out=(A, B))
        self.assertEqual(cm.exception.status, geolin.ERR_NONFINITE)
        self.assertTrue((A == 7.0).all() and (B == 7.0).all())

    def test_arrays_of_strings_are_refused(self):
        nj = self.model.num_joints
        with self.assertRaises(geolin.Error) as cm:
            self.ws.forward_dynamics(self.H, self.s, self.v, self.r, np.array(["1.0"] * nj))
        self.assertEqual(cm.exception.status, geolin.ERR_INVALID_ARGUMENT)
        self.assertIn("'tau'", cm.exception.message)
        with self.assertRaises(geolin.Error) as cm:
            self.ws.forward_dynamics(self.H, self.s, self.v, self.r,
                                     np.array([object()] * nj))
        self.assertIn("'tau'", cm.exception.message)

    def test_wrench_arrays(self):
        tool = self.model.frame_index("tool")
        w = [1.0, -2.0, 0.5, 0.1, 0.2, -0.3]
        expected = self.ws.forward_dynamics_ext(self.H, self.s, self.v, self.r, self.tau,
                                                [tool, tool], [w, w])
        got = self.ws.forward_dynamics_ext(*self.arrays(), np.array([tool, tool]),
                                           np.array([w, w]))  # nf x 6, row k is wrench k
        self.assertEqual(got, expected)

    def test_contact_step_and_impulse_in_place_on_arrays(self):
        model = geolin.Model.from_urdf_file(QUADRUPED)
        ws = model.workspace()
        feet = np.array([model.frame_index(name) for name in FEET])
        types = np.full(4, geolin.CONTACT_POINT)
        nj = model.num_joints
        H = np.eye(4)
        H[2, 3] = 0.45
        s, v, r = np.tile([0.05, 0.7, -1.4], nj // 3), np.full(6, 0.1), np.full(nj, 0.2)
        tau = np.zeros(nj)
        Hn, sn, vn, rn, lam = ws.contact_step(geolin.STEP_RK4, 1e-3, H, s, v, r, tau, feet,
                                              types, as_numpy=True)
        self.assertEqual((Hn.shape, lam.shape), ((4, 4), (12,)))
        lam2 = np.zeros(12)
        H2, s2, v2, r2 = H.copy(order="F"), s.copy(), v.copy(), r.copy()
        ws.contact_step(geolin.STEP_RK4, 1e-3, H2, s2, v2, r2, tau, feet, types,
                        out=(H2, s2, v2, r2, lam2))  # the outputs alias the inputs
        for a, b in ((H2, Hn), (s2, sn), (v2, vn), (r2, rn), (lam2, lam)):
            self.assertTrue(np.array_equal(a, b))
        v1, r1, imp = ws.impulse(H, s, v, r, feet, types, as_numpy=True)
        ws.impulse(H, s, v, r, feet, types, out=(v, r, None))
        self.assertTrue(np.array_equal(v, v1) and np.array_equal(r, r1))
        A, D = ws.impulse_linearize(H, s, v, r, feet, types, as_numpy=True)
        self.assertEqual((A.shape, D.shape), ((2 * model.num_dofs,) * 2, (12, 2 * model.num_dofs)))

    def test_contact_arrays(self):
        model = geolin.Model.from_urdf_file(QUADRUPED)
        ws = model.workspace()
        N, n, nj = model.state_dim, model.num_dofs, model.num_joints
        feet = np.array([model.frame_index(name) for name in FEET])
        types = np.full(4, geolin.CONTACT_POINT)
        H = np.asfortranarray(np.array(pose(0.3, 0.05, -0.02, 0.45)).reshape(4, 4, order="F"))
        s = np.tile([0.05, 0.7, -1.4], 4)
        v, r, tau = np.zeros(6), np.full(nj, 0.1), np.full(nj, 0.2)
        A, B, dz, dw = ws.contact_linearize(H, s, v, r, tau, feet, types, as_numpy=True)
        self.assertEqual((A.shape, B.shape, dz.shape, dw.shape),
                         ((N, N), (N, nj), (12, N), (12, nj)))
        expected = ws.contact_linearize(H, s, v, r, tau, feet.tolist(), types.tolist(),
                                        as_numpy=False)
        self.assertEqual(dz.ravel(order="F").tolist(), expected[2])
        nu, lam = np.empty(n), np.empty(12)
        refs = np.stack([ws.frame_pose(H, s, int(f), as_numpy=True) for f in feet])  # 4 x 4 x 4
        got = ws.contact_dynamics(H, s, v, r, tau, feet, types, geolin.WRENCH_MIXED, [40.0, 9.0],
                                  refs, out=(nu, lam))
        self.assertIs(got[0], nu)
        self.assertIs(got[1], lam)
        flat = ws.contact_dynamics(H, s, v, r, tau, feet, types, geolin.WRENCH_MIXED,
                                   [40.0, 9.0], refs.transpose(0, 2, 1).reshape(-1).tolist(),
                                   as_numpy=False)
        self.assertEqual((nu.tolist(), lam.tolist()), flat)
        w = np.zeros((4, 6))
        w[:, :3] = lam.reshape(4, 3)
        nu_ext = ws.forward_dynamics_ext(H, s, v, r, tau, feet, w, geolin.WRENCH_MIXED,
                                         as_numpy=True)
        self.assertLess(np.max(np.abs(nu_ext - nu)), 1e-9 * max(1.0, np.max(np.abs(nu))))


if __name__ == "__main__":
    unittest.main(verbosity=2)
