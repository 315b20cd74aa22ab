/* kernel_program.c — a program's kernels: built from its fusion groups,
 * printed as one C source, compiled once (cached), and called by the
 * evaluator in place of interpreting a group.
 *
 * Calling convention of a generated C kernel (kir_print.c):
 *   void NAME(const void *const *in, const int64_t *si, const double *sf,
 *             void *const *out)
 * in[k]: the data of tensor input k (contiguous, of the static shape the
 * kernel was built for); si[k] / sf[k]: scalar input k (int, float); out[o]:
 * a fresh contiguous buffer for output o. A call checks that every input has
 * the dtype and shape the kernel expects (a guard: the compiled code is
 * specialized to them) and hands back to the interpreter when one does not.
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "tssa/cc_jit.h"
#include "kernels/kernels_internal.h"

typedef void (*KernelFn)(const void *const *in, const int64_t *si, const double *sf,
                         void *const *out);

typedef struct CompiledGroup {
    const IrNode *group;
    KKernel *kernel;            /* in its builder's arena */
    KernelsKernel signature;    /* what an outside launcher needs of it */
    KirBuilder *builder;
    KernelFn fn;
} CompiledGroup;

struct KernelProgram {
    LowerProgram *p;
    CompiledGroup *groups;
    int ngroups;
    int *by_node;               /* node id -> index in groups + 1, or 0 */
    uint32_t nnodes;
    CcLibrary *lib;
    KernelsStats stats;
};

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

typedef struct Collect {
    const IrNode **nodes;
    int n, cap;
} Collect;

static void collect_groups(Collect *c, const IrBlock *b)
{
    IR_FOREACH_NODE(n, b) {
        if (n->op == OP_TSSA_FUSION_GROUP) {
            if (c->n == c->cap) {
                c->cap = c->cap ? c->cap * 2 : 16;
                c->nodes = xrealloc(c->nodes, (size_t)c->cap * sizeof *c->nodes);
            }
            c->nodes[c->n++] = n;
            continue;
        }
        for (int i = 0; i < n->nblocks; i++)
            collect_groups(c, n->blocks[i]);
    }
}

/* "k3_L15": the kernel's name, after its first member's source line. */
static void kernel_name(char *buf, size_t size, int index, const IrNode *group)
{
    const IrNode *first = ir_block_first(group->blocks[0]);
    int line = 0;
    const char *c = first->comment;
    if (c) {
        const char *colon = strchr(c, ':');
        if (colon)
            line = atoi(colon + 1);
    }
    if (line > 0)
        snprintf(buf, size, "k%d_L%d", index, line);
    else
        snprintf(buf, size, "k%d", index);
}

/* The public description of a built kernel, in its builder's arena. */
static void describe_signature(CompiledGroup *cg, int index)
{
    const KKernel *k = cg->kernel;
    Arena *a = kir_arena(cg->builder);
    KernelsArg *in = arena_alloc(a, (size_t)(k->ninputs + 1) * sizeof *in);
    KernelsArg *out = arena_alloc(a, (size_t)(k->noutputs + 1) * sizeof *out);
    for (int i = 0; i < k->ninputs; i++) {
        const KInput *ki = &k->inputs[i];
        in[i] = (KernelsArg){.kind = ki->kind == KIN_TENSOR ? KERNELS_ARG_TENSOR
                                     : ki->kind == KIN_INT  ? KERNELS_ARG_INT
                                                            : KERNELS_ARG_FLOAT,
                             .dtype = ki->dtype, .rank = ki->rank, .index_limit = ki->index_limit};
        memcpy(in[i].sizes, ki->sizes, (size_t)ki->rank * sizeof *ki->sizes);
    }
    for (int o = 0; o < k->noutputs; o++) {
        const KOutput *ko = &k->outputs[o];
        KirCudaGrid grid = kir_cuda_grid(k, o);
        out[o] = (KernelsArg){.kind = KERNELS_ARG_TENSOR, .dtype = ko->dtype, .rank = ko->rank,
                              .index_limit = -1, .blocks = grid.blocks, .block_threads = grid.block_threads};
        memcpy(out[o].sizes, ko->sizes, (size_t)ko->rank * sizeof *ko->sizes);
    }
    cg->signature = (KernelsKernel){.name = k->name, .where = k->source ? k->source : "", .index = index,
                                    .ninputs = k->ninputs, .noutputs = k->noutputs,
                                    .inputs = in, .outputs = out};
}

