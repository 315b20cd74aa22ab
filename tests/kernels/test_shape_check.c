/* test_shape_check — every tensor value's inferred shape and dtype against
 * the executed one, over whole corpus programs.
 *
 *   test_shape_check [--list] [--allow-unknown] CASE_DIR...
 * For every corpus case given (tests/ops/<case>, tests/models/<case>: graph
 * text and bindings), the program is bound, functionalized, specialized and
 * shape-inferred as the driver does, then run on the evaluator (the ref
 * backend's code) with the bound inputs. Every tensor value the run gave a
 * value (block params and node outputs, nested blocks included: a loop's
 * body values hold their last iteration's) is compared with its inferred
 * type:
 *   - a known type must equal the executed tensor's dtype and sizes;
 *   - an unknown one is allowed only downstream of data: the result of an
 *     op whose result shapes depend on values (op_has_dynamic_shape; an
 *     aten::index or index_put whose executed indices include a boolean
 *     mask; repeat_interleave / tensor_split given a tensor of repeats or
 *     indices; where(condition)), a number, string or list of them read out
 *     of a tensor's elements (item, Int, tolist: ops other than
 *     op_reads_no_elements), or any
 *     value computed from those (loops and Ifs: from any value they use).
 * Rows listed in known_gaps (what is left, each with why) may keep
 * unknown values. Programs that keep a write after functionalization (shape_infer types
 * nothing in them) are counted apart. The executed values come from the
 * evaluator, an implementation independent of shape inference's rules;
 * the per-op corpus's expected/ outputs (PyTorch's) already check the
 * evaluator. --list prints each case with unknown values; --allow-unknown
 * reports them without failing (to count them on an older tree).
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "test_util.h"
#include "tssa/eval.h"
#include "tssa/frontend.h"
#include "tssa/functionalize.h"
#include "tssa/io.h"
#include "tssa/lower.h"
#include "tssa/shapes.h"

static int cases, cases_with_unknown, cases_skipped, cases_with_writes, values_checked, values_unknown;
static bool list_cases, allow_unknown;

/* Rows whose values stay unknown today for reasons other than data, each
 * with why (issue 28, what is left): a value unknown in any other row, or
 * a new one here of another op, fails. */
static const struct {
    const char *row, *op, *why;
} known_gaps[] = {
    {"kv_cache_decode", "prim::Loop", "a carried cache grown by cat, then sliced back"},
    {"fastrnns_lstm", "aten::stack", "a list built by appends in a loop"},
    {"list_reverse_upcast", "aten::stack", "a list built by appends in a loop"},
    {"long_appended_lists", "aten::stack", "a list built by appends in a loop"},
    {"sliding_window_lists", "aten::stack", "a list built by appends in a loop"},
    {"ta_detect_pitch", "aten::cat", "a list built by appends in a loop"},
    {"list_append__to_tensor", "aten::tensor", "a list built by appends"},
    {"max_unpool1d__roundtrip", "aten::max_unpool2d", "refuses stand-ins (indices made by max_pool in the program)"},
    {"max_unpool3d__roundtrip", "aten::max_unpool3d", "refuses stand-ins (indices made by max_pool in the program)"},
    {"tensordot__int_dims", "aten::tensordot", "dims given as a tensor"},
    {"module_state_anchor_cache", "prim::unchecked_cast",
     "an Optional[Tensor] module attribute carried by a loop: None on entry, a tensor after"},
    {"module_state_submodule", "prim::If", "an Optional[Tensor] module attribute a branch resets to None"},
    {"list_element_writes", "aten::stack", "a list built by appends in a loop"},
    {"dlrm_dot", "aten::tensor", "index lists built by appends in a triangular loop (li, lj)"},
    {"torchrec_fm_interaction", "aten::cat", "a list built by appends in a loop (the flatten comprehension)"},
    {"yolox_decode", "aten::cat", "a list built by appends in a loop (grids, strides per level)"},
    {"mmdet_fpn_inplace", "aten::__getitem__",
     "an element of a list a loop carries (laterals, written back slot by slot by list_elements.c)"},
    {"mmdet_pafpn_inplace", "aten::__getitem__",
     "an element of a list a loop carries (laterals, written back slot by slot by list_elements.c)"},
    {"tv_roi_box_coder_matcher", "aten::reshape",
     "a size summed by a loop over a list of ints built by appends (boxes_per_image)"},
    {"dict_postprocess", "prim::Loop",
     "a loop over a dict's items (scores, boxes, labels: three shapes) that keeps the one named "
     "\"boxes\": the item's shape depends on the iteration"},
    {"list_element_merge_aliases", "aten::stack", "a list built by appends in a loop"},
    {"store_after_write", "aten::stack", "a list built by a comprehension (appends in a loop)"},
    {"named_tuple_output", "prim::Loop",
     "a loop over the items of a dict built by a comprehension (set in a loop)"},
    {"fairseq_beam_search", "prim::Loop",
     "BeamSearch.step reads one beam at step 0 and all later (an If on the loop counter "
     "whose branches give lprobs two shapes), and top-k's k is min(2 * beam, numel - 1) of it"},
    {"tv_feature_pyramid", "aten::__getitem__",
     "levels read out of a Dict[str, Tensor] graph input through list(x.values()): a bound "
     "dict's tensors have no stand-ins to evaluate on"},
    {"dict__pairs_copy_empty", "aten::__getitem__", "a tensor read back out of dict(pairs)"},
};

