// Four threads share one model and one constraint set; each has its own workspace and its own
// gravity, linearizes its own states, evaluates the constrained dynamics and its linearization
// with the shared set (read-only during evaluations, geolin.h), and takes the differences between
// the states (the state algebra, with the model only). The results must equal the
// single-threaded ones bit for bit (docs/c-api.md rule 2). Run under ThreadSanitizer by
// cmake/tsan.sh.
//
// usage: test_threads <robot.urdf>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <thread>
#include <vector>

#include "geolin.h"

namespace {

constexpr int kThreads = 4;
constexpr int kStates = 8;

struct Job {
  int id = 0;
  double gravity[3];
  std::vector<std::vector<double>> H, s, v, r, tau;  // kStates each
};

struct Result {
  std::vector<std::vector<double>> nu_dot, A, B, z, dz_dx1;
  std::vector<std::vector<double>> c_nu_dot, c_lambda, c_A, c_dlambda_dz;  // with the shared set
  int status = GEOLIN_OK;
  char message[256] = "";
};

void rotation_z(double angle, double H[16]) {
  std::memset(H, 0, 16 * sizeof(double));
  H[0] = std::cos(angle);
  H[1] = std::sin(angle);
  H[4] = -std::sin(angle);
  H[5] = std::cos(angle);
  H[10] = 1.0;
  H[15] = 1.0;
}

// Evaluates all states of a job with a fresh workspace (shares only the model).
void run(const geolin_model *model, const geolin_constraints *set, const Job &job, Result &out) {
  const int nj = geolin_model_num_joints(model);
  const int n = geolin_model_num_dofs(model);
  const int N = geolin_model_state_dim(model);
  geolin_workspace *ws = nullptr;
  // A failure whose message must still be this thread's own after all the evaluations below.
  char expect[64];
  std::snprintf(expect, sizeof expect, "'body' = %d", 1000 + job.id);
  geolin_model_parent(model, 1000 + job.id);
  out.status = geolin_workspace_new(model, &ws);
  if (out.status == GEOLIN_OK) out.status = geolin_workspace_set_gravity(ws, job.gravity);
  out.nu_dot.assign(kStates, std::vector<double>(n));
  out.A.assign(kStates, std::vector<double>(static_cast<size_t>(N) * N));
  out.B.assign(kStates, std::vector<double>(static_cast<size_t>(N) * nj));
  out.z.assign(kStates, std::vector<double>(N));
  out.dz_dx1.assign(kStates, std::vector<double>(static_cast<size_t>(N) * N));
  const int m = geolin_constraints_num_rows(set);
  out.c_nu_dot.assign(kStates, std::vector<double>(n));
  out.c_lambda.assign(kStates, std::vector<double>(m));
  out.c_A.assign(kStates, std::vector<double>(static_cast<size_t>(N) * N));
  out.c_dlambda_dz.assign(kStates, std::vector<double>(static_cast<size_t>(m) * N));
  std::vector<double> B_scratch(static_cast<size_t>(N) * nj);
  for (int rep = 0; rep < 3 && out.status == GEOLIN_OK; ++rep) {
    for (int k = 0; k < kStates && out.status == GEOLIN_OK; ++k) {
      out.status =
          geolin_forward_dynamics(ws, job.H[k].data(), job.s[k].data(), job.v[k].data(),
                                  job.r[k].data(), job.tau[k].data(), out.nu_dot[k].data());
      if (out.status == GEOLIN_OK) {
        out.status =
            geolin_linearize(ws, job.H[k].data(), job.s[k].data(), job.v[k].data(), job.r[k].data(),
                             job.tau[k].data(), out.A[k].data(), out.B[k].data());
      }
      if (out.status == GEOLIN_OK) {
        out.status = geolin_constrained_dynamics(
            ws, set, job.H[k].data(), job.s[k].data(), job.v[k].data(), job.r[k].data(),
            job.tau[k].data(), out.c_nu_dot[k].data(), out.c_lambda[k].data());
      }
      if (out.status == GEOLIN_OK) {
        out.status =
            geolin_constrained_linearize(ws, set, job.H[k].data(), job.s[k].data(), job.v[k].data(),
                                         job.r[k].data(), job.tau[k].data(), out.c_A[k].data(),
                                         B_scratch.data(), out.c_dlambda_dz[k].data(), nullptr);
      }
      const int k1 = (k + 1) % kStates;  // log(x_k^-1 x_k1) and its derivative in x_k1
      if (out.status == GEOLIN_OK) {
        out.status =
            geolin_state_difference(model, job.H[k].data(), job.s[k].data(), job.v[k].data(),
                                    job.r[k].data(), job.H[k1].data(), job.s[k1].data(),
                                    job.v[k1].data(), job.r[k1].data(), out.z[k].data());
      }
      if (out.status == GEOLIN_OK) {
        out.status = geolin_state_difference_derivatives(
            model, job.H[k].data(), job.s[k].data(), nullptr, nullptr, job.H[k1].data(),
            job.s[k1].data(), nullptr, nullptr, nullptr, out.dz_dx1[k].data());
      }
    }
  }
  if (out.status != GEOLIN_OK) {
    std::snprintf(out.message, sizeof out.message, "%s", geolin_last_error());
  } else if (std::strstr(geolin_last_error(), expect) == nullptr) {
    // Another thread's failure leaked into this thread's geolin_last_error.
    out.status = -1;
    std::snprintf(out.message, sizeof out.message, "last error not thread-local: '%s'",
                  geolin_last_error());
  }
  geolin_workspace_free(ws);
}

}  // namespace

