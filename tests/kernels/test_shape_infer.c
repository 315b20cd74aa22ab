/* test_shape_infer — static shapes and dtypes against PyTorch's.
 *
 *   test_shape_infer CASE_DIR...
 * For every corpus case given (tests/models/<case>, tests/ops/<case>: graph
 * text, bindings, and expected/outN.npy written by PyTorch eager), the case
 * is bound, functionalized, specialized and shape-inferred as the driver
 * does; then every graph output that is a tensor and whose type inference
 * refined is compared with the dtype and shape of its expected/outN.npy
 * (cases whose outputs are all tensors, so output k is outN.npy with N = k).
 * Expected values come from PyTorch, never from the code under test. It
 * fails on any disagreement, and when fewer than 40% of the compared
 * outputs were refined (inference that quietly stopped working would
 * otherwise pass by comparing nothing; about half are refined today: the op
 * corpus has many ops without a rule, whose values stay unknown).
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "test_util.h"
#include "tssa/frontend.h"
#include "tssa/functionalize.h"
#include "tssa/io.h"
#include "tssa/lower.h"
#include "tssa/shapes.h"

static int refined, unrefined, compared;

static char *read_args(const char *dir, char **argv, int *argc, char *buf, size_t size)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/args.txt", dir);
    FILE *f = fopen(path, "r");
    *argc = 0;
    if (!f)
        return NULL;
    size_t n = fread(buf, 1, size - 1, f);
    fclose(f);
    buf[n] = '\0';
    for (char *tok = strtok(buf, " \t\n"); tok && *argc < 63; tok = strtok(NULL, " \t\n"))
        argv[(*argc)++] = tok;
    return buf;
}

static void check_case(const char *dir)
{
    char model[4096], buf[8192], *argv[64];
    int argc;
    snprintf(model, sizeof model, "%s/model.ir", dir);
    if (!read_args(dir, argv, &argc, buf, sizeof buf))
        return;
    const char *weights = NULL;
    char *bind[64];
    int nbind = 0;
    for (int i = 0; i < argc; i++) {
        if (strcmp(argv[i], "--weights") == 0 && i + 1 < argc)
            weights = argv[++i];
        else
            bind[nbind++] = argv[i];
    }
    char cwd[4096];
    if (!getcwd(cwd, sizeof cwd) || chdir(dir) != 0)
        return;
    IrGraph *g = ir_parse_file("model.ir", NULL);
    RtValue **inputs = NULL;
    int ninputs = 0;
    Safetensors *w = NULL;
    if (g && bindings_resolve(g, nbind, bind, weights, &inputs, &ninputs, &w, NULL)) {
        TssaOptions opt;
        TssaReport rep;
        tssa_options_default(&opt);
        opt.weights = w;
        opt.inputs_disjoint = tssa_inputs_disjoint(inputs, ninputs);
        int status = 0;
        LowerProgram *p = NULL;
        if (tssa_functionalize(g, &opt, &rep, NULL) &&
            (p = lower_specialize(g, inputs, ninputs, w, NULL, &status)) &&
            shape_infer(p, inputs, ninputs, NULL, &status)) {
            IrBlock *top = g->top;
            bool all_tensors = true;
            for (int k = 0; k < ir_block_nreturns(top); k++)
                all_tensors &= ir_block_return(top, k)->type &&
                               ir_block_return(top, k)->type->kind == TY_TENSOR;
            for (int k = 0; all_tensors && k < ir_block_nreturns(top); k++) {
                char path[4096];
                snprintf(path, sizeof path, "expected/out%d.npy", k);
                Tensor *want = npy_read(path, NULL);
                if (!want)
                    break;
                const IrTensorType *t = shape_of(ir_block_return(top, k));
                compared++;
                if (!t) {
                    unrefined++;
                } else {
                    refined++;
                    bool same = t->dtype == (int)want->dtype && t->rank == want->ndim;
                    for (int d = 0; same && d < t->rank; d++)
                        same = t->sizes[d] == want->sizes[d];
                    CHECK_MSG(same, "%s: output %d inferred %s rank %d, PyTorch %s rank %d", dir, k,
                              t->dtype >= 0 ? dtype_name((TensorDType)t->dtype) : "?", t->rank,
                              dtype_name(want->dtype), want->ndim);
                }
                tensor_release(want);
            }
        }
        lower_program_free(p);
    }
    for (int i = 0; i < ninputs; i++)
        rt_release(inputs[i]);
    free(inputs);
    safetensors_close(w);
    ir_graph_free(g);
    if (chdir(cwd) != 0)
        test_failures++;
}

int main(int argc, char **argv)
{
    for (int i = 1; i < argc; i++)
        check_case(argv[i]);
    printf("shape inference: %d of %d compared outputs refined, all as PyTorch's (%d unknown)\n",
           refined, compared, unrefined);
    CHECK_MSG(compared > 0 && refined * 5 >= compared * 2, "too few outputs refined: %d of %d",
              refined, compared);
    return test_failures ? 1 : 0;
}
