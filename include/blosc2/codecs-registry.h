/*
 * libblosc2-rs -- C API of the Rust implementation of Blosc2.
 * blosc2/codecs-registry.h: identifiers of the globally registered codecs.
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */
#ifndef BLOSC_BLOSC2_CODECS_REGISTRY_H
#define BLOSC_BLOSC2_CODECS_REGISTRY_H

#ifdef __cplusplus
extern "C" {
#endif

/* Codec ids in the "globally registered" range (32..159). */
enum {
  BLOSC_CODEC_NDLZ = 32,                /* experimental n-dimensional LZ codec */
  BLOSC_CODEC_ZFP_FIXED_ACCURACY = 33,  /* ZFP, accuracy taken from compcode_meta */
  BLOSC_CODEC_ZFP_FIXED_PRECISION = 34, /* ZFP, precision taken from compcode_meta */
  BLOSC_CODEC_ZFP_FIXED_RATE = 35,      /* ZFP, rate taken from compcode_meta */
  BLOSC_CODEC_OPENHTJ2K = 36,           /* external plugin: OpenHTJ2K (JPEG 2000 HT) */
  BLOSC_CODEC_GROK = 37,                /* external plugin: Grok (JPEG 2000) */
  BLOSC_CODEC_OPENZL = 38,              /* external plugin: OpenZL */
  BLOSC_CODEC_J2K = 39,                 /* external plugin: JPEG 2000 */
  BLOSC_CODEC_HTJ2K = 40,               /* external plugin: High Throughput JPEG 2000 */
};

/* Registers the built-in plugin codecs (called during library start-up). */
void register_codecs(void);

/* Symbol names looked up in a dynamically loaded codec plugin. */
typedef struct {
  char *encoder;
  char *decoder;
} codec_info;

#ifdef __cplusplus
}
#endif

#endif /* BLOSC_BLOSC2_CODECS_REGISTRY_H */
