"""The cost of a call through the Python bindings, against the same call from C.

    python3 capi/python/bench.py [URDF] [--seconds T]

Times geolin_linearize at one state (the README's default state: base pitched 90 degrees,
s_k = 0.5 sin(k+1), ...) from a small C program compiled on the fly against the library, and
Workspace.linearize from Python with lists, with array.array buffers and out= (no numpy), with
numpy arrays (as_numpy=True) and with numpy arrays and out=. Prints the median time per call
of each and its ratio to the C call. Needs a C compiler (cc) and the built library: the
environment variable GEOLIN_LIBRARY, else build/capi/libgeolin.so.0 of this source tree.
"""
import argparse
import array
import math
import os
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, HERE)
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
  clock_gettime(CLOCK_MONOTONIC, &t);
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


def median_seconds(call, seconds):
    """Median time per call over batches of about 1 ms, for `seconds` in total."""
    batch = 1
    while True:
        t0 = time.perf_counter()
        for _ in range(batch):
            call()
        if time.perf_counter() - t0 > 1e-3:
            break
        batch *= 2
    times = []
    end = time.perf_counter() + seconds
    while time.perf_counter() < end or len(times) < 5:
        t0 = time.perf_counter()
        for _ in range(batch):
            call()
        times.append((time.perf_counter() - t0) / batch)
    return statistics.median(times)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("urdf", nargs="?", default=os.path.join(ROOT, "models", "humanoid.urdf"))
    parser.add_argument("--seconds", type=float, default=1.0, help="per variant (default 1)")
    args = parser.parse_args()

    model = geolin.Model.from_urdf_file(args.urdf)
    ws = model.workspace()
    nj, N = model.num_joints, model.state_dim
    H = [0, 0, -1, 0, 0, 1, 0, 0, 1, 0, 0, 0, 0, 0, 1, 1]
    v = [0.3, 0, 0, 0, 0.5, 0.2]
    s = [0.5 * math.sin(k + 1) for k in range(nj)]
    r = [0.4 * math.cos(k + 1) for k in range(nj)]
    tau = [2 * math.sin(2 * k + 1) for k in range(nj)]

    variants = [("lists in, lists out", lambda: ws.linearize(H, s, v, r, tau))]
    Hb, sb, vb, rb, taub = (array.array("d", x) for x in (H, s, v, r, tau))
    Ab, Bb = array.array("d", bytes(8 * N * N)), array.array("d", bytes(8 * N * nj))
    variants.append(("array.array in, out=", lambda: ws.linearize(Hb, sb, vb, rb, taub,
                                                                  out=(Ab, Bb))))
    if np is not None:
        Hn, sn, vn, rn, taun = (np.array(x, dtype=float) for x in (H, s, v, r, tau))
        An, Bn = np.empty((N, N), order="F"), np.empty((N, nj), order="F")
        variants.append(("numpy in, as_numpy=True",
                         lambda: ws.linearize(Hn, sn, vn, rn, taun, as_numpy=True)))
        variants.append(("numpy in, out=", lambda: ws.linearize(Hn, sn, vn, rn, taun,
                                                                out=(An, Bn))))

    c = c_linearize_seconds(args.urdf, args.seconds)
    print("%s: n_J = %d, N = %d; numpy %s" % (os.path.basename(args.urdf), nj, N,
                                             np.__version__ if np is not None else "absent"))
    print("%-28s %10.2f us   1.00x" % ("C geolin_linearize", c * 1e6))
    for name, call in variants:
        t = median_seconds(call, args.seconds)
        print("%-28s %10.2f us  %5.2fx" % ("Python, " + name, t * 1e6, t / c))


if __name__ == "__main__":
    main()