/* Whether dir's row is a known gap (its first unknown value, of op). */
static bool known_gap(const char *dir, const char *op)
{
    size_t len = strlen(dir);
    while (len > 0 && dir[len - 1] == '/')
        len--;
    size_t start = len;
    while (start > 0 && dir[start - 1] != '/')
        start--;
    for (size_t i = 0; i < sizeof known_gaps / sizeof *known_gaps; i++)
        if (strlen(known_gaps[i].row) == len - start && strncmp(dir + start, known_gaps[i].row, len - start) == 0)
            return op == NULL || strcmp(op, known_gaps[i].op) == 0;
    return false;
}

typedef struct Check {
    const char *dir;
    NodeExec *exec;
    bool *tainted;              /* by value id: downstream of data */
    uint32_t ntainted;
    int unknown;
} Check;

static bool is_tensor_type(const IrValue *v)
{
    return v->type && v->type->kind == TY_TENSOR;
}

static bool has_mask(const RtValue *indices)
{
    if (!indices || (indices->kind != RT_LIST && indices->kind != RT_TUPLE))
        return true;
    for (int i = 0; i < indices->u.list.n; i++) {
        const RtValue *r = indices->u.list.items[i];
        if (r->kind == RT_TENSOR && (r->u.t->dtype == DT_BOOL || r->u.t->dtype == DT_U8))
            return true;
    }
    return false;
}

static bool taints(const Check *c, const IrNode *n)
{
    /* an op the table does not list (allowed where it may not run: a loop
     * not entered) has no meaning here, so no shape either */
    if (n->op == OP_UNKNOWN)
        return true;
    if (n->op == OP_ATEN_INDEX || n->op == OP_ATEN_INDEX_PUT)
        return n->ninputs < 2 || has_mask(node_exec_get(c->exec, n->inputs[1]));
    if (n->op == OP_ATEN_WHERE && n->ninputs == 1)
        return true;
    if (n->op == OP_ATEN_REPEAT_INTERLEAVE || n->op == OP_ATEN_TENSOR_SPLIT) {
        /* repeats or indices in a tensor; repeat_interleave(repeats,
         * output_size) takes only the repeats */
        const RtValue *r = n->ninputs < 2 ? NULL : node_exec_get(c->exec, n->inputs[1]);
        return !r || r->kind == RT_TENSOR || (n->op == OP_ATEN_REPEAT_INTERLEAVE && n->ninputs == 2);
    }
    return op_has_dynamic_shape(n->op);
}

static bool has_tensor(const IrType *t)
{
    if (!t || t->kind == TY_TENSOR)
        return true;
    for (int i = 0; i < t->nelems; i++)
        if (has_tensor(t->elems[i]))
            return true;
    return false;
}

static bool reads_data(const IrNode *n)
{
    if (op_reads_no_elements(n->op))
        return false;
    for (int i = 0; i < n->ninputs; i++)
        if (is_tensor_type(n->inputs[i]))
            return true;
    return false;
}

