/*
 * libblosc2-rs -- C API of the Rust implementation of Blosc2.
 * blosc2/filters-registry.h: identifiers of the globally registered filters.
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */
#ifndef BLOSC_BLOSC2_FILTERS_REGISTRY_H
#define BLOSC_BLOSC2_FILTERS_REGISTRY_H

#ifdef __cplusplus
extern "C" {
#endif

/* Filter ids in the "globally registered" range (32..159). */
enum {
  BLOSC_FILTER_NDCELL = 32,        /* groups the items of an n-dim cell together */
  BLOSC_FILTER_NDMEAN = 33,        /* replaces an n-dim cell by its mean */
  BLOSC_FILTER_BYTEDELTA_BUGGY = 34, /* legacy, flawed bytedelta; decoding only */
  BLOSC_FILTER_BYTEDELTA = 35,     /* byte-wise delta over typesize streams
                                      (meant to follow SHUFFLE/BITSHUFFLE) */
  BLOSC_FILTER_INT_TRUNC = 36,     /* integer precision truncation; filters_meta
                                      >0 keeps that many bits, <0 zeroes bits */
};

/* Registers the built-in plugin filters (called during library start-up). */
void register_filters(void);

/* Symbol names looked up in a dynamically loaded filter plugin. */
typedef struct {
  char *forward;
  char *backward;
} filter_info;

#ifdef __cplusplus
}
#endif

#endif /* BLOSC_BLOSC2_FILTERS_REGISTRY_H */
