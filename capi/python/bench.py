"""The overhead of the Python bindings: each function through the wrapper against the same
function called through ctypes directly, and geolin_linearize against C.

    python3 capi/python/bench.py [URDF] [--seconds T]

For linearize, forward_dynamics, mass_matrix, frame_pose and step at one state of the humanoid
(the README's default state: base pitched 90 degrees, s_k = 0.5 sin(k+1), ...), prints the
median CPU time per call of

  raw      the library function called through ctypes with preallocated arrays and their
           pointers made once (ctypes' own cost: converting the arguments, the call);
  default  the wrapper with numpy inputs and its default outputs (new numpy arrays; lists
           when numpy is not installed, array.array inputs then);
  out=     the wrapper filling preallocated arrays (numpy, else array.array);
  lists    the wrapper with as_numpy=False (lists out),

and each one's overhead: its time / the raw time, the median of that ratio over alternating
batches of about 1 ms of the two (the raw column: the median of the raw batches). A last line
times geolin_linearize from a small C program compiled on the fly (needs cc; skipped
without). A benchmark, not a test: numbers depend on the machine and its load. Needs the
built library: GEOLIN_LIBRARY, else build/capi/libgeolin.so.0 of this source tree.
GEOLIN_PYTHON_DIR (default: this directory) chooses the geolin.py to time, e.g. an older one
to compare.
"""
import argparse
import array
import ctypes
import math
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, os.environ.get("GEOLIN_PYTHON_DIR", HERE))
os.environ.setdefault("GEOLIN_LIBRARY", os.path.join(ROOT, "build", "capi", "libgeolin.so.0"))
import geolin  # noqa: E402

try:
    import numpy as np
except ImportError:
    np = None

C_TIMER = r"""
#include <geolin.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t); /* not the time spent preempted */
  return t.tv_sec + 1e-9 * t.tv_nsec;
}
static int cmp(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}
int main(int argc, char **argv) {
  geolin_model *m = NULL;
  geolin_workspace *ws = NULL;
  double seconds = atof(argv[2]);
  if (geolin_model_load_urdf(argv[1], 0, &m) || geolin_workspace_new(m, &ws)) {
    fprintf(stderr, "%s\n", geolin_last_error());
    return 1;
  }
  int nj = geolin_model_num_joints(m), N = geolin_model_state_dim(m);
  double H[16] = {0, 0, -1, 0, 0, 1, 0, 0, 1, 0, 0, 0, 0, 0, 1, 1}; /* pitch 90 deg, z = 1 */
  double v[6] = {0.3, 0, 0, 0, 0.5, 0.2};
  double *s = malloc(sizeof(double) * (nj + 1)), *r = malloc(sizeof(double) * (nj + 1));
  double *tau = malloc(sizeof(double) * (nj + 1));
  double *A = malloc(sizeof(double) * N * N), *B = malloc(sizeof(double) * (N * nj + 1));
  for (int k = 0; k < nj; ++k) {
    s[k] = 0.5 * sin(k + 1.0);
    r[k] = 0.4 * cos(k + 1.0);
    tau[k] = 2 * sin(2.0 * k + 1);
  }
  int batch = 1;
  for (;;) { /* a batch of about 1 ms */
    double t0 = now();
    for (int i = 0; i < batch; ++i) geolin_linearize(ws, H, s, v, r, tau, A, B);
    if (now() - t0 > 1e-3) break;
    batch *= 2;
  }
  int count = (int)(seconds / 1e-3) + 1;
  double *per_call = malloc(sizeof(double) * count);
  for (int b = 0; b < count; ++b) {
    double t0 = now();
    for (int i = 0; i < batch; ++i)
      if (geolin_linearize(ws, H, s, v, r, tau, A, B)) return 1;
    per_call[b] = (now() - t0) / batch;
  }
  qsort(per_call, count, sizeof(double), cmp);
  printf("%.9g\n", per_call[count / 2]);
  return 0;
}
"""


def c_linearize_seconds(urdf, seconds):
    lib = os.environ["GEOLIN_LIBRARY"]
    libdir = os.path.dirname(os.path.abspath(lib))
    with tempfile.TemporaryDirectory() as tmp:
        src, exe = os.path.join(tmp, "timer.c"), os.path.join(tmp, "timer")
        with open(src, "w") as f:
            f.write(C_TIMER)
        subprocess.run(["cc", "-O2", "-std=c99", "-D_POSIX_C_SOURCE=199309L", src,
                        "-I" + os.path.join(ROOT, "capi"), os.path.abspath(lib),
                        "-Wl,-rpath," + libdir, "-lm", "-o", exe], check=True)
        out = subprocess.run([exe, urdf, str(seconds)], check=True, capture_output=True,
                             text=True).stdout
    return float(out)


def batch_size(call):
    """Calls per batch of about 1 ms."""
    batch = 1
    while True:
        t0 = time.thread_time()
        for _ in range(batch):
            call()
        if time.thread_time() - t0 > 1e-3:
            return batch
        batch *= 2


def per_call(call, batch):
    """CPU time per call of this thread (not the time it waits for a core on a busy machine)."""
    t0 = time.thread_time()
    for _ in range(batch):
        call()
    return (time.thread_time() - t0) / batch


def paired_seconds(raw, call, seconds):
    """(median time per raw call, median time per call, median of their ratio) over batches of
    about 1 ms that alternate between the two for `seconds`: on a shared machine both see the
    same load, and the ratio of each pair is less noisy than the ratio of the medians."""
    raw_batch, batch = batch_size(raw), batch_size(call)
    raw_times, times, ratios = [], [], []
    end = time.perf_counter() + seconds
    while time.perf_counter() < end or len(times) < 5:
        raw_times.append(per_call(raw, raw_batch))
        times.append(per_call(call, batch))
        ratios.append(times[-1] / raw_times[-1])
    return statistics.median(raw_times), statistics.median(times), statistics.median(ratios)