static void build_kernels(KernelProgram *kp)
{
    IrGraph *g = lower_ir_graph(kp->p);
    Collect c = {0};
    collect_groups(&c, g->top);
    kp->groups = xcalloc((size_t)c.n + 1, sizeof *kp->groups);
    kp->nnodes = g->nnodes;
    kp->by_node = xcalloc((size_t)g->nnodes + 1, sizeof *kp->by_node);
    kp->stats.groups = c.n;
    for (int i = 0; i < c.n; i++) {
        const IrNode *grp = c.nodes[i];
        IR_FOREACH_NODE(m, grp->blocks[0]) {
            (void)m;
            kp->stats.nodes_fused++;
        }
        char name[48];
        kernel_name(name, sizeof name, i, grp);
        KirBuilder *b = kir_builder_new();
        const char *why = NULL;
        KKernel *k = kir_build_kernel(b, kp->p, grp, name, &why);
        if (!k) {
            kir_builder_free(b);
            kp->stats.interpreted++;
            if (!kp->stats.interpreted_why)
                kp->stats.interpreted_why = why;
            continue;
        }
        k->source = grp->comment;
        CompiledGroup *cg = &kp->groups[kp->ngroups++];
        cg->group = grp;
        cg->kernel = k;
        cg->builder = b;
        describe_signature(cg, kp->ngroups - 1);
        kp->by_node[grp->id] = kp->ngroups;
    }
    kp->stats.kernels = kp->ngroups;
    free(c.nodes);
}

static void source_text(TextBuf *t, const KernelProgram *kp, KirTarget target)
{
    textbuf_puts(t, "/* generated by tssa-stream: the fused kernels of one program */\n");
    kir_print_prelude(t, target);
    for (int i = 0; i < kp->ngroups; i++)
        kir_print_kernel(t, kp->groups[i].kernel, target);
}

void kernels_print_source(FILE *out, const KernelProgram *kp, KernelsTarget target)
{
    TextBuf t = {0};
    textbuf_init(&t, out);
    source_text(&t, kp, target == KERNELS_TARGET_C ? KIR_TARGET_C : KIR_TARGET_CUDA);
    textbuf_release(&t);
}

KernelProgram *kernels_compile(LowerProgram *p, bool compile, FILE *err, int *status)
{
    double t0 = now_s();
    KernelProgram *kp = xcalloc(1, sizeof *kp);
    kp->p = p;
    build_kernels(kp);
    *status = 0;
    if (!compile || kp->ngroups == 0)
        return kp;
    TextBuf src = {0};
    source_text(&src, kp, KIR_TARGET_C);
    /* TSSA_KERNEL_CFLAGS: extra compiler flags (the tests use -Wall -Werror
     * so that every generated kernel is warning-free). */
    const char **names = xmallocn((size_t)kp->ngroups, sizeof *names);
    for (int i = 0; i < kp->ngroups; i++)
        names[i] = kp->groups[i].kernel->name;
    /* the names: a cached object that lacks one is compiled again */
    CcJitOptions o = {.extra_flags = getenv("TSSA_KERNEL_CFLAGS"), .symbols = names, .nsymbols = kp->ngroups};
    CcJitStats st = {0};
    kp->lib = cc_jit_load(src.data, src.len, &o, &st, err);
    free(names);
    free(src.data);
    if (!kp->lib) {
        *status = 1;
        kernels_free(kp);
        return NULL;
    }
    kp->stats.compiled = !st.cache_hit;
    /* the kernels' per-thread spans go to --trace's recorder (a no-op
     * until the executor turns recording on) */
    void (**span_hook)(int, int) = (void (**)(int, int))cc_jit_symbol(kp->lib, "tssa_thread_span");
    if (span_hook)
        *span_hook = trace_thread_span;
    for (int i = 0; i < kp->ngroups; i++) {
        CompiledGroup *cg = &kp->groups[i];
        cg->fn = (KernelFn)cc_jit_symbol(kp->lib, cg->kernel->name);
        if (!cg->fn) {
            fprintf(err, "tssa-stream: error: internal: the compiled kernels lack %s\n",
                    cg->kernel->name);
            *status = 1;
            kernels_free(kp);
            return NULL;
        }
    }
    kp->stats.compile_s = now_s() - t0;
    return kp;
}

