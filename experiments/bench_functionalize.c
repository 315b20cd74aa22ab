/* bench_functionalize — time per TensorSSA stage on generated graphs.
 *
 *   bench_functionalize [NODES...]        default: 10000 100000 1000000
 *   bench_functionalize --table MODEL.ir...
 *
 * Each graph repeats one unit (15 nodes) until it reaches the size
 * asked for: a root tensor with a view read after the loops, an outer loop
 * around an inner loop that writes a row through a select and, in one
 * branch of an If, a column slice through an in-place multiply, while the
 * other branch reads the live view; units are chained through a running sum
 * so that nothing is dead. So every stage has work: alias trees with
 * several views, writes two loops and an If deep (block propagation adds
 * If results and carried values at both loop levels), renaming across all
 * of them, and pass-down re-reads of the live view.
 *
 * Prints one row per size: nodes, parse time, the time of every stage of
 * tssa_functionalize, the total, nanoseconds per node (linear growth shows
 * as a flat column) and the nodes after. Times are CPU seconds (the passes
 * are single-threaded). Build in release mode for numbers.
 *
 * --table prints, per program (a corpus model.ir, with the weights.safetensors
 * beside it when there is one, inputs taken as disjoint as they are when
 * bound): nodes before and after, in-place writes before and after (and how
 * many were kept imperative), and the immut:: accesses and assigns of the
 * result without and with the "fewer copies" steps, with what those steps
 * saved (pass-down re-reads skipped, whole-root assigns merged).
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench_util.h"
#include "tssa/frontend.h"
#include "tssa/functionalize.h"
#include "tssa/io.h"
#include "tssa/ir.h"

typedef struct Text {
    char *s;
    size_t len, cap;
} Text;

static void reserve(Text *t, size_t more)
{
    if (t->len + more <= t->cap)
        return;
    t->cap = (t->len + more) * 2 + 4096;
    t->s = realloc(t->s, t->cap);
    if (!t->s) {
        fputs("out of memory\n", stderr);
        exit(1);
    }
}

static void append(Text *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void append(Text *t, const char *fmt, ...)
{
    reserve(t, 64);
    for (;;) {
        va_list ap;
        va_start(ap, fmt);
        int n = vsnprintf(t->s + t->len, t->cap - t->len, fmt, ap);
        va_end(ap);
        if (n >= 0 && (size_t)n < t->cap - t->len) {
            t->len += (size_t)n;
            return;
        }
        reserve(t, (size_t)(n > 0 ? n : 0) + 64);
    }
}

enum { UNIT_NODES = 15 };    /* nodes of one unit (blocks are not nodes) */

/* One unit; '#' stands for its number, '@' for the previous one's. */
static const char unit_template[] =
    "  %y# : Tensor = aten::clone(%x, %none)\n"
    "  %v# : Tensor = aten::select(%y#, %zero, %zero)\n"
    "   = prim::Loop(%two, %true)\n"
    "    block0(%o# : int):\n"
    "       = prim::Loop(%n, %true)\n"
    "        block0(%i# : int):\n"
    "          %r# : Tensor = aten::select(%y#, %zero, %i#)\n"
    "          %a# : Tensor = aten::add(%r#, %one, %one)\n"
    "          %c# : Tensor = aten::copy_(%r#, %a#, %false)\n"
    "          %e# : bool = aten::eq(%i#, %o#)\n"
    "           = prim::If(%e#)\n"
    "            block0():\n"
    "              %s# : Tensor = aten::slice(%y#, %one, %zero, %two, %one)\n"
    "              %m# : Tensor = aten::mul_(%s#, %two)\n"
    "              -> ()\n"
    "            block1():\n"
    "              %t# : Tensor = aten::relu(%v#)\n"
    "              %q# : Tensor = aten::add_(%r#, %t#, %one)\n"
    "              -> ()\n"
    "          -> (%true)\n"
    "      -> (%true)\n"
    "  %u# : Tensor = aten::add(%v#, %y#, %one)\n"
    "  %acc# : Tensor = aten::add(%acc@, %u#, %one)\n";

static char *generate(long nodes, long *units_out)
{
    Text t = {0};
    append(&t, "graph(%%x : Tensor, %%n : int):\n"
               "  %%none : NoneType = prim::Constant()\n"
               "  %%false : bool = prim::Constant[value=0]()\n"
               "  %%true : bool = prim::Constant[value=1]()\n"
               "  %%zero : int = prim::Constant[value=0]()\n"
               "  %%one : int = prim::Constant[value=1]()\n"
               "  %%two : int = prim::Constant[value=2]()\n"
               "  %%acc0 : Tensor = aten::clone(%%x, %%none)\n");
    long units = nodes / UNIT_NODES > 0 ? nodes / UNIT_NODES : 1;
    for (long k = 1; k <= units; k++)
        for (const char *p = unit_template; *p; p++) {
            if (*p == '#')
                append(&t, "%ld", k);
            else if (*p == '@')
                append(&t, "%ld", k - 1);
            else {
                reserve(&t, 2);
                t.s[t.len++] = *p;
                t.s[t.len] = '\0';
            }
        }
    append(&t, "  return (%%acc%ld)\n", units);
    *units_out = units;
    return t.s;
}

