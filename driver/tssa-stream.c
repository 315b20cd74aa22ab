/* tssa-stream — the driver.
 *
 * Reads a model (TorchScript graph text), runs the compiler's stages in order
 * and either prints the stage asked for with --emit or runs the program on a
 * backend. The whole pipeline is spelled out in run_pipeline(), so a reader
 * sees the compiler at once; every stage lives in its own layer folder.
 *
 * Exit status (DESIGN.md): 0 success; 2 bad usage or bad input (located
 * messages for text inputs); 1 a runtime failure naming the node and line.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tssa/backend.h"
#include "tssa/functionalize.h"
#include "tssa/io.h"
#include "tssa/ir.h"
#include "tssa/lower.h"
#include "tssa/schedule.h"
#include "tssa/stream.h"

enum { EXIT_OK = 0, EXIT_RUNTIME = 1, EXIT_USAGE = 2 };

typedef enum Emit {
    EMIT_NONE,
    EMIT_IR,        /* parsed graph */
    EMIT_ALIAS,     /* alias analysis, as comments */
    EMIT_TSSA,      /* functionalized graph */
    EMIT_STREAM,    /* stream graph text */
    EMIT_SCHEDULE,  /* static schedule (table, or JSON with --json) */
    EMIT_DOT,       /* Graphviz picture of the stream graph */
} Emit;

static const char *const emit_names[] = {
    [EMIT_IR] = "ir", [EMIT_ALIAS] = "alias", [EMIT_TSSA] = "tssa",
    [EMIT_STREAM] = "stream", [EMIT_SCHEDULE] = "schedule", [EMIT_DOT] = "dot",
};
/* cpu is the default until the cuda backend lands (DESIGN.md: cuda when a
 * GPU is present, else cpu). */
typedef enum Backend { BACKEND_CPU, BACKEND_REF } Backend;

typedef struct Options {
    const char *model;
    bool model_is_stream;   /* a .str stream graph rather than graph text */
    const char *weights;
    const char *out_dir;
    Emit emit;
    Backend backend;
    bool json;
    int nbind;
    char **bind;
} Options;

static const char usage_text[] =
    "usage: tssa-stream [OPTIONS] MODEL [NAME=VALUE ...]\n"
    "\n"
    "Compiles an imperative PyTorch program, given as the TorchScript graph text\n"
    "that print(torch.jit.script(f).graph) writes, and runs it.\n"
    "\n"
    "  MODEL               graph text (.ir), or a stream graph (.str) to inspect\n"
    "                      with --emit=stream|schedule|dot\n"
    "  NAME=VALUE          binds graph input %NAME (%x.1 is x): a .npy path, an\n"
    "                      int, a float, true or false\n"
    "\n"
    "options (before or after MODEL):\n"
    "  --weights FILE      safetensors file for the module input (%self)\n"
    "  -o, --output DIR    write outputs as DIR/out0.npy, DIR/out1.npy, ...\n"
    "                      (tuples flattened in order; numbers as 0-d arrays);\n"
    "                      without -o a one-line summary per output is printed\n"
    "  --backend=NAME      cpu (default): functionalize, lower to a stream graph,\n"
    "                      schedule it statically and run the schedule\n"
    "                      ref: the imperative interpreter, PyTorch's semantics\n"
    "                      op by op (the oracle every backend is checked against)\n"
    "  --emit=STAGE        print a stage to stdout and stop:\n"
    "                        ir        the parsed graph (TorchScript text)\n"
    "                        alias     the alias analysis (view trees, may-alias)\n"
    "                        tssa      the functionalized graph (TorchScript text\n"
    "                                  with immut:: ops); bindings, if given,\n"
    "                                  specialize it to the bound inputs\n"
    "                        stream    the stream graph (.str text)\n"
    "                        schedule  repetitions, init and steady phases,\n"
    "                                  buffers, placement (--json for JSON)\n"
    "                        dot       Graphviz picture of the stream graph\n"
    "                      for graph text, tssa, stream, schedule and dot are\n"
    "                      specialized to the bindings given (shapes, trip counts);\n"
    "                      stream, schedule and dot need them all\n"
    "  --json              with --emit=schedule: JSON instead of a table\n"
    "  -h, --help          this text\n"
    "  --version           the version\n"
    "\n"
    "exit status: 0 success, 2 bad usage or input, 1 runtime failure\n";

