/* The counters and the CHECK macro of the C API test programs (one program per .c file): a
 * failed check prints its file, line, condition, message and the library's last error, and
 * the program's exit status reports whether any check failed. */
#ifndef GEOLIN_TESTS_CAPI_CHECK_H
#define GEOLIN_TESTS_CAPI_CHECK_H

#include <stdio.h>

#include "geolin.h"

static int g_passed = 0;
static int g_failed = 0;

#define CHECK(cond, ...)                                              \
  do {                                                                \
    if (cond) {                                                       \
      ++g_passed;                                                     \
    } else {                                                          \
      ++g_failed;                                                     \
      fprintf(stderr, "FAIL %s:%d: %s: ", __FILE__, __LINE__, #cond); \
      fprintf(stderr, __VA_ARGS__);                                   \
      fprintf(stderr, " [last error: %s]\n", geolin_last_error());    \
    }                                                                 \
  } while (0)

/* x[0..count) = value (a sentinel before a call, to see what the call wrote). */
static inline void fill(double *x, int count, double value) {
  int i;
  for (i = 0; i < count; ++i) x[i] = value;
}

/* Whether x[0..count) all still hold value (the sentinel: the call wrote nothing there). */
static inline int all_equal(const double *x, int count, double value) {
  int i;
  for (i = 0; i < count; ++i)
    if (x[i] != value) return 0;
  return 1;
}

#endif