/* ---------------------------------------------------------------- running */

static bool same_shape(const Tensor *t, const KernelsArg *in)
{
    if (t->dtype != in->dtype || t->ndim != in->rank)
        return false;
    for (int d = 0; d < in->rank; d++)
        if (t->sizes[d] != in->sizes[d])
            return false;
    return true;
}

bool kernels_args_fit(const KernelsKernel *k, RtValue *const *args)
{
    for (int i = 0; i < k->ninputs; i++) {
        const KernelsArg *ki = &k->inputs[i];
        const RtValue *a = args[i];
        if (ki->kind == KERNELS_ARG_TENSOR) {
            if (a->kind != RT_TENSOR || !same_shape(a->u.t, ki))
                return false;   /* not what the kernel was built for */
        } else if ((a->kind == RT_INT || a->kind == RT_BOOL) && ki->index_limit >= 0 &&
                   (a->u.i < 0 || a->u.i >= ki->index_limit)) {
            return false;       /* an index the kernel was not built for */
        }
    }
    return true;
}

int kernels_count(const KernelProgram *kp)
{
    return kp ? kp->ngroups : 0;
}

const KernelsKernel *kernels_kernel_at(const KernelProgram *kp, int index)
{
    return &kp->groups[index].signature;
}

const KernelsKernel *kernels_kernel_of(const KernelProgram *kp, const IrNode *group)
{
    int at = kp && group->id < kp->nnodes ? kp->by_node[group->id] : 0;
    return at ? &kp->groups[at - 1].signature : NULL;
}

char *kernels_source(const KernelProgram *kp, KernelsTarget target, size_t *len)
{
    TextBuf t = {0};
    source_text(&t, kp, target == KERNELS_TARGET_C ? KIR_TARGET_C : KIR_TARGET_CUDA);
    textbuf_cstr(&t);       /* terminated */
    *len = t.len;
    return t.data ? t.data : xstrdup("");
}

static int args_count(int n)
{
    return n > 0 ? n : 1;
}

void kernels_scalar_arg(const RtValue *a, int64_t *si, double *sf)
{
    *si = 0;
    *sf = 0;
    if (a->kind == RT_INT || a->kind == RT_BOOL) {
        *si = a->u.i;
        *sf = (double)a->u.i;
    } else if (a->kind == RT_FLOAT) {
        *sf = a->u.f;
        *si = (int64_t)a->u.f;
    }
}

size_t kernels_args_size(const KernelsKernel *k)
{
    return 8 * (3 * (size_t)args_count(k->ninputs) + (size_t)args_count(k->noutputs));
}

void kernels_pack_args(const KernelsKernel *k, const uint64_t *in_ptr, const int64_t *si,
                       const double *sf, const uint64_t *out_ptr, void *buf)
{
    unsigned char *b = buf;
    size_t n = (size_t)args_count(k->ninputs);
    memset(buf, 0, kernels_args_size(k));
    memcpy(b, in_ptr, (size_t)k->ninputs * 8);
    memcpy(b + 8 * n, si, (size_t)k->ninputs * 8);
    memcpy(b + 16 * n, sf, (size_t)k->ninputs * 8);
    memcpy(b + 24 * n, out_ptr, (size_t)k->noutputs * 8);
}

