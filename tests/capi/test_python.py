"""Tests of the ctypes bindings capi/python/geolin.py against the built library.

Environment: GEOLIN_LIBRARY (path to libgeolin.so.0), GEOLIN_PYTHON_DIR (capi/python),
GEOLIN_TEST_URDF (tests/capi/tree.urdf).
"""
import math
import os
import sys
import threading
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.environ.get("GEOLIN_PYTHON_DIR",
                                  os.path.join(HERE, "..", "..", "capi", "python")))
import geolin  # noqa: E402

URDF = os.environ.get("GEOLIN_TEST_URDF", os.path.join(HERE, "tree.urdf"))
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


def pose(angle, x=0.1, y=-0.2, z=0.3):
    c, s = math.cos(angle), math.sin(angle)
    return [c, s, 0, 0, -s, c, 0, 0, 0, 0, 1, 0, x, y, z, 1]


class TestGeolin(unittest.TestCase):
    def setUp(self):
        self.model = geolin.Model.from_urdf_file(URDF)
        self.ws = self.model.workspace()
        nj = self.model.num_joints
        self.H = pose(0.4)
        self.v = [0.1, -0.2, 0.3, 0.4, -0.5, 0.6]
        self.s = [0.2 * i - 0.1 for i in range(nj)]
        self.r = [0.3 - 0.1 * i for i in range(nj)]
        self.tau = [0.5 * (i + 1) for i in range(nj)]

    def test_version_and_status(self):
        major, minor, patch = header_version()
        self.assertEqual(geolin.version(), (major, minor, patch))
        # the bindings may be older than the header (within one major version), never newer
        self.assertEqual(geolin.HEADER_VERSION[0], major)
        self.assertLessEqual(geolin.HEADER_VERSION[1], minor)
        self.assertIn("GEOLIN_OK", geolin.status_string(geolin.OK))
        self.assertEqual(geolin.status_string(42), "unknown status")

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
        fixed = geolin.Model.from_urdf_file(URDF, geolin.FIXED_BASE)
        ws = fixed.workspace()
        H1, s1, v1, r1 = ws.step(geolin.STEP_RK4, 1e-3, None, self.s, None, self.r, self.tau)
        self.assertIsNone(H1)
        self.assertIsNone(v1)
        self.assertEqual(len(s1), nj)


if __name__ == "__main__":
    unittest.main(verbosity=2)
