/* io.h — tensor files: NumPy .npy (inputs and outputs) and safetensors
 * (weights).
 *
 * Both readers treat their input as hostile: every size in a header is
 * checked against the bytes actually present before anything is allocated,
 * so a truncated, corrupt or malicious file is a clear error, never a crash
 * or a huge allocation. Errors are written to `err` as
 *     PATH: error: WHAT
 * where PATH is the path given (or `name` for the *_parse forms). `err` may
 * be NULL to stay silent.
 *
 * Supported element types are those of TensorDType: float32/64, int8/16/32/64,
 * uint8 and bool, little-endian. Big-endian data, Fortran order, object
 * arrays, half floats and other types are refused with a message that says
 * which one was found.
 *
 * Ownership: every returned Tensor is a new reference that owns its data (a
 * copy), so the file or buffer it came from can go away at once.
 */
#ifndef TSSA_IO_H
#define TSSA_IO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "tssa/tensor.h"

/* ---------------------------------------------------------------- .npy */

/* Reads a .npy file (format versions 1.0, 2.0 and 3.0). NULL after an error. */
Tensor *npy_read(const char *path, FILE *err);
/* The same for a file already in memory; `name` stands for the path in messages. */
Tensor *npy_parse(const void *bytes, size_t len, const char *name, FILE *err);
/* Writes t (any strides, any offset) in logical row-major order as a C-order
 * .npy file, byte for byte what numpy.save writes for the same array. The
 * file appears atomically: the data goes to a temporary file beside `path`
 * that is renamed over it, so a reader never sees half an output. */
bool npy_write(const char *path, const Tensor *t, FILE *err);

/* ---------------------------------------------------------------- safetensors */

typedef struct Safetensors Safetensors;

/* Reads a whole safetensors file: every tensor is loaded (and validated)
 * here, so later lookups cannot fail on bad data. NULL after an error. */
Safetensors *safetensors_open(const char *path, FILE *err);
/* The same for a file in memory; copies what it keeps. */
Safetensors *safetensors_parse(const void *bytes, size_t len, const char *name, FILE *err);
/* The tensor stored under `name` as a new reference (the same tensor on every
 * call, as a module attribute is), or NULL if the file has none. */
Tensor *safetensors_get(const Safetensors *st, const char *name);
/* The value of `key` in the file's "__metadata__" map, or NULL. */
const char *safetensors_metadata(const Safetensors *st, const char *key);
/* Tensors in the order the file's header lists them. */
int safetensors_count(const Safetensors *st);
const char *safetensors_name(const Safetensors *st, int i);   /* NULL if i is out of range */
void safetensors_close(Safetensors *st);                      /* NULL is fine */

#endif
