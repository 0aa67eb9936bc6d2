/*
 * libblosc2-rs -- C API of the Rust implementation of Blosc2.
 * blosc2/tuners-registry.h: identifiers of the globally registered tuners.
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */
#ifndef BLOSC_BLOSC2_TUNERS_REGISTRY_H
#define BLOSC_BLOSC2_TUNERS_REGISTRY_H

#ifdef __cplusplus
extern "C" {
#endif

/* Tuner ids in the "globally registered" range (32..159). */
enum {
  BLOSC_BTUNE = 32,  /* the (external) Btune tuner */
};

/* Registers the built-in plugin tuners (called during library start-up). */
void register_tuners(void);

/* Symbol names looked up in a dynamically loaded tuner plugin. */
typedef struct {
  char *init;
  char *next_blocksize;
  char *next_cparams;
  char *update;
  char *free;
} tuner_info;

#ifdef __cplusplus
}
#endif

#endif /* BLOSC_BLOSC2_TUNERS_REGISTRY_H */