static void taint_block(Check *c, const IrBlock *b, bool inherited);

/* Marks n's outputs tainted when n makes data-dependent shapes or scalars,
 * or uses a tainted value (in its blocks too). */
static bool taint_node(Check *c, const IrNode *n, bool inherited)
{
    bool t = inherited || taints(c, n);
    for (int i = 0; i < n->ninputs; i++)
        t |= c->tainted[n->inputs[i]->id];
    for (int pass = 0; pass < 2; pass++)
        for (int b = 0; b < n->nblocks; b++) {
            for (int k = 0; k < ir_block_nparams(n->blocks[b]); k++)
                c->tainted[ir_block_param(n->blocks[b], k)->id] |= t;
            taint_block(c, n->blocks[b], t);
            for (int k = 0; k < ir_block_nreturns(n->blocks[b]); k++)
                t |= c->tainted[ir_block_return(n->blocks[b], k)->id];
        }
    /* a loop's carried tensor whose shape changed over the run (a growing
     * sequence): no one static shape, whatever the rules */
    for (int k = 0; n->op == OP_PRIM_LOOP && k < n->noutputs && k + 2 < n->ninputs; k++) {
        const RtValue *first = node_exec_get(c->exec, n->inputs[k + 2]), *last = node_exec_get(c->exec, n->outputs[k]);
        if (first && last && first->kind == RT_TENSOR && last->kind == RT_TENSOR &&
            (first->u.t->ndim != last->u.t->ndim ||
             memcmp(first->u.t->sizes, last->u.t->sizes, (size_t)first->u.t->ndim * sizeof(int64_t)) != 0)) {
            c->tainted[n->outputs[k]->id] = true;
            c->tainted[ir_block_param(n->blocks[0], k + 1)->id] = true;
        }
    }
    for (int k = 0; k < n->noutputs; k++)
        c->tainted[n->outputs[k]->id] |=
            t || (!has_tensor(n->outputs[k]->type) && n->nblocks == 0 && reads_data(n));
    return t;
}

static void taint_block(Check *c, const IrBlock *b, bool inherited)
{
    IR_FOREACH_NODE(n, b) {
        taint_node(c, n, inherited);
    }
}

static void compare(Check *c, const IrValue *v)
{
    const RtValue *r = node_exec_get(c->exec, v);
    if (!is_tensor_type(v) || !r || r->kind != RT_TENSOR)
        return;
    values_checked++;
    const IrTensorType *t = shape_of(v);
    const Tensor *x = r->u.t;
    if (!t) {
        values_unknown++;
        if (!c->tainted[v->id]) {
            const char *op = op_info(v->def->op)->name;
            bool first = c->unknown++ == 0;
            if (first && list_cases)
                printf("unknown: %s: %%%s (%s)\n", c->dir, v->name ? v->name : "?", op);
            /* a known gap's first unknown value is of its op; the rest follow it */
            CHECK_MSG(allow_unknown || known_gap(c->dir, first ? op : NULL),
                      "%s: %%%s (a result of %s) has no inferred shape", c->dir, v->name ? v->name : "?", op);
        }
        return;
    }
    bool same = t->dtype == (int)x->dtype && t->rank == x->ndim;
    for (int d = 0; same && d < t->rank; d++)
        same = t->sizes[d] == x->sizes[d];
    CHECK_MSG(same, "%s: %%%s (a result of %s) inferred %s of rank %d, ran %s of rank %d", c->dir,
              v->name ? v->name : "?", op_info(v->def->op)->name,
              t->dtype >= 0 ? dtype_name((TensorDType)t->dtype) : "?", t->rank, dtype_name(x->dtype),
              x->ndim);
}

static void compare_block(Check *c, const IrBlock *b)
{
    for (int k = 0; k < ir_block_nparams(b); k++)
        compare(c, ir_block_param(b, k));
    IR_FOREACH_NODE(n, b) {
        for (int i = 0; i < n->nblocks; i++)
            compare_block(c, n->blocks[i]);
        for (int k = 0; k < n->noutputs; k++)
            compare(c, n->outputs[k]);
    }
}

