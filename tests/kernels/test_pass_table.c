/* test_pass_table — the kernels passes' runner (kernels/passes.c).
 *
 *   test_pass_table CASE_DIR...
 * Each corpus case given (tests/models/<case>: graph text, bindings,
 * weights) is bound, functionalized and specialized as the driver does, then:
 *   - the kernels' own table runs both stages with ir_verify after every
 *     pass and is clean (the verifier accepts what the passes make,
 *     tssa::FusionGroup nodes and groups over a loop's iterations included);
 *   - a table of the test's own with a pass that breaks the graph (program
 *     order numbers out of order: harmless to free, caught by ir_verify)
 *     fails with status 1 and "internal error: after kernel pass 'corrupt'",
 *     and the pass after it never runs; with verify off the same table runs
 *     to the end (so it is the verifier that stops it);
 *   - stop_after stops after the named pass, also when that pass is not
 *     wanted (it then does not run).
 * Without cases it checks the names and the options' defaults:
 * kernels_pass_find of every name gives its index, an unknown name -1, and
 * TSSA_VERIFY_PASSES=1 / =0 in the environment turn verify on / off.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kernels/kernels_internal.h"
#include "test_util.h"
#include "tssa/frontend.h"
#include "tssa/functionalize.h"
#include "tssa/lower.h"

static int calls_after;         /* runs of the pass after the corrupting one */

static int count_call(LowerProgram *p)
{
    (void)p;
    calls_after++;
    return 0;
}

static int leave_alone(LowerProgram *p)
{
    (void)p;
    return 0;
}

/* The second top-level node gets the first one's order number: the node
 * list stays intact (so freeing is safe) but program order is broken. */
static int corrupt(LowerProgram *p)
{
    IrBlock *top = lower_ir_graph(p)->top;
    IrNode *first = top->param->next;
    if (first != top->ret && first->next != top->ret)
        first->next->order = first->order;
    return 1;
}

static bool never(const KernelsPassOptions *o)
{
    (void)o;
    return false;
}

static const KernelsPass broken_table[] = {
    {"before",  KERNELS_STAGE_SHAPES, NULL, leave_alone, NULL},
    {"corrupt", KERNELS_STAGE_SHAPES, NULL, corrupt, NULL},
    {"after",   KERNELS_STAGE_SHAPES, NULL, count_call, NULL},
};

static const KernelsPass stop_table[] = {
    {"one",     KERNELS_STAGE_FUSION, NULL, count_call, NULL},
    {"skipped", KERNELS_STAGE_FUSION, never, count_call, NULL},
    {"three",   KERNELS_STAGE_FUSION, NULL, count_call, NULL},
};

typedef struct Case {
    IrGraph *g;
    RtValue **inputs;
    int ninputs;
    Safetensors *weights;
    LowerProgram *p;
} Case;

/* Bound, functionalized and specialized, as the driver does; false if the
 * case cannot be (a case that must fail, a missing file). */
static bool case_open(const char *dir, Case *c)
{
    memset(c, 0, sizeof *c);
    char path[4096], buf[8192], *bind[64];
    snprintf(path, sizeof path, "%s/args.txt", dir);
    FILE *f = fopen(path, "r");
    if (!f)
        return false;
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    int nbind = 0;
    const char *weights = NULL;
    for (char *tok = strtok(buf, " \t\n"); tok && nbind < 63; tok = strtok(NULL, " \t\n")) {
        if (strcmp(tok, "--weights") == 0)
            weights = strtok(NULL, " \t\n");
        else
            bind[nbind++] = tok;
    }
    if (chdir(dir) != 0)
        return false;
    c->g = ir_parse_file("model.ir", NULL);
    if (!c->g ||
        !bindings_resolve(c->g, nbind, bind, weights, &c->inputs, &c->ninputs, &c->weights, NULL))
        return false;
    TssaOptions opt;
    TssaReport rep;
    tssa_options_default(&opt);
    opt.weights = c->weights;
    opt.inputs_disjoint = tssa_inputs_disjoint(c->inputs, c->ninputs);
    int status = 0;
    return tssa_functionalize(c->g, &opt, &rep, NULL) &&
           (c->p = lower_specialize(c->g, c->inputs, c->ninputs, c->weights, NULL, &status)) != NULL;
}

static void case_close(Case *c)
{
    if (c->p)
        lower_program_free(c->p);
    for (int i = 0; i < c->ninputs; i++)
        rt_release(c->inputs[i]);
    free(c->inputs);
    safetensors_close(c->weights);
    if (c->g)
        ir_graph_free(c->g);
}

static KernelsPassOptions options(const Case *c, bool verify)
{
    KernelsPassOptions o;
    kernels_pass_options_default(&o);
    o.inputs = c->inputs;
    o.ninputs = c->ninputs;
    o.horizontal = true;
    o.verify = verify;
    return o;
}