enum { SMALL_ARGS = 16 };

static int run_group(void *ctx, const IrNode *group, RtValue **args, RtValue **outs, FILE *err)
{
    KernelProgram *kp = ctx;
    int at = group->id < kp->nnodes ? kp->by_node[group->id] : 0;
    if (!at || !kp->groups[at - 1].fn) {
        kp->stats.fallbacks++;
        return 0;
    }
    const CompiledGroup *cg = &kp->groups[at - 1];
    const KKernel *k = cg->kernel;
    int n = k->ninputs;
    const void *in_small[SMALL_ARGS];
    int64_t si_small[SMALL_ARGS];
    double sf_small[SMALL_ARGS];
    Tensor *held_small[SMALL_ARGS];
    bool big = n > SMALL_ARGS;
    const void **in = big ? xcalloc((size_t)n, sizeof *in) : in_small;
    int64_t *si = big ? xcalloc((size_t)n, sizeof *si) : si_small;
    double *sf = big ? xcalloc((size_t)n, sizeof *sf) : sf_small;
    Tensor **held = big ? xcalloc((size_t)n, sizeof *held) : held_small;
    bool fits = kernels_args_fit(&cg->signature, args);
    int ran = fits;
    for (int i = 0; fits && i < n; i++) {
        const KInput *ki = &k->inputs[i];
        const RtValue *a = args[i];
        held[i] = NULL;
        in[i] = NULL;
        si[i] = 0;
        sf[i] = 0;
        if (ki->kind == KIN_TENSOR) {
            Tensor *t = a->u.t;
            if (!tensor_is_contiguous(t)) {
                held[i] = tensor_contiguous(t);
                kp->stats.copies++;
                t = held[i];
            }
            in[i] = tensor_data(t);
        } else {
            kernels_scalar_arg(a, &si[i], &sf[i]);
        }
    }
    if (ran) {
        void *out_small[SMALL_ARGS];
        void **out = k->noutputs > SMALL_ARGS ? xcalloc((size_t)k->noutputs, sizeof *out) : out_small;
        int made = 0;
        for (; made < k->noutputs; made++) {
            const KOutput *ko = &k->outputs[made];
            Tensor *t = tensor_empty_unfilled(ko->dtype, ko->rank, ko->sizes);
            if (!t)
                break;
            out[made] = tensor_data(t);
            outs[made] = rt_tensor_take(t);
        }
        if (made == k->noutputs) {
            cg->fn(in, si, sf, out);
            kp->stats.launches++;
        } else {
            /* out of memory: the interpreter fails the same allocation
             * with the node's message */
            for (int o = 0; o < made; o++) {
                rt_release(outs[o]);
                outs[o] = NULL;
            }
            ran = 0;
            kp->stats.fallbacks++;
        }
        if (out != out_small)
            free(out);
    } else {
        kp->stats.fallbacks++;
    }
    for (int i = 0; i < n; i++)
        if (fits && held[i])
            tensor_release(held[i]);
    if (big) {
        free(in);
        free(si);
        free(sf);
        free(held);
    }
    (void)err;
    return ran;
}

void kernels_install(KernelProgram *kp, NodeExec *x)
{
    if (kp)
        node_exec_set_group_runner(x, run_group, kp);
}

const KernelsStats *kernels_stats(const KernelProgram *kp)
{
    return &kp->stats;
}

void kernels_free(KernelProgram *kp)
{
    if (!kp)
        return;
    for (int i = 0; i < kp->ngroups; i++)
        kir_builder_free(kp->groups[i].builder);
    free(kp->groups);
    free(kp->by_node);
    cc_jit_close(kp->lib);
    free(kp);
}