static bool has_write(const IrBlock *b)
{
    IR_FOREACH_NODE(n, b) {
        if (op_is_inplace(n->op))
            return true;
        for (int i = 0; i < n->nblocks; i++)
            if (has_write(n->blocks[i]))
                return true;
    }
    return false;
}

static int read_args(const char *dir, char **argv, char *buf, size_t size)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/args.txt", dir);
    FILE *f = fopen(path, "r");
    int argc = 0;
    if (!f)
        return -1;
    size_t n = fread(buf, 1, size - 1, f);
    fclose(f);
    buf[n] = '\0';
    for (char *tok = strtok(buf, " \t\n"); tok && argc < 63; tok = strtok(NULL, " \t\n"))
        argv[argc++] = tok;
    return argc;
}

static void run_case(const char *dir, IrGraph *g, RtValue **inputs, int ninputs, Safetensors *w)
{
    TssaOptions opt;
    TssaReport rep;
    tssa_options_default(&opt);
    opt.weights = w;
    opt.inputs_disjoint = tssa_inputs_disjoint(inputs, ninputs);
    int status = 0;
    LowerProgram *p = NULL;
    if (!tssa_functionalize(g, &opt, &rep, NULL) ||
        !(p = lower_specialize(g, inputs, ninputs, w, NULL, &status)) ||
        !shape_infer(p, inputs, ninputs, NULL, &status)) {
        cases_skipped++;        /* refused before it runs (an error row) */
        lower_program_free(p);
        return;
    }
    IrBlock *top = g->top;
    Check c = {.dir = dir, .exec = node_exec_clone(lower_static_values(p))};
    node_exec_set_err(c.exec, NULL);
    for (int i = 0; i < ninputs && i < ir_block_nparams(top); i++)
        node_exec_set(c.exec, ir_block_param(top, i), rt_retain(inputs[i]));
    if (!node_exec_block(c.exec, top)) {
        cases_skipped++;        /* a row whose run fails (expect_error.txt) */
    } else if (has_write(top)) {
        cases_with_writes++;
    } else {
        cases++;
        c.ntainted = g->nvalues + 1;
        c.tainted = xcalloc(c.ntainted, sizeof *c.tainted);
        taint_block(&c, top, false);
        compare_block(&c, top);
        cases_with_unknown += c.unknown > 0;
        free(c.tainted);
    }
    tensor_clear_error();
    node_exec_free(c.exec);
    lower_program_free(p);
}

static void check_case(const char *dir)
{
    char model[4096], buf[8192], *argv[64], cwd[4096];
    int argc = read_args(dir, argv, buf, sizeof buf);
    snprintf(model, sizeof model, "%s/model.ir", dir);
    if (argc < 0 || access(model, R_OK) != 0)
        return;
    const char *weights = NULL;
    char *bind[64];
    int nbind = 0;
    for (int i = 0; i < argc; i++) {
        if (strcmp(argv[i], "--weights") == 0 && i + 1 < argc)
            weights = argv[++i];
        else if (strncmp(argv[i], "--", 2) != 0)
            bind[nbind++] = argv[i];
    }
    if (!getcwd(cwd, sizeof cwd) || chdir(dir) != 0)
        return;
    IrGraph *g = ir_parse_file("model.ir", NULL);
    RtValue **inputs = NULL;
    int ninputs = 0;
    Safetensors *w = NULL;
    if (g && bindings_resolve(g, nbind, bind, weights, &inputs, &ninputs, &w, NULL))
        run_case(dir, g, inputs, ninputs, w);
    else
        cases_skipped++;
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
    int first = 1;
    for (; first < argc && strncmp(argv[first], "--", 2) == 0; first++) {
        list_cases |= strcmp(argv[first], "--list") == 0;
        allow_unknown |= strcmp(argv[first], "--allow-unknown") == 0;
    }
    for (int i = first; i < argc; i++)
        check_case(argv[i]);
    printf("shape check: %d programs, %d with values of unknown shape not downstream of data; "
           "%d tensor values, %d unknown; %d programs keep a write, %d refused or failing\n",
           cases, cases_with_unknown, values_checked, values_unknown, cases_with_writes, cases_skipped);
    CHECK_MSG(cases > 0 && values_checked > 0, "nothing was checked");
    return test_failures ? 1 : 0;
}
