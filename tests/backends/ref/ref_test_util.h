/* ref_test_util.h — helpers shared by the unit tests that run graphs on the
 * ref backend (backends/ref, eval, frontend) beyond tests/test_util.h
 * (checks, failure counting): parsing a graph from a string, running it on
 * the ref backend with its error stream captured, and building small tensors.
 * Header-only (static functions), so each test program stays one file.
 */
#ifndef TSSA_TESTS_REF_TEST_UTIL_H
#define TSSA_TESTS_REF_TEST_UTIL_H

#define _GNU_SOURCE
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test_util.h"
#include "tssa/backend.h"
#include "tssa/frontend.h"
#include "tssa/io.h"
#include "tssa/ir.h"
#include "tssa/tensor.h"
#include "tssa/value.h"

static inline IrGraph *parse_graph(const char *text)
{
    IrGraph *g = ir_parse(text, strlen(text), "test.ir", stderr);
    if (!g) {
        fprintf(stderr, "FAIL: test graph does not parse:\n%s", text);
        test_failures++;
    }
    return g;
}

/* The result of one run: status, outputs, and what went to the error stream. */
typedef struct RunResult {
    int status;
    RtValue **outputs;
    int noutputs;
    char *err;
} RunResult;

static inline RunResult run_graph(IrGraph *g, RtValue **inputs, int ninputs,
                                  const Safetensors *weights)
{
    RunResult r = {0};
    size_t len = 0;
    FILE *err = open_memstream(&r.err, &len);
    r.status = backend_ref_run(g, inputs, ninputs, weights, &r.outputs, &r.noutputs, err);
    fclose(err);
    return r;
}

static inline void run_result_free(RunResult *r)
{
    for (int i = 0; i < r->noutputs; i++)
        rt_release(r->outputs[i]);
    free(r->outputs);
    free(r->err);
}

/* A 1-d float32 tensor holding the n values. */
static inline Tensor *vector_f32(int n, const double *values)
{
    int64_t size = n;
    Tensor *t = tensor_zeros(DT_F32, 1, &size);
    for (int i = 0; i < n; i++)
        tensor_set_flat(t, i, values[i]);
    return t;
}

static inline bool tensor_equals(const Tensor *t, int n, const double *values)
{
    if (!t || tensor_numel(t) != n)
        return false;
    for (int i = 0; i < n; i++)
        if (tensor_get_flat(t, i) != values[i])
            return false;
    return true;
}

#endif
