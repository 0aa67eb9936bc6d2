/* blosc_set_timestamp / blosc_elapsed_nsecs / blosc_elapsed_secs */
#include "test_common.h"
#include <time.h>

int main(void) {
  blosc_timestamp_t t0, t1, t2;
  blosc_set_timestamp(&t0);
  struct timespec req = {0, 20 * 1000 * 1000}; /* 20 ms */
  nanosleep(&req, NULL);
  blosc_set_timestamp(&t1);
  double ns = blosc_elapsed_nsecs(t0, t1);
  double s = blosc_elapsed_secs(t0, t1);
  CHECK_MSG(ns >= 19e6 && ns < 5e9, "ns=%g", ns);
  CHECK_MSG(s >= 0.019 && s < 5.0, "s=%g", s);
  CHECK_MSG(ns / 1e9 > s * 0.999 && ns / 1e9 < s * 1.001, "ns=%g s=%g", ns, s);
  /* same timestamp: zero; reversed: negative */
  CHECK(blosc_elapsed_nsecs(t0, t0) == 0.0);
  CHECK(blosc_elapsed_secs(t1, t1) == 0.0);
  CHECK(blosc_elapsed_nsecs(t1, t0) < 0.0);
  CHECK(blosc_elapsed_secs(t1, t0) < 0.0);
  /* monotonic */
  blosc_set_timestamp(&t2);
  CHECK(blosc_elapsed_nsecs(t1, t2) >= 0.0);
  /* exact arithmetic on hand-made timestamps */
  blosc_timestamp_t a, b;
  a.tv_sec = 10; a.tv_nsec = 999999000;
  b.tv_sec = 12; b.tv_nsec = 1000;
  CHECK_MSG(blosc_elapsed_nsecs(a, b) == 1000002000.0, "%f", blosc_elapsed_nsecs(a, b));
  CHECK_MSG(blosc_elapsed_secs(a, b) > 1.000001999 && blosc_elapsed_secs(a, b) < 1.000002001, "%f",
            blosc_elapsed_secs(a, b));
  TEST_MAIN_END("test_timestamp");
}