def vector(values):
    """An input or output of the wrapper: a float64 numpy array, else an array.array."""
    return np.array(values, dtype=float) if np is not None else array.array("d", values)


def matrix(rows, cols):
    """A preallocated output matrix: Fortran-ordered numpy, else a flat array.array."""
    if np is not None:
        return np.zeros((rows, cols), order="F")
    return array.array("d", bytes(8 * rows * cols))


def pointer(buf):
    """A ctypes array over a buffer's memory (made once: the raw calls' preallocated pointer)."""
    count = len(buf) if not hasattr(buf, "size") else buf.size
    data = buf if np is None or buf.ndim == 1 else buf.T  # row-major view of the same memory
    return (ctypes.c_double * count).from_buffer(data)


def cases(ws, model):
    """(name, raw call, wrapper default, wrapper out=, wrapper lists) per function."""
    lib = geolin.load_library()
    h = ws._h
    nj, n, N = model.num_joints, model.num_dofs, model.state_dim
    H = vector([0, 0, -1, 0, 0, 1, 0, 0, 1, 0, 0, 0, 0, 0, 1, 1])  # pitch 90 degrees, z = 1
    v = vector([0.3, 0, 0, 0, 0.5, 0.2])
    s = vector([0.5 * math.sin(k + 1) for k in range(nj)])
    r = vector([0.4 * math.cos(k + 1) for k in range(nj)])
    tau = vector([2 * math.sin(2 * k + 1) for k in range(nj)])
    A, B, M, Hf = matrix(N, N), matrix(N, nj), matrix(n, n), matrix(4, 4)
    nu, H1, s1, v1, r1 = vector([0] * n), matrix(4, 4), vector([0] * nj), vector([0] * 6), \
        vector([0] * nj)
    pH, ps, pv, pr, ptau = (pointer(x) for x in (H, s, v, r, tau))
    pA, pB, pM, pHf, pnu = (pointer(x) for x in (A, B, M, Hf, nu))
    pH1, ps1, pv1, pr1 = (pointer(x) for x in (H1, s1, v1, r1))
    frame = model.num_frames - 1
    rk4, dt = geolin.STEP_RK4, 1e-3
    return [
        ("linearize",
         lambda: lib.geolin_linearize(h, pH, ps, pv, pr, ptau, pA, pB),
         lambda: ws.linearize(H, s, v, r, tau),
         lambda: ws.linearize(H, s, v, r, tau, out=(A, B)),
         lambda: ws.linearize(H, s, v, r, tau, as_numpy=False)),
        ("forward_dynamics",
         lambda: lib.geolin_forward_dynamics(h, pH, ps, pv, pr, ptau, pnu),
         lambda: ws.forward_dynamics(H, s, v, r, tau),
         lambda: ws.forward_dynamics(H, s, v, r, tau, out=nu),
         lambda: ws.forward_dynamics(H, s, v, r, tau, as_numpy=False)),
        ("mass_matrix",
         lambda: lib.geolin_mass_matrix(h, ps, pM),
         lambda: ws.mass_matrix(s),
         lambda: ws.mass_matrix(s, out=M),
         lambda: ws.mass_matrix(s, as_numpy=False)),
        ("frame_pose",
         lambda: lib.geolin_frame_pose(h, pH, ps, frame, pHf),
         lambda: ws.frame_pose(H, s, frame),
         lambda: ws.frame_pose(H, s, frame, out=Hf),
         lambda: ws.frame_pose(H, s, frame, as_numpy=False)),
        ("step (RK4)",
         lambda: lib.geolin_step(h, rk4, dt, pH, ps, pv, pr, ptau, pH1, ps1, pv1, pr1),
         lambda: ws.step(rk4, dt, H, s, v, r, tau),
         lambda: ws.step(rk4, dt, H, s, v, r, tau, out=(H1, s1, v1, r1)),
         lambda: ws.step(rk4, dt, H, s, v, r, tau, as_numpy=False)),
    ]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("urdf", nargs="?", default=os.path.join(ROOT, "models", "humanoid.urdf"))
    parser.add_argument("--seconds", type=float, default=0.5, help="per variant (default 0.5)")
    args = parser.parse_args()

    model = geolin.Model.from_urdf_file(args.urdf)
    ws = model.workspace()
    print("%s: n_J = %d, N = %d; numpy %s; bindings %s" % (
        os.path.basename(args.urdf), model.num_joints, model.state_dim,
        np.__version__ if np is not None else "absent", os.path.abspath(geolin.__file__)))
    print("time per call in us (overhead: / raw ctypes)")
    print("%-18s %9s %18s %18s %18s" % ("function", "raw", "default", "out=", "lists"))
    for name, raw, *wrapped in cases(ws, model):
        raw_times, cells = [], []
        for call in wrapped:
            raw_t, t, ratio = paired_seconds(raw, call, args.seconds)
            raw_times.append(raw_t)
            cells.append("%8.2f (%5.2fx)" % (t * 1e6, ratio))
        print("%-18s %9.2f %s" % (name, statistics.median(raw_times) * 1e6,
                                   " ".join("%18s" % c for c in cells)))
    if shutil.which("cc"):
        c = c_linearize_seconds(args.urdf, args.seconds)
        print("%-18s %9.2f   (C program, no ctypes)" % ("linearize from C", c * 1e6))


if __name__ == "__main__":
    main()