static int usage_error(const char *fmt, const char *arg)
{
    fprintf(stderr, "tssa-stream: error: ");
    fprintf(stderr, fmt, arg);
    fprintf(stderr, "\ntry 'tssa-stream --help'\n");
    return EXIT_USAGE;
}

/* Stages and backends named in DESIGN.md that later issues deliver: refused
 * with a clear word rather than silently ignored. */
static const char *const later_emits[] = {"c", "cuda"};
static const char *const later_backends[] = {"cuda"};

static bool name_in(const char *name, const char *const *list, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(name, list[i]) == 0)
            return true;
    return false;
}

static int parse_emit(const char *arg, Options *o)
{
    for (size_t e = EMIT_IR; e < sizeof emit_names / sizeof *emit_names; e++) {
        if (strcmp(arg, emit_names[e]) == 0) {
            o->emit = (Emit)e;
            return EXIT_OK;
        }
    }
    if (name_in(arg, later_emits, sizeof later_emits / sizeof *later_emits))
        return usage_error("--emit=%s is not available yet in this version", arg);
    return usage_error("unknown stage in --emit=%s (stages: ir, alias, tssa, stream, schedule, dot)", arg);
}

static int parse_backend(const char *arg, Options *o)
{
    if (strcmp(arg, "ref") == 0 || strcmp(arg, "cpu") == 0) {
        o->backend = strcmp(arg, "ref") == 0 ? BACKEND_REF : BACKEND_CPU;
        return EXIT_OK;
    }
    if (name_in(arg, later_backends, sizeof later_backends / sizeof *later_backends))
        return usage_error("--backend=%s is not available yet in this version (cpu, ref)", arg);
    return usage_error("unknown backend '%s' (backends: cpu, ref)", arg);
}

static bool is_binding(const char *arg)
{
    const char *eq = strchr(arg, '=');
    return eq && eq != arg;
}

/* GNU-style: options may stand anywhere; the first non-option argument is
 * MODEL, the rest are NAME=VALUE bindings. Returns -1 to go on, else the
 * exit status. */
static int parse_args(int argc, char **argv, Options *o)
{
    enum { OPT_WEIGHTS = 256, OPT_EMIT, OPT_BACKEND, OPT_VERSION, OPT_JSON };
    static const struct option longopts[] = {
        {"weights", required_argument, NULL, OPT_WEIGHTS},
        {"output", required_argument, NULL, 'o'},
        {"emit", required_argument, NULL, OPT_EMIT},
        {"backend", required_argument, NULL, OPT_BACKEND},
        {"json", no_argument, NULL, OPT_JSON},
        {"help", no_argument, NULL, 'h'},
        {"version", no_argument, NULL, OPT_VERSION},
        {0, 0, 0, 0},
    };
    opterr = 0;
    int c, status;
    while ((c = getopt_long(argc, argv, ":o:h", longopts, NULL)) != -1) {
        switch (c) {
        case OPT_WEIGHTS: o->weights = optarg; break;
        case 'o': o->out_dir = optarg; break;
        case OPT_EMIT:
            if ((status = parse_emit(optarg, o)) != EXIT_OK)
                return status;
            break;
        case OPT_BACKEND:
            if ((status = parse_backend(optarg, o)) != EXIT_OK)
                return status;
            break;
        case OPT_JSON: o->json = true; break;
        case 'h': fputs(usage_text, stdout); return EXIT_OK;
        case OPT_VERSION: printf("tssa-stream %s\n", TSSA_VERSION); return EXIT_OK;
        case ':': return usage_error("option '%s' needs a value", argv[optind - 1]);
        default: return usage_error("unknown option '%s'", argv[optind - 1]);
        }
    }
    for (int i = optind; i < argc; i++) {
        if (!o->model && !is_binding(argv[i])) {
            o->model = argv[i];
            continue;
        }
        if (!is_binding(argv[i]))
            return usage_error("'%s' is not a NAME=VALUE binding (only one MODEL is read)", argv[i]);
        o->bind[o->nbind++] = argv[i];
    }
    if (!o->model)
        return usage_error("%s", "no MODEL given");
    size_t len = strlen(o->model);
    o->model_is_stream = len >= 4 && strcmp(o->model + len - 4, ".str") == 0;
    if (o->json && o->emit != EMIT_SCHEDULE)
        return usage_error("%s", "--json only applies to --emit=schedule");
    if (o->model_is_stream) {
        if (o->emit != EMIT_STREAM && o->emit != EMIT_SCHEDULE && o->emit != EMIT_DOT)
            return usage_error("%s: a stream graph (.str) is inspected with --emit=stream, "
                               "--emit=schedule or --emit=dot; it has no work to run",
                               o->model);
        if (o->nbind > 0 || o->weights || o->out_dir)
            return usage_error("%s: a stream graph (.str) takes no bindings, --weights or -o", o->model);
    }
    return -1;
}

