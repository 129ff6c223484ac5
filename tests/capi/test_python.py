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
        self.assertEqual(geolin.version()[:2], (0, 1))
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


if __name__ == "__main__":
    unittest.main(verbosity=2)