static int run(long nodes)
{
    long units;
    char *text = generate(nodes, &units);
    double t0 = bench_process_seconds();
    IrGraph *g = ir_parse(text, strlen(text), "<generated>", stderr);
    double parse = bench_process_seconds() - t0;
    free(text);
    if (!g)
        return 1;
    TssaOptions opt;
    tssa_options_default(&opt);
    opt.verify = false;
    opt.inputs_disjoint = true;
    TssaReport r;
    t0 = bench_process_seconds();
    bool ok = tssa_functionalize(g, &opt, &r, stderr);
    double total = bench_process_seconds() - t0;
    if (!ok || r.mutations_after != 0 || r.updates_left != 0) {
        fprintf(stderr, "functionalization failed or left writes (%zu)\n", r.mutations_after);
        ir_graph_free(g);
        return 1;
    }
    printf("%9zu %8.3f", r.nodes_before, parse);
    for (int s = 0; s < TSSA_STAGE_COUNT; s++)
        printf(" %8.3f", r.seconds[s]);
    printf(" %8.3f %8.1f %9zu\n", total, 1e9 * total / (double)r.nodes_before, r.nodes_after);
    fflush(stdout);
    ir_graph_free(g);
    return 0;
}

static bool functionalize_file(const char *path, const Safetensors *w, bool fewer, TssaReport *r)
{
    IrGraph *g = ir_parse_file(path, stderr);
    if (!g)
        return false;
    TssaOptions opt;
    tssa_options_default(&opt);
    opt.inputs_disjoint = true;
    opt.fewer_copies = fewer;
    opt.weights = w;
    bool ok = tssa_functionalize(g, &opt, r, stderr);
    ir_graph_free(g);
    return ok;
}

/* "tests/models/yolo_decode/model.ir" -> "yolo_decode" */
static const char *program_name(const char *path, char *buf, size_t size)
{
    snprintf(buf, size, "%s", path);
    char *slash = strrchr(buf, '/');
    if (slash && !strcmp(slash + 1, "model.ir")) {
        *slash = '\0';
        slash = strrchr(buf, '/');
    }
    return slash ? slash + 1 : buf;
}

static int table(int n, char **paths)
{
    printf("| program | nodes | in-place writes (imperative) | accesses/assigns, plain | "
           "with fewer copies | re-reads skipped | assigns merged |\n");
    printf("|---|---|---|---|---|---|---|\n");
    for (int i = 0; i < n; i++) {
        char weights_path[4096], name[4096];
        snprintf(weights_path, sizeof weights_path, "%s", paths[i]);
        char *slash = strrchr(weights_path, '/');
        snprintf(slash ? slash + 1 : weights_path,
                 sizeof weights_path - (size_t)(slash ? slash + 1 - weights_path : 0),
                 "weights.safetensors");
        FILE *probe = fopen(weights_path, "rb");
        Safetensors *w = NULL;
        if (probe) {
            fclose(probe);
            w = safetensors_open(weights_path, stderr);
        }
        TssaReport plain, fewer;
        if (!functionalize_file(paths[i], w, false, &plain) ||
            !functionalize_file(paths[i], w, true, &fewer)) {
            safetensors_close(w);
            return 1;
        }
        printf("| %s | %zu -> %zu | %zu -> %zu (%zu) | %zu/%zu | %zu/%zu | %zu | %zu |\n",
               program_name(paths[i], name, sizeof name), fewer.nodes_before, fewer.nodes_after,
               fewer.mutations_before, fewer.mutations_after, fewer.imperative_mutations,
               plain.accesses, plain.assigns, fewer.accesses, fewer.assigns,
               fewer.rereads_skipped, fewer.assigns_merged);
        safetensors_close(w);
    }
    return 0;
}

int main(int argc, char **argv)
{
    if (argc > 1 && !strcmp(argv[1], "--table"))
        return table(argc - 2, argv + 2);
    long sizes[16] = {10000, 100000, 1000000};
    int nsizes = 3;
    if (argc > 1) {
        nsizes = 0;
        for (int i = 1; i < argc && nsizes < 16; i++)
            sizes[nsizes++] = strtol(argv[i], NULL, 10);
    }
    printf("# seconds per stage of tssa_functionalize on generated graphs\n");
    printf("%9s %8s", "nodes", "parse");
    for (int s = 0; s < TSSA_STAGE_COUNT; s++)
        printf(" %8.8s", tssa_stage_name((TssaStage)s));
    printf(" %8s %8s %9s\n", "total", "ns/node", "after");
    for (int i = 0; i < nsizes; i++)
        if (run(sizes[i]) != 0)
            return 1;
    return 0;
}
