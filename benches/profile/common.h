/* Helpers shared by the profiling drivers in this directory (each driver is
   a standalone program; this header is found next to it). */
#ifndef B2RS_PROFILE_COMMON_H
#define B2RS_PROFILE_COMMON_H

#include <stdint.h>
#include <time.h>

/* Monotonic time in seconds. */
static inline double seconds(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* The next word of a 64-bit pseudo-random sequence (a SplitMix64 step), so
   that every driver builds the same datasets from the same seed. */
static inline uint64_t next_word(uint64_t *state) {
  uint64_t z = (*state += 0x9E3779B97F4A7C15ULL);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

#endif