static void check_case(const char *dir)
{
    char cwd[4096];
    if (!getcwd(cwd, sizeof cwd))
        return;
    Case c;
    int status;
    CHECK_MSG(case_open(dir, &c), "%s: could not be specialized", dir);
    if (c.p) {                      /* the real table, verified between passes */
        KernelsPassOptions o = options(&c, true);
        FILE *err = test_capture_open();
        KernelsPassResult shapes = kernels_run_passes(c.p, KERNELS_STAGE_SHAPES, &o, err, &status);
        KernelsPassResult fusion = kernels_run_passes(c.p, KERNELS_STAGE_FUSION, &o, err, &status);
        char *text = test_capture_close(err, NULL);
        CHECK_MSG(shapes == KERNELS_PASSES_DONE && fusion == KERNELS_PASSES_DONE && status == 0,
                  "%s: the kernels passes failed ir_verify: %s", dir, text);
        free(text);
    }
    case_close(&c);
    CHECK(chdir(cwd) == 0);

    CHECK_MSG(case_open(dir, &c), "%s: could not be specialized", dir);
    if (c.p) {                      /* a pass that breaks the graph, verified */
        KernelsPassOptions o = options(&c, true);
        FILE *err = test_capture_open();
        calls_after = 0;
        KernelsPassResult r = kernels_run_pass_table(c.p, broken_table, 3, KERNELS_STAGE_SHAPES, &o,
                                                     err, &status);
        char *text = test_capture_close(err, NULL);
        CHECK_MSG(r == KERNELS_PASSES_FAILED && status == 1, "%s: a broken graph passed (%d)", dir, (int)r);
        CHECK_CONTAINS(text, "tssa-stream: internal error: after kernel pass 'corrupt': ");
        CHECK_CONTAINS(text, "out of order");
        CHECK(calls_after == 0);
        free(text);
    }
    case_close(&c);
    CHECK(chdir(cwd) == 0);

    CHECK_MSG(case_open(dir, &c), "%s: could not be specialized", dir);
    if (c.p) {                      /* the same, unverified: runs through */
        KernelsPassOptions o = options(&c, false);
        calls_after = 0;
        KernelsPassResult r = kernels_run_pass_table(c.p, broken_table, 3, KERNELS_STAGE_SHAPES, &o,
                                                     NULL, &status);
        CHECK(r == KERNELS_PASSES_DONE && status == 0 && calls_after == 1);

        /* stop_after: after a pass that ran, and at one left out */
        calls_after = 0;
        o.stop_after = "one";
        r = kernels_run_pass_table(c.p, stop_table, 3, KERNELS_STAGE_FUSION, &o, NULL, &status);
        CHECK(r == KERNELS_PASSES_STOPPED && calls_after == 1);
        calls_after = 0;
        o.stop_after = "skipped";
        r = kernels_run_pass_table(c.p, stop_table, 3, KERNELS_STAGE_FUSION, &o, NULL, &status);
        CHECK(r == KERNELS_PASSES_STOPPED && calls_after == 1);
        calls_after = 0;
        o.stop_after = "not-in-this-stage";
        r = kernels_run_pass_table(c.p, stop_table, 3, KERNELS_STAGE_FUSION, &o, NULL, &status);
        CHECK(r == KERNELS_PASSES_DONE && calls_after == 2);
    }
    case_close(&c);
    CHECK(chdir(cwd) == 0);
}

static void check_names_and_defaults(void)
{
    static const char *const in_order[] = {
        "expand_rnn_layers", "split_loop_tuples", "shape_infer", "fold_decided", "decompose_cells",
        "fold_embedding_linear", "sink_sliced_products", "strip_mine", "hoist_input_products", "split_bias", "invert_whole_assigns", "unpack_views", "fuse",
        "horizontal", "batch_heads",
    };
    int n = (int)(sizeof in_order / sizeof *in_order);
    CHECK(kernels_pass_count() == n);
    for (int i = 0; i < n; i++) {
        CHECK_MSG(kernels_pass_find(in_order[i]) == i, "%s", in_order[i]);
        CHECK(kernels_pass_name(i) && strcmp(kernels_pass_name(i), in_order[i]) == 0);
    }
    CHECK(kernels_pass_find("fusion") == -1 && kernels_pass_name(n) == NULL);

    KernelsPassOptions o;
    setenv("TSSA_VERIFY_PASSES", "1", 1);
    kernels_pass_options_default(&o);
    CHECK(o.verify);
    setenv("TSSA_VERIFY_PASSES", "0", 1);
    kernels_pass_options_default(&o);
    CHECK(!o.verify);
    unsetenv("TSSA_VERIFY_PASSES");
}

int main(int argc, char **argv)
{
    check_names_and_defaults();
    for (int i = 1; i < argc; i++)
        check_case(argv[i]);
    return test_report("test_pass_table");
}