int main(int argc, char **argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s robot.urdf\n", argv[0]);
    return 2;
  }
  geolin_model *model = nullptr;
  if (geolin_model_load_urdf(argv[1], 0, &model) != GEOLIN_OK) {
    std::fprintf(stderr, "load: %s\n", geolin_last_error());
    return 1;
  }
  const int nj = geolin_model_num_joints(model);
  // The shared set: the tool held at a point and the second joint coupled to the first.
  geolin_constraints *set = nullptr;
  if (geolin_constraints_new(model, &set) != GEOLIN_OK ||
      geolin_constraints_add_contact(set, geolin_model_frame_index(model, "tool"),
                                     GEOLIN_CONTACT_POINT, nullptr) != GEOLIN_OK ||
      geolin_constraints_add_coupling(set, 1, 0, 0.5, 0.1) != GEOLIN_OK ||
      geolin_constraints_set_axes(set, GEOLIN_WRENCH_MIXED) != GEOLIN_OK) {
    std::fprintf(stderr, "constraint set: %s\n", geolin_last_error());
    return 1;
  }

  std::vector<Job> jobs(kThreads);
  for (int t = 0; t < kThreads; ++t) {
    Job &job = jobs[t];
    job.id = t;
    job.gravity[0] = 0.5 * t;
    job.gravity[1] = -0.25 * t;
    job.gravity[2] = -9.81 + t;
    for (int k = 0; k < kStates; ++k) {
      std::vector<double> H(16), s(nj), v(6), r(nj), tau(nj);
      rotation_z(0.3 * k + t, H.data());
      H[12] = 0.1 * t;
      H[13] = -0.2 * k;
      for (int i = 0; i < 6; ++i) v[i] = std::sin(1.0 + i + 7.0 * k + 3.0 * t);
      for (int i = 0; i < nj; ++i) {
        s[i] = std::sin(0.5 * i + k + 0.1 * t);
        r[i] = std::cos(0.7 * i - k + 0.2 * t);
        tau[i] = 0.1 * (i - k + t);
      }
      job.H.push_back(H);
      job.s.push_back(s);
      job.v.push_back(v);
      job.r.push_back(r);
      job.tau.push_back(tau);
    }
  }

  // Reference: sequentially, on this thread.
  std::vector<Result> reference(kThreads), parallel(kThreads);
  for (int t = 0; t < kThreads; ++t) run(model, set, jobs[t], reference[t]);

  // The same, with one thread per job, all at once, sharing the model.
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back(run, model, set, std::cref(jobs[t]), std::ref(parallel[t]));
  }
  for (auto &th : threads) th.join();

  int failures = 0;
  for (int t = 0; t < kThreads; ++t) {
    if (reference[t].status != GEOLIN_OK || parallel[t].status != GEOLIN_OK) {
      std::fprintf(stderr, "thread %d: status %d/%d: %s %s\n", t, reference[t].status,
                   parallel[t].status, reference[t].message, parallel[t].message);
      ++failures;
      continue;
    }
    for (int k = 0; k < kStates; ++k) {
      auto same = [](const std::vector<double> &a, const std::vector<double> &b) {
        return a.size() == b.size() &&
               (a.empty() || std::memcmp(a.data(), b.data(), a.size() * sizeof(double)) == 0);
      };
      if (!same(reference[t].nu_dot[k], parallel[t].nu_dot[k]) ||
          !same(reference[t].A[k], parallel[t].A[k]) ||
          !same(reference[t].B[k], parallel[t].B[k]) ||
          !same(reference[t].z[k], parallel[t].z[k]) ||
          !same(reference[t].dz_dx1[k], parallel[t].dz_dx1[k]) ||
          !same(reference[t].c_nu_dot[k], parallel[t].c_nu_dot[k]) ||
          !same(reference[t].c_lambda[k], parallel[t].c_lambda[k]) ||
          !same(reference[t].c_A[k], parallel[t].c_A[k]) ||
          !same(reference[t].c_dlambda_dz[k], parallel[t].c_dlambda_dz[k])) {
        std::fprintf(stderr, "thread %d state %d: results differ from single-threaded\n", t, k);
        ++failures;
      }
    }
  }
  geolin_constraints_free(set);
  geolin_model_free(model);
  std::printf("%d threads x %d states: %s\n", kThreads, kStates,
              failures ? "FAILED" : "bit-identical to single-threaded");
  return failures ? 1 : 0;
}
