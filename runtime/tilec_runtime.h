/*===- tilec_runtime.h - Host-side runtime for tilec kernels ------*- C -*-===*\
 *
 * Included by the host code tilec generates (NAME.h / NAME.cu) and by the
 * programs that call it. Header-only, C and C++, no dependency besides the
 * C library; installed as <prefix>/include/tilec/tilec_runtime.h.
 *
 * Every generated launcher returns a tilecStatus; tilecGetErrorString turns
 * any int (also values outside the enum) into a printable, static string.
 *
\*===----------------------------------------------------------------------===*/
#ifndef TILEC_RUNTIME_H
#define TILEC_RUNTIME_H

#ifdef __cplusplus
extern "C" {
#endif

typedef enum tilecStatus {
  TILEC_SUCCESS = 0,
  TILEC_ERROR_INVALID_ARGUMENT = 1,
  TILEC_ERROR_LAUNCH_FAILED = 2,
  TILEC_ERROR_UNSUPPORTED = 3,
  TILEC_ERROR_OUT_OF_MEMORY = 4,
  TILEC_ERROR_SHAPE_MISMATCH = 5
} tilecStatus;

static inline const char *tilecGetErrorString(int Status) {
  switch (Status) {
  case TILEC_SUCCESS:
    return "success";
  case TILEC_ERROR_INVALID_ARGUMENT:
    return "invalid argument";
  case TILEC_ERROR_LAUNCH_FAILED:
    return "kernel launch failed";
  case TILEC_ERROR_UNSUPPORTED:
    return "unsupported on this device";
  case TILEC_ERROR_OUT_OF_MEMORY:
    return "out of memory";
  case TILEC_ERROR_SHAPE_MISMATCH:
    return "argument shape does not match the kernel";
  }
  return "unknown tilec error";
}

#ifdef __cplusplus
}
#endif

#endif /* TILEC_RUNTIME_H */