static void release_values(RtValue **values, int n)
{
    for (int i = 0; i < n; i++)
        rt_release(values[i]);
    free(values);
}

static int flushed(int status)
{
    if (fflush(stdout) != 0 && status == EXIT_OK) {
        perror("tssa-stream: error: writing to standard output");
        return EXIT_RUNTIME;
    }
    return status;
}

/* A hand-written stream graph: read, check, schedule, print. */
static int inspect_stream_text(const Options *o)
{
    StreamGraph *sg = str_parse_file(o->model, stderr);
    if (!sg)
        return EXIT_USAGE;
    int status = EXIT_OK;
    if (o->emit == EMIT_STREAM) {
        str_print(stdout, sg->root);
    } else if (o->emit == EMIT_DOT) {
        stream_print_dot(stdout, sg->root);
    } else {
        Schedule *s = sched_build(sg->root, stderr);
        if (!s) {
            status = EXIT_USAGE;
        } else if (o->json) {
            sched_print_json(stdout, s);
        } else {
            sched_print_table(stdout, s);
        }
        sched_free(s);
    }
    stream_graph_free(sg);
    return flushed(status);
}

/* The pipeline, in order. Each stage either hands its result on or reports
 * and returns the exit status. */
static int run_pipeline(const Options *o)
{
    if (o->model_is_stream)
        return inspect_stream_text(o);

    IrGraph *graph = ir_parse_file(o->model, stderr);     /* frontend */
    if (!graph)
        return EXIT_USAGE;
    if (o->emit == EMIT_IR) {
        ir_print(stdout, graph);
        ir_graph_free(graph);
        return flushed(EXIT_OK);
    }
    if (o->emit == EMIT_ALIAS || o->emit == EMIT_TSSA) {   /* functionalize */
        int status = tssa_emit(stdout, graph, o->emit == EMIT_ALIAS, o->nbind, o->bind,
                               o->weights, stderr);
        ir_graph_free(graph);
        return flushed(status);
    }
    if (o->emit == EMIT_STREAM || o->emit == EMIT_SCHEDULE || o->emit == EMIT_DOT) {
        /* functionalize, specialize, lower, schedule */
        int what = o->emit == EMIT_STREAM     ? LOWER_EMIT_STREAM
                   : o->emit == EMIT_DOT      ? LOWER_EMIT_DOT
                   : o->json                  ? LOWER_EMIT_SCHEDULE_JSON
                                              : LOWER_EMIT_SCHEDULE;
        int status = lower_emit(stdout, graph, what, o->nbind, o->bind, o->weights, stderr);
        ir_graph_free(graph);
        return flushed(status);
    }

    RtValue **inputs = NULL, **outputs = NULL;               /* bind */
    int ninputs = 0, noutputs = 0;
    Safetensors *weights = NULL;
    int status = EXIT_USAGE;
    if (!bindings_resolve(graph, o->nbind, o->bind, o->weights, &inputs, &ninputs, &weights, stderr))
        goto done;

    if (o->backend == BACKEND_REF)                           /* run */
        status = backend_ref_run(graph, inputs, ninputs, weights, &outputs, &noutputs, stderr);
    else
        status = backend_cpu_run(graph, inputs, ninputs, weights, &outputs, &noutputs, stderr);
    if (status != EXIT_OK)
        goto done;

    if (o->out_dir) {                                        /* write */
        if (!outputs_write(o->out_dir, outputs, noutputs, stderr))
            status = EXIT_RUNTIME;
    } else {
        outputs_summarize(stdout, outputs, noutputs);
    }

done:
    release_values(outputs, noutputs);
    release_values(inputs, ninputs);
    safetensors_close(weights);
    ir_graph_free(graph);
    return status;
}

int main(int argc, char **argv)
{
    Options o = {0};
    o.bind = calloc((size_t)argc + 1, sizeof *o.bind);
    if (!o.bind) {
        fputs("tssa-stream: error: out of memory\n", stderr);
        return EXIT_RUNTIME;
    }
    int status = parse_args(argc, argv, &o);
    if (status < 0)
        status = run_pipeline(&o);
    free(o.bind);
    return status;
}
