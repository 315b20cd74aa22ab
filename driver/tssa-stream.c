/* tssa-stream — the driver.
 *
 * Reads a model (TorchScript graph text), runs the compiler's stages in order
 * and either prints the stage asked for with --emit or runs the program on a
 * backend. The whole pipeline is spelled out in run_pipeline(), so a reader
 * sees the compiler at once; every stage is one call into its layer's folder
 * (docs/ARCHITECTURE.md), and every --emit value is a stop in emit_stop().
 *
 * Exit status (README): 0 success; 2 bad usage or bad input (located
 * messages for text inputs); 1 a runtime failure naming the node and line.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tssa/backend.h"
#ifdef TSSA_USE_CUDA
#include "tssa/cuda.h"
#endif
#include "tssa/frontend.h"
#include "tssa/functionalize.h"
#include "tssa/io.h"
#include "tssa/ir.h"
#include "tssa/kernels.h"
#include "tssa/lower.h"
#include "tssa/machine.h"
#include "tssa/schedule.h"
#include "tssa/shapes.h"
#include "tssa/stream.h"
#include "tssa/util.h"
#include "tssa/value.h"
#include "tssa/world.h"

enum { EXIT_OK = 0, EXIT_RUNTIME = 1, EXIT_USAGE = 2 };

typedef enum Emit {
    EMIT_NONE,
    EMIT_IR,        /* parsed graph */
    EMIT_ALIAS,     /* alias analysis, as comments */
    EMIT_TSSA,      /* functionalized graph */
    EMIT_STREAM,    /* stream graph text */
    EMIT_SCHEDULE,  /* static schedule (table, or JSON with --json) */
    EMIT_DOT,       /* Graphviz picture of the stream graph */
    EMIT_C,         /* the fused kernels as C */
    EMIT_CUDA,      /* the fused kernels as CUDA */
    EMIT_FUSED,     /* the specialized graph after fusion */
    EMIT_TOPOLOGY,  /* the machine (hwloc) and each rank's cores */
} Emit;

static const char *const emit_names[] = {
    [EMIT_IR] = "ir", [EMIT_ALIAS] = "alias", [EMIT_TSSA] = "tssa",
    [EMIT_STREAM] = "stream", [EMIT_SCHEDULE] = "schedule", [EMIT_DOT] = "dot",
    [EMIT_C] = "c", [EMIT_CUDA] = "cuda", [EMIT_FUSED] = "fused", [EMIT_TOPOLOGY] = "topology",
};
/* Without --backend: cuda when the build has it and a GPU is present,
 * else cpu (default_backend). cpu and cuda run the same schedule; cuda
 * runs the fused groups and GEMMs on the device. */
typedef enum Backend { BACKEND_DEFAULT, BACKEND_CPU, BACKEND_CUDA, BACKEND_REF } Backend;

typedef struct Options {
    const char *model;
    bool model_is_stream;   /* a .str stream graph rather than graph text */
    const char *weights;
    const char *out_dir;
    Emit emit;
    Backend backend;
    bool json;
    int fission;            /* --fission=K: copies per eligible filter; 1 = off */
    long loop_chunk;        /* --loop-chunk=C: iterations per phase of a long loop; 0 = default */
    int devices;            /* --devices N: CUDA devices to place on; 0: not given (1) */
    bool no_fuse;           /* --no-fuse: every node its own filter, interpreted */
    bool keep_loops;        /* --keep-loops: no horizontal fusion of data-parallel loops */
    const char *print_after;/* --print-after=PASS: the graph after that kernels pass */
    int repeat;             /* --repeat N: timed runs after the first; 0 = off */
    bool stats;             /* --stats: counts and times to stderr */
    int ranks;              /* --ranks N: place for N ranks (inspection); 0 = the world's */
    const char *place;      /* --place FILE: pinned placement */
    const char *rates;      /* --rates FILE: device and link rates */
    const char *trace;      /* --trace FILE.json: Chrome trace of the run */
    const char *inputs_dir; /* --inputs DIR: one input set per subfolder */
    int nbind;
    char **bind;
} Options;

/* --fission=K: copies per filter beyond any machine's cores only make nodes. */
#define MAX_FISSION 4096
#define MAX_DEVICES 8           /* CUDA_MAX_DEVICES (cuda.h) */
/* --repeat N: a bound that keeps a typo from running for hours. */
#define MAX_REPEAT 1000000
/* --ranks N: placements are planned for at most this many ranks. */
#define MAX_RANKS 4096
#define STRINGIFY(x) #x
#define NUMBER_TEXT(x) STRINGIFY(x)

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
    "  --backend=NAME      cpu: functionalize, lower to a stream graph, schedule\n"
    "                      it statically and run the schedule on this CPU\n"
    "                      cuda: the same schedule with the fused kernels\n"
    "                      (NVRTC) and GEMMs (cuBLAS) on a GPU; the default\n"
    "                      when one is present (cpu otherwise);\n"
    "                      TSSA_CUDA_EMULATE=1 runs it on a CPU shim instead\n"
    "                      ref: the imperative interpreter, PyTorch's semantics\n"
    "                      op by op (the oracle every backend is checked against)\n"
    "  --emit=STAGE        print a stage to stdout and stop:\n"
    "                        ir        the parsed graph (TorchScript text)\n"
    "                        alias     the alias analysis (view trees, may-alias)\n"
    "                        tssa      the functionalized graph (TorchScript text\n"
    "                                  with immut:: ops); bindings, if given,\n"
    "                                  specialize it to the bound inputs\n"
    "                        fused     that specialized graph after fusion:\n"
    "                                  tssa::FusionGroup nodes, each one\n"
    "                                  generated kernel, with the nodes it took\n"
    "                        stream    the stream graph (.str text)\n"
    "                        schedule  repetitions, init and steady phases,\n"
    "                                  buffers, placement (--json for JSON)\n"
    "                        dot       Graphviz picture of the stream graph\n"
    "                        c         the fused kernels as C11 + OpenMP, as\n"
    "                                  they are compiled for the cpu backend\n"
    "                        cuda      the same kernels as CUDA (one thread\n"
    "                                  per output element)\n"
    "                      for graph text, tssa, stream, schedule and dot are\n"
    "                      specialized to the bindings given (shapes, trip counts);\n"
    "                      fused, stream, schedule, dot, c and cuda need them all\n"
    "  --print-after=PASS  print the graph (as --emit=fused does) after the\n"
    "                      kernels pass PASS and stop; the passes, in order:\n"
    "                      split_loop_tuples, shape_infer, fold_decided,\n"
    "                      decompose_cells, fold_embedding_linear,\n"
    "                      hoist_input_products, split_bias, unpack_views, fuse,\n"
    "                      horizontal (a pass left out, such as horizontal with\n"
    "                      --keep-loops, prints the graph as it was before it);\n"
    "                      TSSA_VERIFY_PASSES=1 checks the graph (ir_verify)\n"
    "                      after every one of them (on in Debug and sanitizer\n"
    "                      builds; =0 turns it off)\n"
    "  --json              with --emit=schedule: JSON instead of a table\n"
    "  --fission=K         split every stateless filter that fires N >= 2 times\n"
    "                      per steady state into min(K, N) data-parallel copies\n"
    "                      behind a round-robin split-join (K from 1, off, to\n"
    "                      " NUMBER_TEXT(MAX_FISSION) "); stream, schedule, dot and runs on the cpu\n"
    "                      backend use the split graph\n"
    "  --devices N         with --backend=cuda: place on N devices (1 to " NUMBER_TEXT(MAX_DEVICES) "):\n"
    "                      every data-parallel filter becomes N copies, copy j\n"
    "                      on device j (cuda:j in --emit=schedule); with fewer\n"
    "                      GPUs than N, GPUs stand in for several devices\n"
    "  --loop-chunk=C      a loop of more than C iterations (default 1024, 1 to\n"
    "                      2^30) runs its steady state in phases of C iterations,\n"
    "                      so its channels hold one phase's items, whatever the\n"
    "                      trip count (--emit=schedule shows the phases); a\n"
    "                      loop whose body --fission, --devices, --place or the\n"
    "                      ranks split runs unphased, all its items at once\n"
    "  --keep-loops        keep data-parallel loops as loops, their iterations\n"
    "                      the firings that --fission, --devices and the ranks\n"
    "                      spread (by default a loop whose body fuses becomes\n"
    "                      one kernel over all its iterations, shared out by\n"
    "                      OpenMP or one GPU launch, and one GEMM per product,\n"
    "                      unless --fission, --devices N > 1, --place or ranks\n"
    "                      on several hosts need the loop)\n"
    "  --no-fuse           keep every op its own filter, run by the reference\n"
    "                      kernels (fusion is on by default: neighbouring\n"
    "                      elementwise ops, views, slice assigns, casts and\n"
    "                      row reductions become one generated C kernel,\n"
    "                      compiled with $CC (default cc) and cached in\n"
    "                      $XDG_CACHE_HOME/tssa-stream, ~/.cache/tssa-stream)\n"
    "  --repeat N          after the run, run the compiled program N more times\n"
    "                      on the same inputs and print the minimum and median\n"
    "                      time per run to stderr (the first run is the warm-up);\n"
    "                      on --backend=cuda each timed run starts with its\n"
    "                      inputs in device memory and ends when the device is\n"
    "                      done, its outputs left there, as a GPU program is\n"
    "                      timed; when the placement gives several ranks work, the N\n"
    "                      runs are one stream whose stages overlap across\n"
    "                      ranks: the time per run is the stream's over N; the\n"
    "                      placement is planned for the N + 1 runs (with\n"
    "                      --emit=schedule it only plans)\n"
    "  --stats             print to stderr what the run did: fused groups,\n"
    "                      kernels launched per run, fallbacks, compile time,\n"
    "                      tensor buffers malloc'd in the first and the last\n"
    "                      run (later runs reuse the earlier runs' buffers;\n"
    "                      TSSA_STORAGE_POOL=0 turns that off);\n"
    "                      on --backend=cuda also GEMMs, bytes and copies each\n"
    "                      way, and host_ops_per_run: the ops that left the\n"
    "                      device (each waits for it and copies its inputs back)\n"
    "\n"
    "placement and ranks (run with mpirun -np N tssa-stream ... to use N ranks;\n"
    "rank 0 reads the inputs and writes the outputs, results are the same\n"
    "bit for bit for every N):\n"
    "  --ranks N           plan the placement for N ranks without mpirun, to\n"
    "                      inspect it with --emit=schedule (or dot, stream)\n"
    "  --place FILE        pin filters to ranks instead of the partitioner's\n"
    "                      choice: {\"fission\": {\"NAME\": K}, \"ranks\":\n"
    "                      {\"NAME\": R}} (names as --emit=schedule prints them;\n"
    "                      filters not named run on rank 0)\n"
    "  --rates FILE        the cost model's rates instead of the calibrated ones:\n"
    "                      {\"flops_per_s\", \"bytes_per_s\", \"firing_s\",\n"
    "                      \"link_latency_s\", \"link_bytes_per_s\"} (calibration\n"
    "                      runs once per host and thread count and is cached\n"
    "                      beside the kernels)\n"
    "  --inputs DIR        run the program over every input set in DIR: one\n"
    "                      subfolder per set, in name order, holding the files\n"
    "                      the bindings name (x=x.npy reads DIR/SET/x.npy); -o\n"
    "                      OUT writes OUT/SET/out0.npy ...; every set must have\n"
    "                      the first's shapes; prints sets per second and the\n"
    "                      time per set (on several ranks the stages overlap)\n"
    "  --trace FILE.json   write what ran, per rank, as a Chrome trace (open it\n"
    "                      in Perfetto or chrome://tracing): every firing, each\n"
    "                      OpenMP thread's share of its parallel loops, and\n"
    "                      every message between ranks; it records the first\n"
    "                      100 runs and at most 64 MiB of events per rank, and\n"
    "                      says in the trace and on stderr what it left out\n"
    "  --emit=topology     print the machine (cores, caches, NUMA, GPUs) and the\n"
    "                      cores each rank on it is bound to; needs no MODEL\n"
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

static int parse_emit(const char *arg, Options *o)
{
    for (size_t e = EMIT_IR; e < sizeof emit_names / sizeof *emit_names; e++) {
        if (strcmp(arg, emit_names[e]) == 0) {
            o->emit = (Emit)e;
            return EXIT_OK;
        }
    }
    return usage_error("unknown stage in --emit=%s (stages: ir, alias, tssa, fused, stream, schedule, "
                       "dot, c, cuda, topology)", arg);
}

/* TSSA_CUDA_EMULATE=1: --backend=cuda runs on the CPU shim
 * (backends/cuda/cuda_emulated.c), the way the tests run it without a GPU. */
static bool cuda_emulated(void)
{
    const char *e = getenv("TSSA_CUDA_EMULATE");
    return e && *e && strcmp(e, "0") != 0;
}

static Backend default_backend(void)
{
#ifdef TSSA_USE_CUDA
    return cuda_device_count(NULL) > 0 ? BACKEND_CUDA : BACKEND_CPU;
#else
    return BACKEND_CPU;
#endif
}

/* Whether --backend=cuda can run here; else says why. */
static bool cuda_usable(void)
{
#ifdef TSSA_USE_CUDA
    const char *why = NULL;
    if (cuda_emulated() || cuda_device_count(&why) > 0)
        return true;
    usage_error("--backend=cuda: no CUDA device: %s (the cpu backend runs the same plan on "
                "this CPU; TSSA_CUDA_EMULATE=1 runs the CUDA kernels through the CPU shim)",
                why ? why : "none found");
    return false;
#else
    usage_error("%s", "--backend=cuda: this tssa-stream was built without the cuda backend "
                      "(the CUDA toolkit was not found; install it at /usr/local/cuda and rebuild)");
    return false;
#endif
}

static int parse_backend(const char *arg, Options *o)
{
    if (strcmp(arg, "ref") == 0 || strcmp(arg, "cpu") == 0 || strcmp(arg, "cuda") == 0) {
        o->backend = strcmp(arg, "ref") == 0 ? BACKEND_REF : strcmp(arg, "cpu") == 0 ? BACKEND_CPU : BACKEND_CUDA;
        return EXIT_OK;
    }
    return usage_error("unknown backend '%s' (backends: cpu, cuda, ref)", arg);
}

/* A whole number from lo to hi, written as digits only (strtol would also
 * take " 2" and "+2"); false for anything else. */
static bool parse_whole(const char *arg, long lo, long hi, long *out)
{
    char *end = NULL;
    long v = lo - 1;
    errno = 0;
    if (arg[0] >= '0' && arg[0] <= '9')
        v = strtol(arg, &end, 10);
    if (v < lo || v > hi || errno == ERANGE || *end != '\0')
        return false;
    *out = v;
    return true;
}

static int parse_fission(const char *arg, Options *o)
{
    long k;
    if (!parse_whole(arg, 1, MAX_FISSION, &k))
        return usage_error("--fission=%s: K must be a whole number of copies from 1 (off) to "
                           NUMBER_TEXT(MAX_FISSION), arg);
    o->fission = (int)k;
    return EXIT_OK;
}

static int parse_devices(const char *arg, Options *o)
{
    long n;
    if (!parse_whole(arg, 1, MAX_DEVICES, &n))
        return usage_error("--devices %s: N must be a whole number of devices from 1 to " NUMBER_TEXT(MAX_DEVICES),
                           arg);
    o->devices = (int)n;
    return EXIT_OK;
}

static int parse_repeat(const char *arg, Options *o)
{
    long n;
    if (!parse_whole(arg, 1, MAX_REPEAT, &n))
        return usage_error("--repeat %s: N must be a whole number of runs from 1 to "
                           NUMBER_TEXT(MAX_REPEAT), arg);
    o->repeat = (int)n;
    return EXIT_OK;
}

static int parse_ranks(const char *arg, Options *o)
{
    long n;
    if (!parse_whole(arg, 1, MAX_RANKS, &n))
        return usage_error("--ranks %s: N must be a whole number of ranks from 1 to " NUMBER_TEXT(MAX_RANKS),
                           arg);
    o->ranks = (int)n;
    return EXIT_OK;
}

static bool is_binding(const char *arg)
{
    const char *eq = strchr(arg, '=');
    return eq && eq != arg;
}

/* The version and what this build can use. */
static void print_version(void)
{
    printf("tssa-stream %s (built with:%s%s%s%s%s)\n", TSSA_VERSION, world_built_with_mpi() ? " mpi" : "",
#ifdef TSSA_USE_OPENMP
           " openmp",
#else
           "",
#endif
#ifdef TSSA_USE_HWLOC
           " hwloc",
#else
           "",
#endif
#ifdef TSSA_USE_BLAS
           " openblas",
#else
           "",
#endif
#ifdef TSSA_USE_CUDA
           " cuda"
#else
           ""
#endif
    );
}

/* --print-after=PASS: PASS one of the kernels passes (kernels/passes.c). */
static int parse_print_after(const char *arg, Options *o)
{
    if (kernels_pass_find(arg) >= 0) {
        o->print_after = arg;
        return EXIT_OK;
    }
    fprintf(stderr, "tssa-stream: error: unknown pass in --print-after=%s (the kernels passes, in order:", arg);
    for (int i = 0; i < kernels_pass_count(); i++)
        fprintf(stderr, "%s %s", i ? "," : "", kernels_pass_name(i));
    fprintf(stderr, ")\ntry 'tssa-stream --help'\n");
    return EXIT_USAGE;
}

/* GNU-style: options may stand anywhere; the first non-option argument is
 * MODEL, the rest are NAME=VALUE bindings. Returns -1 to go on, else the
 * exit status. */
static int parse_args(int argc, char **argv, Options *o)
{
    enum { OPT_WEIGHTS = 256, OPT_EMIT, OPT_BACKEND, OPT_VERSION, OPT_JSON, OPT_FISSION, OPT_LOOP_CHUNK,
           OPT_FUSE, OPT_NO_FUSE, OPT_KEEP_LOOPS, OPT_REPEAT, OPT_STATS, OPT_RANKS, OPT_PLACE,
           OPT_RATES, OPT_TRACE, OPT_INPUTS, OPT_DEVICES, OPT_PRINT_AFTER };
    static const struct option longopts[] = {
        {"weights", required_argument, NULL, OPT_WEIGHTS},
        {"output", required_argument, NULL, 'o'},
        {"emit", required_argument, NULL, OPT_EMIT},
        {"backend", required_argument, NULL, OPT_BACKEND},
        {"json", no_argument, NULL, OPT_JSON},
        {"fission", required_argument, NULL, OPT_FISSION},
        {"loop-chunk", required_argument, NULL, OPT_LOOP_CHUNK},
        {"devices", required_argument, NULL, OPT_DEVICES},
        {"fuse", no_argument, NULL, OPT_FUSE},
        {"no-fuse", no_argument, NULL, OPT_NO_FUSE},
        {"keep-loops", no_argument, NULL, OPT_KEEP_LOOPS},
        {"print-after", required_argument, NULL, OPT_PRINT_AFTER},
        {"repeat", required_argument, NULL, OPT_REPEAT},
        {"stats", no_argument, NULL, OPT_STATS},
        {"ranks", required_argument, NULL, OPT_RANKS},
        {"place", required_argument, NULL, OPT_PLACE},
        {"rates", required_argument, NULL, OPT_RATES},
        {"trace", required_argument, NULL, OPT_TRACE},
        {"inputs", required_argument, NULL, OPT_INPUTS},
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
        case OPT_LOOP_CHUNK:
            if (!parse_whole(optarg, 1, 1L << 30, &o->loop_chunk))
                return usage_error("--loop-chunk=%s: C must be a whole number of iterations from 1 "
                                   "to 1073741824", optarg);
            break;
        case OPT_FISSION:
            if ((status = parse_fission(optarg, o)) != EXIT_OK)
                return status;
            break;
        case OPT_DEVICES:
            if ((status = parse_devices(optarg, o)) != EXIT_OK)
                return status;
            break;
        case OPT_FUSE: o->no_fuse = false; break;
        case OPT_NO_FUSE: o->no_fuse = true; break;
        case OPT_KEEP_LOOPS: o->keep_loops = true; break;
        case OPT_PRINT_AFTER:
            if ((status = parse_print_after(optarg, o)) != EXIT_OK)
                return status;
            break;
        case OPT_REPEAT:
            if ((status = parse_repeat(optarg, o)) != EXIT_OK)
                return status;
            break;
        case OPT_STATS: o->stats = true; break;
        case OPT_RANKS:
            if ((status = parse_ranks(optarg, o)) != EXIT_OK)
                return status;
            break;
        case OPT_PLACE: o->place = optarg; break;
        case OPT_RATES: o->rates = optarg; break;
        case OPT_TRACE: o->trace = optarg; break;
        case OPT_INPUTS: o->inputs_dir = optarg; break;
        case 'h': fputs(usage_text, stdout); return EXIT_OK;
        case OPT_VERSION: print_version(); return EXIT_OK;
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
    /* --print-after=PASS is the --emit=fused stop, moved to after PASS. */
    if (o->print_after && o->emit != EMIT_NONE && o->emit != EMIT_FUSED)
        return usage_error("--print-after=%s prints the graph after a kernels pass and stops: it takes no "
                           "other --emit", o->print_after);
    if (o->print_after)
        o->emit = EMIT_FUSED;
    if (o->emit == EMIT_TOPOLOGY)
        return o->model || o->nbind ? usage_error("%s", "--emit=topology reads no MODEL and no bindings") : -1;
    if (o->backend == BACKEND_DEFAULT)
        o->backend = default_backend();
    if (!o->model)
        return usage_error("%s", "no MODEL given");
    size_t len = strlen(o->model);
    o->model_is_stream = len >= 4 && strcmp(o->model + len - 4, ".str") == 0;
    if (o->json && o->emit != EMIT_SCHEDULE)
        return usage_error("%s", "--json only applies to --emit=schedule");
    bool stream_graph_used = (o->emit >= EMIT_STREAM && o->emit != EMIT_FUSED) ||
                             (o->emit == EMIT_NONE && o->backend != BACKEND_REF);
    if (o->fission > 1 && !stream_graph_used)
        return usage_error("%s", "--fission applies to the stream graph: --emit=stream, schedule or dot, "
                                 "or a run on the cpu or cuda backend");
    bool placement_shown = o->emit == EMIT_SCHEDULE || o->emit == EMIT_STREAM || o->emit == EMIT_DOT;
    bool repeat_misplaced = o->repeat && o->emit != EMIT_NONE && !placement_shown;
    if (repeat_misplaced || (o->stats && o->emit != EMIT_NONE))
        return usage_error("%s", "--repeat and --stats time and count a run on the cpu or cuda backend; "
                                 "they take no --emit (but --repeat N with --emit=schedule shows the "
                                 "placement for N + 1 input sets)");
    if ((o->repeat || o->stats) && o->backend == BACKEND_REF)
        return usage_error("%s", "--repeat and --stats time and count a run on the cpu or cuda backend, not "
                                 "--backend=ref");
    if (o->no_fuse && (o->emit == EMIT_C || o->emit == EMIT_CUDA || o->emit == EMIT_FUSED))
        return usage_error("%s", "--emit=fused, --emit=c, --emit=cuda and --print-after show the fusion: drop "
                                 "--no-fuse");
    if (o->model_is_stream) {
        if (o->emit != EMIT_STREAM && o->emit != EMIT_SCHEDULE && o->emit != EMIT_DOT)
            return usage_error("%s: a stream graph (.str) is inspected with --emit=stream, "
                               "--emit=schedule or --emit=dot; it has no work to run",
                               o->model);
        if (o->nbind > 0 || o->weights || o->out_dir)
            return usage_error("%s: a stream graph (.str) takes no bindings, --weights or -o", o->model);
    }
    bool placed = placement_shown || (o->emit == EMIT_NONE && o->backend != BACKEND_REF);
    if ((o->ranks || o->place || o->rates) && !placed)
        return usage_error("%s", "--ranks, --place and --rates plan the placement: --emit=schedule, stream "
                                 "or dot, or a run on the cpu or cuda backend");
    if (o->ranks && world_launched_by_mpirun() && o->ranks != world_size())
        return usage_error("%s", "--ranks plans for N ranks without mpirun; under mpirun the ranks are "
                                 "mpirun's -np");
    if (o->ranks > 1 && o->emit == EMIT_NONE && !world_launched_by_mpirun())
        return usage_error("%s", "--ranks N only plans the placement (with --emit=schedule); to run on N "
                                 "ranks: mpirun -np N tssa-stream ...");
    if (o->trace && (o->emit != EMIT_NONE || o->backend == BACKEND_REF))
        return usage_error("%s", "--trace records a run on the cpu or cuda backend; it takes no --emit and no "
                                 "--backend=ref");
    if (o->inputs_dir && (o->emit != EMIT_NONE || o->backend == BACKEND_REF || o->repeat))
        return usage_error("%s", "--inputs DIR runs the program on the cpu or cuda backend over every set; it "
                                 "takes no --emit, --backend=ref or --repeat");
    if (o->devices && o->backend != BACKEND_CUDA)
        return usage_error("%s", "--devices N places filters on CUDA devices: it needs --backend=cuda");
    if (o->devices > 1 && !stream_graph_used)
        return usage_error("%s", "--devices applies to the stream graph: --emit=stream, schedule or dot, or a run");
    if (o->backend == BACKEND_CUDA && o->emit == EMIT_NONE && !cuda_usable())
        return EXIT_USAGE;
    /* An output directory or trace file that cannot be used is refused
     * before any work (by rank 0, which writes them). */
    if (o->out_dir && world_rank() == 0 && !outputs_check_dir(o->out_dir, stderr))
        return EXIT_USAGE;
    if (o->trace && world_rank() == 0 && !trace_log_check_path(o->trace, stderr))
        return EXIT_USAGE;
    return -1;
}

/* Everything one run of the pipeline holds; each stage fills its part. */
typedef struct Run {
    const Options *o;
    StreamGraph *stream_text;   /* a .str model */
    IrGraph *graph;             /* the program: as read, then functional */
    RtValue **inputs;           /* one per graph input, when bound */
    int ninputs;
    bool bound;
    Safetensors *weights;
    TssaOptions tssa;
    TssaReport tssa_report;
    LowerProgram *program;      /* specialized, then lowered */
    Schedule *schedule;
    KernelProgram *kernels;     /* the fused groups' compiled kernels */
#ifdef TSSA_USE_CUDA
    CudaBackend *cuda;          /* --backend=cuda: the device */
#endif
    MachineTopology machine;    /* this rank's host (hwloc) */
    int busy_ranks;             /* ranks the placement gives work filters */
    RankBinding binding;        /* its cores and threads */
    DeviceRates rates;          /* the cost model's device and link rates */
    DeviceRates alone_rates;    /* rank 0 with all its host's cores (placement's one-rank case) */
    TraceLog *trace;            /* --trace: this rank's events */
    double trace_epoch;
    StoragePoolStats pool;      /* the plan's buffer pool, after its runs */
    RtValue **outputs;
    int noutputs;
    /* --inputs DIR: the sets (names, and on rank 0 their bound inputs; set
     * 0's are `inputs`) and each set's outputs. */
    int nsets;
    char **set_names;
    RtValue ***set_inputs;
    RtValue ***set_outputs;
    int *set_noutputs;
    int status;                 /* the exit status once a stage stops */
} Run;

/* Stops the pipeline with an exit status; returns false (do not go on). */
static bool stop(Run *r, int status)
{
    r->status = status;
    return false;
}

/* Under mpirun (the end of this file): standard error of the ranks other
 * than 0 held back, and every rank's agreement after a step that may fail
 * on some ranks only. */
static void hold_stderr(void);
static void speak_again(bool show_captured);
static bool ranks_agree(Run *r, bool ok);

static StreamNode *stream_root(const Run *r)
{
    return r->stream_text ? r->stream_text->root : lower_stream_graph(r->program)->root;
}

/* Every --emit value is a stop on the pipeline, and this is the only place
 * that prints one: returns true to go on (the stage is not the one asked
 * for), false after printing it. */
static bool emit_stop(Run *r, Emit stage)
{
    if (r->o->emit != stage)
        return true;
    switch (stage) {
    case EMIT_IR:       ir_print(stdout, r->graph); break;
    case EMIT_ALIAS:    tssa_print_alias(stdout, r->graph, &r->tssa); break;
    case EMIT_TSSA:     tssa_print(stdout, r->graph, &r->tssa, &r->tssa_report); break;
    case EMIT_STREAM:   str_print(stdout, stream_root(r)); break;
    case EMIT_DOT:      stream_print_dot(stdout, stream_root(r)); break;
    case EMIT_SCHEDULE:
        if (r->o->json)
            sched_print_json(stdout, r->schedule);
        else
            sched_print_table(stdout, r->schedule);
        break;
    case EMIT_C:        kernels_print_source(stdout, r->kernels, KERNELS_TARGET_C); break;
    case EMIT_CUDA:     kernels_print_source(stdout, r->kernels, KERNELS_TARGET_CUDA); break;
    case EMIT_FUSED:    ir_print(stdout, r->graph); break;
    case EMIT_TOPOLOGY:                         /* printed by emit_topology */
    case EMIT_NONE:     return true;
    }
    if (fflush(stdout) != 0) {
        perror("tssa-stream: error: writing to standard output");
        return stop(r, EXIT_RUNTIME);
    }
    return stop(r, EXIT_OK);
}

/* ---------------------------------------------------------------- stages */

/* Rank 0 reads the file; under mpirun the other ranks parse its bytes. */
static bool read_graph(Run *r)                  /* frontend: parse and verify */
{
    char *text = NULL;
    size_t len = 0;
    int ok = world_rank() != 0 || file_read_all(r->o->model, TEXT_INPUT_LIMIT, &text, &len, stderr);
    if (world_share_int(ok, 0))
        world_share_bytes((void **)&text, &len, 0);
    else
        ok = false;
    r->graph = ok ? ir_parse(text, len, r->o->model, stderr) : NULL;
    free(text);
    return r->graph ? true : stop(r, EXIT_USAGE);
}

/* Every stage after printing needs to know what each op means. It runs
 * after binding so that the ranks of the bound tensors can rule out
 * branches (F.interpolate's per-rank branches) that this run never takes. */
static bool verify_ops(Run *r)                  /* ir: the graph against the op table */
{
    int *ranks = r->bound ? calloc((size_t)r->ninputs + 1, sizeof *ranks) : NULL;
    if (r->bound && !ranks) {
        fputs("tssa-stream: error: out of memory\n", stderr);
        return stop(r, EXIT_RUNTIME);
    }
    for (int i = 0; ranks && i < r->ninputs; i++)
        ranks[i] = r->inputs[i] && r->inputs[i]->kind == RT_TENSOR ? r->inputs[i]->u.t->ndim : -1;
    bool ok = ir_check_ops(r->graph, ranks, r->ninputs, stderr);
    free(ranks);
    return ok ? true : stop(r, EXIT_USAGE);
}

static bool read_stream_text(Run *r)            /* streamit: .str reader */
{
    r->stream_text = str_parse_file(r->o->model, stderr);
    return r->stream_text ? true : stop(r, EXIT_USAGE);
}

/* --inputs DIR: the set folders, in name order. */
static int list_sets(const char *dir, char ***names)
{
    struct dirent **entries = NULL;
    int n = scandir(dir, &entries, NULL, alphasort), count = 0;
    *names = xcalloc((size_t)(n > 0 ? n : 0) + 1, sizeof **names);
    for (int i = 0; i < n; i++) {
        char *path = xprintf("%s/%s", dir, entries[i]->d_name);
        struct stat st;
        if (entries[i]->d_name[0] != '.' && stat(path, &st) == 0 && S_ISDIR(st.st_mode))
            (*names)[count++] = xstrdup(entries[i]->d_name);
        free(path);
        free(entries[i]);
    }
    free(entries);
    return n < 0 ? -1 : count;
}

/* The bindings of one set: a .npy value is read from the set's folder. */
static char **set_bindings(const Options *o, const char *set)
{
    char **bind = xcalloc((size_t)o->nbind + 1, sizeof *bind);
    for (int i = 0; i < o->nbind; i++) {
        const char *eq = strchr(o->bind[i], '=');
        size_t len = strlen(eq + 1);
        if (len >= 4 && strcmp(eq + 1 + len - 4, ".npy") == 0)
            bind[i] = xprintf("%.*s=%s/%s/%s", (int)(eq - o->bind[i]), o->bind[i], o->inputs_dir, set, eq + 1);
        else
            bind[i] = xstrdup(o->bind[i]);
    }
    return bind;
}

static void free_strings(char **s, int n)
{
    for (int i = 0; s && i < n; i++)
        free(s[i]);
    free(s);
}

/* Whether a set's input matches the first set's: tensors of the same dtype
 * and sizes, everything else equal (the plan is specialized to them). */
static bool same_binding(const RtValue *a, const RtValue *b)
{
    if (a->kind != b->kind)
        return false;
    if (a->kind != RT_TENSOR)
        return a->kind == RT_OBJECT || rt_equal(a, b);
    const Tensor *x = a->u.t, *y = b->u.t;
    if (x->dtype != y->dtype || x->ndim != y->ndim)
        return false;
    for (int d = 0; d < x->ndim; d++)
        if (x->sizes[d] != y->sizes[d])
            return false;
    return true;
}

/* Rank 0: every set of --inputs DIR bound and checked against the first
 * before any work, so a bad set is an exit 2, not a failure half way. */
static bool bind_input_sets(Run *r)
{
    const Options *o = r->o;
    r->nsets = list_sets(o->inputs_dir, &r->set_names);
    if (r->nsets <= 0) {
        fprintf(stderr, "%s: error: %s\n", o->inputs_dir,
                r->nsets < 0 ? strerror(errno) : "no input sets (one subfolder per set)");
        return false;
    }
    r->set_inputs = xcalloc((size_t)r->nsets, sizeof *r->set_inputs);
    for (int i = 0; i < r->nsets; i++) {
        char **bind = set_bindings(o, r->set_names[i]);
        RtValue **values = NULL;
        int n = 0;
        Safetensors *weights = NULL;
        bool ok = bindings_resolve(r->graph, o->nbind, bind, o->weights, &values, &n, &weights, stderr);
        free_strings(bind, o->nbind);
        if (!ok)
            return false;
        r->set_inputs[i] = values;
        if (i == 0) {
            r->inputs = values;
            r->ninputs = n;
            r->weights = weights;
            continue;
        }
        safetensors_close(weights);
        for (int k = 0; k < n; k++) {
            if (same_binding(values[k], r->inputs[k]))
                continue;
            const char *name = ir_block_param(r->graph->top, k)->name;
            size_t len = strcspn(name, ".");     /* %x.1 is bound as x */
            fprintf(stderr, "%s/%s: error: input '%.*s' is not as in the first set (%s): every set needs "
                    "the first's shapes, dtypes and numbers (the program is compiled for them)\n",
                    o->inputs_dir, r->set_names[i], (int)len, name, r->set_names[0]);
            return false;
        }
    }
    return true;
}

/* NAME=VALUE and --weights against the graph's inputs. Every stage after
 * functionalization is specialized to the bound inputs, so they are needed
 * from there on; --emit=alias and --emit=tssa take them when given. */
static bool bind_inputs(Run *r)                 /* frontend: bindings */
{
    const Options *o = r->o;
    bool needed = o->emit == EMIT_NONE || o->emit >= EMIT_STREAM;
    if (needed || o->nbind > 0) {
        /* Rank 0 reads the bindings' files and hands the values to the
         * others; every rank opens the weights it compiles against. */
        int ok = world_rank() != 0 ||
                 (o->inputs_dir ? bind_input_sets(r)
                                : bindings_resolve(r->graph, o->nbind, o->bind, o->weights, &r->inputs,
                                                   &r->ninputs, &r->weights, stderr));
        if (!world_share_int(ok, 0))
            return stop(r, EXIT_USAGE);
        /* Each host's file may be missing or bad where rank 0's is not. */
        bool opened = world_rank() == 0 || !o->weights ||
                      ((r->weights = safetensors_open(o->weights, stderr)) &&
                       bindings_check_weights(r->graph, r->weights, stderr));
        if (!ranks_agree(r, opened || stop(r, EXIT_USAGE)))
            return false;
        if (!ranks_agree(r, world_share_values(&r->inputs, &r->ninputs, 0, stderr) || stop(r, EXIT_RUNTIME)))
            return false;
        r->nsets = world_share_int(r->nsets, 0);    /* the others run as many runs */
        r->bound = true;
    } else if (o->weights && !(r->weights = safetensors_open(o->weights, stderr))) {
        return stop(r, EXIT_USAGE);
    }
    return true;
}

/* The oracle: the program as written, imperative, op by op. */
static bool run_reference(Run *r)               /* backends/ref */
{
    if (world_rank() != 0)                      /* the oracle runs once, on rank 0 */
        return true;
    int status = backend_ref_run(r->graph, r->inputs, r->ninputs, r->weights, &r->outputs,
                                 &r->noutputs, stderr);
    return status == EXIT_OK ? true : stop(r, status);
}

/* What the bindings tell TensorSSA: module attributes for constant folding,
 * and whether the bound tensors share storage. */
static bool prepare_functionalize(Run *r)
{
    tssa_options_default(&r->tssa);
    r->tssa.weights = r->weights;
    r->tssa.inputs_disjoint = r->bound && tssa_inputs_disjoint(r->inputs, r->ninputs);
    return true;
}

static bool functionalize(Run *r)               /* functionalize: TensorSSA */
{
    if (!tssa_functionalize(r->graph, &r->tssa, &r->tssa_report, stderr))
        return stop(r, EXIT_RUNTIME);
    return true;
}

static bool specialize(Run *r)                  /* streamit: compile-time values */
{
    int status = EXIT_OK;
    r->program = lower_specialize(r->graph, r->inputs, r->ninputs, r->weights, stderr, &status);
    if (r->program)
        lower_set_loop_chunk(r->program, r->o->loop_chunk);
    return r->program ? true : stop(r, status);
}

/* A data-parallel loop becomes one kernel over all its iterations (one
 * launch on a GPU; on a CPU one loop nest whose outer loop OpenMP shares out
 * over the rank's cores, where each iteration alone is too little work to
 * share) and one GEMM per product. The loop then leaves the stream graph, so
 * it is kept where its firings are to be split: --fission=K, --devices N > 1
 * on the cuda backend, a --place file (which names the loop's filters), and
 * ranks on several hosts (whose cores only messages reach). Ranks on one
 * host share its cores, so there the kernel's threads do what messages
 * would, without the messages. */
static bool horizontal_wanted(const Options *o)
{
    if (o->keep_loops || o->fission > 1 || o->place || (o->backend == BACKEND_CUDA && o->devices > 1))
        return false;
    return world_local_size() == world_size();
}

/* One stage of the kernels passes (kernels/passes.c lists them, in order);
 * --print-after=PASS stops after PASS with the --emit=fused printer. */
static bool run_kernels_passes(Run *r, KernelsStage stage)
{
    KernelsPassOptions po;
    kernels_pass_options_default(&po);          /* verify: debug builds, TSSA_VERIFY_PASSES */
    po.inputs = r->inputs;
    po.ninputs = r->ninputs;
    po.horizontal = horizontal_wanted(r->o);
    po.stop_after = r->o->print_after;
    int status = EXIT_OK;
    switch (kernels_run_passes(r->program, stage, &po, stderr, &status)) {
    case KERNELS_PASSES_DONE:    return true;
    case KERNELS_PASSES_STOPPED: return emit_stop(r, EMIT_FUSED);
    case KERNELS_PASSES_FAILED:  break;
    }
    return stop(r, status);
}

static bool infer_shapes(Run *r)                /* kernels: static shapes and dtypes */
{
    return run_kernels_passes(r, KERNELS_STAGE_SHAPES);
}

static bool fuse(Run *r)                        /* kernels: vertical, horizontal fusion */
{
    return r->o->no_fuse || run_kernels_passes(r, KERNELS_STAGE_FUSION);
}

/* The kernels are compiled for a run and generated for --emit=c|cuda; the
 * other stops after this one show the fused graph and need no code.
 * Every rank calls it, `reached` false where the stages before it stopped
 * (a failure, or an --emit stop) so that the ranks agree on going on. */
static bool compile_kernels(Run *r, bool reached) /* kernels: generate, compile, load */
{
    bool emit_source = r->o->emit == EMIT_C || r->o->emit == EMIT_CUDA;
    bool wanted = reached && !r->o->no_fuse && (r->o->emit == EMIT_NONE || emit_source);
    int status = EXIT_OK;
    /* the cuda backend compiles the CUDA text itself (open_device) */
    bool compile_c = !emit_source && r->o->backend != BACKEND_CUDA;
    /* Under mpirun rank 0 compiles first and the others then find the
     * kernels in the cache (when it is shared) instead of all compiling:
     * the agreement between is where they wait, and where a rank that
     * failed before (its own --weights) stops every rank. */
    if (wanted && world_rank() == 0 && !(r->kernels = kernels_compile(r->program, compile_c, stderr, &status)))
        stop(r, status);
    if (!ranks_agree(r, r->status == EXIT_OK))
        return false;
    if (wanted && world_rank() != 0 && !(r->kernels = kernels_compile(r->program, compile_c, stderr, &status)))
        return stop(r, status);
    return reached;
}

static bool lower(Run *r)                       /* streamit: stream graph */
{
    if (!lower_build(r->program, stderr))
        return stop(r, EXIT_RUNTIME);
    kernels_estimate_costs(r->program);     /* kernels: each filter's cost, for placement */
    return true;
}

/* A schedule that cannot be built is the user's fault for a hand-written
 * .str graph, and the compiler's for a lowered one. */
static bool schedule(Run *r)                    /* scheduler: SDF schedule */
{
    r->schedule = sched_build(stream_root(r), stderr);
    return r->schedule ? true : stop(r, r->stream_text ? EXIT_USAGE : EXIT_RUNTIME);
}

/* --fission=K: the filters to split and their copies' firings come from the
 * repetitions of a first schedule, which the split graph makes stale: the
 * schedule stage after it (run_pipeline) plans the split graph. */
/* --fission=K splits data-parallel filters for threads and ranks; on the
 * cuda backend every work filter then gets a device, and with --devices N
 * the data-parallel ones are split over the N devices. The graph changes;
 * the schedule stage plans it again. */
static bool fission(Run *r)                     /* scheduler: fission, devices */
{
    bool devices = r->o->backend == BACKEND_CUDA && !r->stream_text;
    if (r->o->fission <= 1 && !devices)
        return true;
    if (!schedule(r))
        return false;
    if (r->o->fission > 1) {
        sched_fission_all(r->schedule, r->o->fission);
        sched_free(r->schedule);
        r->schedule = NULL;
        if (devices && !schedule(r))
            return false;
    }
    if (devices)
        r->schedule = sched_place_devices(r->schedule, r->o->devices ? r->o->devices : 1, stderr);
    if (devices && !r->schedule)
        return stop(r, EXIT_RUNTIME);
    sched_free(r->schedule);
    r->schedule = NULL;
    return true;
}

/* OMP_NUM_THREADS, when set, caps a binding's threads (its cores stay). */
static void cap_threads(RankBinding *b)
{
    long threads;
    const char *env = getenv("OMP_NUM_THREADS");
    if (env && parse_whole(env, 1, 1 << 16, &threads) && threads < b->threads)
        b->threads = (int)threads;
}

/* hwloc: the machine, and this rank's share of its cores. Under mpirun
 * each rank is bound to its block of cores and runs that many OpenMP and
 * BLAS threads; a plain run keeps the whole machine. */
static bool bind_cores(Run *r)                  /* scheduler: topology */
{
    /* A plain run binds nothing and needs no hwloc (whose PCI plugin
     * costs start-up time): its threads are the machine's. */
    if (!world_launched_by_mpirun() && r->o->emit != EMIT_TOPOLOGY) {
        long cpus = sysconf(_SC_NPROCESSORS_ONLN);
        r->binding = (RankBinding){.local_size = 1, .ncores = cpus > 0 ? (int)cpus : 1,
                                   .threads = cpus > 0 ? (int)cpus : 1};
        gethostname(r->machine.host, sizeof r->machine.host - 1);
    } else {
        if (!machine_topology_read(&r->machine, stderr))   /* this host's, on every rank */
            return ranks_agree(r, stop(r, EXIT_RUNTIME));
        r->binding = machine_binding_plan(&r->machine, world_local_rank(), world_local_size());
    }
    cap_threads(&r->binding);
    if (world_launched_by_mpirun())
        machine_bind(&r->binding, stderr);      /* a failed bind only warns */
    return ranks_agree(r, true);
}

/* --emit=topology: the machine and the binding of every rank on it. */
static bool emit_topology(Run *r)
{
    if (r->o->emit != EMIT_TOPOLOGY)
        return true;
    int n = world_local_size(), first = world_rank() - world_local_rank();
    RankBinding *bindings = xcalloc((size_t)n, sizeof *bindings);
    int *ranks = xcalloc((size_t)n, sizeof *ranks);
    for (int i = 0; i < n; i++) {
        bindings[i] = machine_binding_plan(&r->machine, i, n);
        ranks[i] = first + i;
    }
    if (world_rank() == 0)
        machine_topology_print(stdout, &r->machine, bindings, ranks, n);
    free(bindings);
    free(ranks);
    fflush(stdout);
    return stop(r, EXIT_OK);
}

/* The ranks the placement is for: mpirun's, or --ranks N to inspect. */
static int placement_ranks(const Options *o)
{
    return o->ranks ? o->ranks : world_size();
}

/* The cost model's rates: --rates FILE, else this host's calibrated rates
 * (measured by rank 0 once per host and thread count, cached beside the
 * kernels) and, under mpirun, the link measured by a ping-pong. Every rank
 * uses rank 0's figures, so every rank computes the same placement. */
static bool measure_rates(Run *r)               /* scheduler: cost model */
{
    device_rates_default(&r->rates);
    /* One rank with nothing to show has nothing to decide. */
    if (placement_ranks(r->o) == 1 && !r->o->rates && r->o->emit != EMIT_SCHEDULE)
        return true;
    /* Each rank works with its share of the host's cores, but everything
     * kept on rank 0 runs on all of them (rebind_to_busy_ranks): the
     * one-rank case is costed at that thread count. --ranks N without
     * mpirun plans for N ranks sharing this host. */
    int rank_threads = r->binding.threads, alone_threads = r->binding.threads;
    int host_cores = r->binding.ncores, host_ranks = 1;
    if (world_launched_by_mpirun()) {
        RankBinding alone = machine_binding_plan(&r->machine, 0, 1);
        host_cores = alone.ncores;
        cap_threads(&alone);
        alone_threads = alone.threads > rank_threads ? alone.threads : rank_threads;
        host_ranks = world_local_size();
    } else if (r->o->ranks > 1) {
        rank_threads = alone_threads / r->o->ranks > 1 ? alone_threads / r->o->ranks : 1;
        host_ranks = r->o->ranks;
    }
    int ok = 1;
    if (world_rank() == 0) {
        char *cache = tssa_cache_dir();
        ok = device_rates_get(&r->rates, r->o->rates, cache, rank_threads, stderr);
        r->alone_rates = r->rates;
        if (ok && alone_threads != rank_threads && !r->o->rates)
            ok = device_rates_get(&r->alone_rates, NULL, cache, alone_threads, stderr);
        free(cache);
        /* More ranks than cores (oversubscribed): they take turns on the
         * cores, each at cores / ranks of one core's rate. */
        if (ok && !r->o->rates && host_cores > 0 && host_ranks > host_cores) {
            r->rates.flops_per_s *= (double)host_cores / host_ranks;
            r->rates.bytes_per_s *= (double)host_cores / host_ranks;
        }
    }
    if (!world_share_int(ok, 0))
        return stop(r, EXIT_USAGE);
    r->alone_rates.flops_per_s = world_share_double(r->alone_rates.flops_per_s, 0);
    r->alone_rates.bytes_per_s = world_share_double(r->alone_rates.bytes_per_s, 0);
    r->rates.flops_per_s = world_share_double(r->rates.flops_per_s, 0);
    r->rates.bytes_per_s = world_share_double(r->rates.bytes_per_s, 0);
    r->rates.firing_s = world_share_double(r->rates.firing_s, 0);
    r->rates.link_latency_s = world_share_double(r->rates.link_latency_s, 0);
    r->rates.link_bytes_per_s = world_share_double(r->rates.link_bytes_per_s, 0);
    r->rates.link_pinned = world_share_int(r->rates.link_pinned, 0);
    if (!r->rates.link_pinned)
        world_measure_link(&r->rates.link_latency_s, &r->rates.link_bytes_per_s);
    return true;
}

/* After placement: the cores of this host's ranks that fire no work
 * filter go to the ranks that do (a program kept on rank 0 runs on the
 * whole host, not on rank 0's share of it). Every rank decides alike from
 * the placement; ranks of one host are taken to be consecutive. */
static void rebind_to_busy_ranks(Run *r)
{
    const Schedule *s = r->schedule;
    if (!world_launched_by_mpirun() || world_size() == 1 || !s->actor_rank)
        return;
    bool *busy = xcalloc((size_t)world_size(), sizeof *busy);
    for (int a = 0; a < s->flat->nactors; a++) {
        const StreamActor *actor = &s->flat->actors[a];
        if (actor->kind == ACTOR_FILTER && actor->node->filter.role == FILTER_WORK &&
            s->actor_rank[a] < world_size())
            busy[s->actor_rank[a]] = true;
    }
    for (int k = 0; k < world_size(); k++)
        r->busy_ranks += busy[k];
    int first = world_rank() - world_local_rank(), nbusy = 0, mine = -1;
    for (int k = first; k < first + world_local_size() && k < world_size(); k++) {
        if (k == world_rank() && busy[k])
            mine = nbusy;
        nbusy += busy[k];
    }
    free(busy);
    if (mine < 0 || nbusy == world_local_size())
        return;
    RankBinding b = machine_binding_plan(&r->machine, mine, nbusy);
    b.local_rank = world_local_rank();
    b.local_size = world_local_size();
    cap_threads(&b);
    r->binding = b;
    machine_bind(&r->binding, stderr);
}

/* What every rank must have planned alike to send and expect the same
 * messages: the actors (names, firings) and their ranks. Plans differ when
 * the ranks' files do (a --weights or --place file not the same on every
 * host). */
static uint64_t plan_fingerprint(const Schedule *s)
{
    CacheKey key = cache_key_start();
    for (int a = 0; a < s->flat->nactors; a++) {
        const char *name = s->flat->actors[a].node->name ? s->flat->actors[a].node->name : "";
        int rank = s->actor_rank ? s->actor_rank[a] : 0;
        cache_key_add(&key, name, strlen(name));
        cache_key_add(&key, &s->repetitions[a], sizeof s->repetitions[a]);
        cache_key_add(&key, &rank, sizeof rank);
    }
    return (uint64_t)key ^ (uint64_t)(key >> 64);
}

/* Every filter gets a rank: pinned by --place, else the partitioner's. */
static bool place(Run *r)                       /* scheduler: partition */
{
    PartitionOptions po = {
        .nranks = placement_ranks(r->o), .sets = r->nsets > 0 ? r->nsets : 1 + r->o->repeat,
        .flops_per_s = r->rates.flops_per_s, .bytes_per_s = r->rates.bytes_per_s,
        .firing_s = r->rates.firing_s, .link_latency_s = r->rates.link_latency_s,
        .link_bytes_per_s = r->rates.link_bytes_per_s,
        .alone_flops_per_s = r->alone_rates.flops_per_s, .alone_bytes_per_s = r->alone_rates.bytes_per_s,
    };
    bool bad_file = false;
    Schedule *s = r->schedule;
    r->schedule = NULL;
    /* Every rank places alike and rank 0 reports; the others hold their
     * messages back until the agreement, which shows them where a rank
     * failed alone (its host's --place file). */
    hold_stderr();
    r->schedule = r->o->place ? sched_place_file(s, r->o->place, &po, stderr, &bad_file)
                              : sched_partition(s, &po, stderr);
    bool ok = r->schedule || stop(r, bad_file || r->stream_text ? EXIT_USAGE : EXIT_RUNTIME);
    uint64_t mine = r->schedule ? plan_fingerprint(r->schedule) : 0;
    if (world_share_u64(mine, 0) != mine && ok) {
        fprintf(stderr, "tssa-stream: error: rank %d planned another program or placement than rank 0: every "
                        "rank needs the same --weights and --place files\n", world_rank());
        ok = stop(r, EXIT_USAGE);
    }
    if (!ranks_agree(r, ok))
        return false;
    speak_again(false);
    rebind_to_busy_ranks(r);
    return true;
}

static double seconds_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int compare_doubles(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* NULL-safe: a set whose inputs were never bound (--inputs stopped at an
 * earlier bad set) has none. */
static void free_outputs(RtValue **outputs, int n)
{
    if (!outputs)
        return;
    for (int i = 0; i < n; i++)
        rt_release(outputs[i]);
    free(outputs);
}

/* New copies of the tensors in values[0..n) (a run may write into its
 * inputs, as PyTorch would); NULL when memory runs out. */
static RtValue **clone_inputs(RtValue **values, int n)
{
    RtValue **copy = xcalloc((size_t)n + 1, sizeof *copy);
    for (int i = 0; i < n; i++)
        if (!(copy[i] = rt_clone_tensors(values[i]))) {
            free_outputs(copy, i);
            return NULL;
        }
    return copy;
}

/* --repeat N: the run that made the outputs was the warm-up; N more runs
 * on the inputs as they were before it (fresh copies, made outside the
 * timing, since a program may write into its inputs) are timed one by one
 * (wall clock). */
/* A timed run's outputs are not kept: their memory serves the next run. */
static void drop_outputs(void *ctx, int set, RtValue **outputs, int noutputs)
{
    (void)ctx;
    (void)set;
    free_outputs(outputs, noutputs);
}

/* --repeat N on several ranks: the N runs as one stream (stages on
 * different ranks overlap), timed as a whole. */
static bool time_stream(Run *r, const ExecPlan *plan, RtValue **pristine)
{
    /* The runs share one copy of the inputs: N copies made up front would
     * take the memory the runs' own tensors then reuse warm. (A program
     * that writes into its inputs sees the earlier runs' writes; the
     * outputs written come from the first run.) */
    int n = r->o->repeat, status = EXIT_OK;
    RtValue ***inputs = xcalloc((size_t)n, sizeof *inputs);
    RtValue **copy = clone_inputs(pristine, r->ninputs);
    for (int i = 0; i < n; i++)
        inputs[i] = copy;
    double t0 = seconds_now();
    status = copy ? backend_cpu_run_sets(plan, n, inputs, r->ninputs, drop_outputs, NULL, stderr) : EXIT_RUNTIME;
    double per_run = (seconds_now() - t0) / n;
    if (copy)
        free_outputs(copy, r->ninputs);
    free(inputs);
    if (status == EXIT_OK && world_rank() == 0)
        fprintf(stderr, "tssa-stream: repeat: %d runs after 1 warm-up: min %.4f ms, median %.4f ms per run "
                        "(one stream over %d ranks: its time over %d)\n", n, per_run * 1e3, per_run * 1e3,
                world_size(), n);
    return status == EXIT_OK ? true : stop(r, status);
}

/* Whether this rank fires no actor at all (the placement gave every one,
 * and every channel's ends, to other ranks). */
static bool rank_is_idle(const Run *r)
{
    const Schedule *s = r->schedule;
    if (world_rank() == 0 || !s->actor_rank)
        return false;
    for (int a = 0; a < s->flat->nactors; a++)
        if (s->actor_rank[a] == world_rank())
            return false;
    return true;
}

static bool time_runs(Run *r, const ExecPlan *plan, RtValue **pristine)
{
    if (r->busy_ranks > 1)
        return time_stream(r, plan, pristine);
    /* A rank with nothing to fire has no part in the runs: copying the
     * inputs for each would only take memory bandwidth from the rank that
     * works on the same host. */
    if (rank_is_idle(r))
        return true;
    int n = r->o->repeat;
    double *times = xcalloc((size_t)n, sizeof *times);
    /* Timed as PyTorch is timed on a GPU: the inputs already in device
     * memory, the outputs left there (nobody reads them), the run over when
     * the device is done. */
    ExecPlan timed = *plan;
    timed.outputs_dropped = true;
    const ExecDevice *dev = plan->device;
    for (int i = 0; i < n; i++) {
        RtValue **outputs = NULL, **inputs = clone_inputs(pristine, r->ninputs);
        int noutputs = 0;
        if (!inputs) {
            fputs("tssa-stream: error: out of memory copying the inputs for --repeat\n", stderr);
            free(times);
            return stop(r, EXIT_RUNTIME);
        }
        if (dev && !dev->prefetch(dev->ctx, inputs, r->ninputs, stderr)) {
            free_outputs(inputs, r->ninputs);
            free(times);
            return stop(r, EXIT_RUNTIME);
        }
        double t0 = seconds_now();
        int status = backend_cpu_run(&timed, inputs, r->ninputs, &outputs, &noutputs, stderr);
        times[i] = seconds_now() - t0;
        free_outputs(outputs, noutputs);
        free_outputs(inputs, r->ninputs);
        if (status != EXIT_OK) {
            free(times);
            return stop(r, status);
        }
    }
    qsort(times, (size_t)n, sizeof *times, compare_doubles);
    double median = n % 2 ? times[n / 2] : (times[n / 2 - 1] + times[n / 2]) / 2;
    if (world_rank() == 0)      /* rank 0's runs span the job's: inputs to outputs */
        fprintf(stderr, "tssa-stream: repeat: %d runs after 1 warm-up: min %.4f ms, median %.4f ms "
                        "per run\n", n, times[0] * 1e3, median * 1e3);
    free(times);
    return true;
}

/* --inputs DIR: one run per set, back to back, on the one plan
 * (backend_cpu_run_sets: on several ranks the stages on different ranks
 * work on different sets at once); rank 0 gives each run its set's inputs
 * (the other ranks' input actors never fire) and keeps every set's outputs
 * to write at the end. Prints the sets per second. */
static void keep_set_outputs(void *ctx, int set, RtValue **outputs, int noutputs)
{
    Run *r = ctx;
    r->set_outputs[set] = outputs;
    r->set_noutputs[set] = noutputs;
}

static bool run_sets(Run *r, const ExecPlan *plan)
{
    if (rank_is_idle(r))            /* nothing of any set to fire here */
        return true;
    r->set_outputs = xcalloc((size_t)r->nsets, sizeof *r->set_outputs);
    r->set_noutputs = xcalloc((size_t)r->nsets, sizeof *r->set_noutputs);
    RtValue ***inputs = xcalloc((size_t)r->nsets, sizeof *inputs);
    for (int i = 0; i < r->nsets; i++)
        inputs[i] = world_rank() == 0 ? r->set_inputs[i] : r->inputs;
    double start = seconds_now();
    int status = backend_cpu_run_sets(plan, r->nsets, inputs, r->ninputs, keep_set_outputs, r, stderr);
    double total = seconds_now() - start;
    free(inputs);
    if (status == EXIT_OK && world_rank() == 0)
        fprintf(stderr, "tssa-stream: inputs: %d sets in %.4f ms: %.2f sets per second, %.4f ms per set\n",
                r->nsets, total * 1e3, r->nsets / total, total * 1e3 / r->nsets);
    return status == EXIT_OK ? true : stop(r, status);
}

/* --trace: this rank's log, its clock's zero taken when every rank is
 * ready, so the ranks' tracks line up. */
static void start_trace(Run *r)
{
    if (!r->o->trace)
        return;
    r->trace = trace_log_new(world_rank());
    char name[96];
    snprintf(name, sizeof name, "rank %d (%s, cores %d-%d)", world_rank(), r->machine.host,
             r->binding.first_core, r->binding.first_core + r->binding.ncores - 1);
    trace_log_track_name(r->trace, -1, name);
    trace_log_track_name(r->trace, 0, "filters");
    /* each OpenMP thread's shares of the parallel loops (kernels, product
     * panels) on its own track, under the firing's filter */
    for (int t = 0; t < r->binding.threads; t++) {
        snprintf(name, sizeof name, "OpenMP thread %d", t);
        trace_log_track_name(r->trace, 1 + t, name);
    }
    trace_threads_record(true);
    world_barrier();
    r->trace_epoch = seconds_now();
}

/* --backend=cuda: the device (each rank its own, ranks taking the GPUs in
 * turn) with the program's kernels loaded on it. */
static bool open_device(Run *r)                 /* backends/cuda */
{
    if (r->o->backend != BACKEND_CUDA)
        return true;
#ifdef TSSA_USE_CUDA
    int ndev = cuda_emulated() ? 1 : cuda_device_count(NULL);
    CudaOptions co = {.device = ndev > 0 ? world_rank() % ndev : 0, .devices = r->o->devices,
                      .emulate = cuda_emulated()};
    r->cuda = cuda_backend_open(r->kernels, &co, stderr);
    if (r->cuda)
        return ranks_agree(r, true);
#endif
    return ranks_agree(r, stop(r, EXIT_RUNTIME));        /* each rank its own device */
}

/* Every rank fires the actors placed on it; a runtime failure on any rank
 * ends the whole job (its message names the rank, the filter and the
 * source line), so no rank waits forever for a message. The others then
 * end while they wait for messages or in the agreement after the runs:
 * nothing is written before every rank's runs went well. */
static bool execute(Run *r)                     /* backends/cpu (+ mpi channels) */
{
    start_trace(r);
    ExecPlan plan = {.program = r->program, .schedule = r->schedule, .kernels = r->kernels,
                     .rank = world_rank(), .transport = world_channel_transport(), .trace = r->trace,
                     .trace_epoch = r->trace_epoch};
#ifdef TSSA_USE_CUDA
    plan.device = r->cuda ? cuda_backend_device(r->cuda) : NULL;
#endif
    /* The runs reuse their tensors' buffers (the first run allocates them);
     * the pool's memory goes back to the system after the last run. */
    plan.storage_pool = storage_pool_new(storage_pool_default_cap(kernels_plan_memory(r->program).bytes_planned));
    eval_tally_reset();     /* the ops run, not those specialization ran */
    if (r->nsets > 0) {
        int status = run_sets(r, &plan) ? EXIT_OK : r->status;
        r->pool = storage_pool_stats(plan.storage_pool);
        storage_pool_free(plan.storage_pool);
        if (status != EXIT_OK && world_size() > 1)
            world_abort(status);
        return status == EXIT_OK && ranks_agree(r, true);
    }
    RtValue **pristine = r->o->repeat ? clone_inputs(r->inputs, r->ninputs) : NULL;
    int status = r->o->repeat && !pristine ? EXIT_RUNTIME
                 : backend_cpu_run(&plan, r->inputs, r->ninputs, &r->outputs, &r->noutputs, stderr);
    if (status == EXIT_OK && r->o->repeat && !time_runs(r, &plan, pristine))
        status = r->status;
    if (pristine)
        free_outputs(pristine, r->ninputs);
    r->pool = storage_pool_stats(plan.storage_pool);
    storage_pool_free(plan.storage_pool);
    if (status != EXIT_OK && world_size() > 1)
        world_abort(status);
    return status == EXIT_OK ? ranks_agree(r, true) : stop(r, status);
}

/* --trace: rank 0 gathers every rank's events and writes one file. */
static bool write_trace(Run *r)                 /* util: Chrome trace */
{
    if (!r->trace)
        return true;
    size_t len = 0, all_len = 0;
    char note[256];
    if (trace_log_limit_note(r->trace, note, sizeof note)) {
        if (world_size() > 1)
            fprintf(stderr, "tssa-stream: rank %d: %s\n", world_rank(), note);
        else
            fprintf(stderr, "tssa-stream: %s\n", note);
    }
    const char *events = trace_log_events(r->trace, &len);
    char *all = world_gather_bytes(events, len, 0, &all_len);
    bool ok = world_rank() != 0 || trace_log_write(r->o->trace, all, all_len, stderr);
    free(all);
    return ok ? true : stop(r, EXIT_RUNTIME);
}

/* --stats: what the run did, as "tssa-stream: stats: KEY VALUE" lines. */
#ifdef TSSA_USE_CUDA
/* The ops of the nodes that ran on the host, most frequent first: where a
 * cuda run leaves the device (each such node waits for the device and
 * copies its inputs back). */
static void print_host_ops(FILE *e, const char *tag, const CudaStats *cs, int runs)
{
    enum { SHOWN = 8 };
    int top[SHOWN], ntop = 0;
    for (int op = 0; op < OP_COUNT; op++) {
        if (!cs->host_nodes_by_op[op])
            continue;
        int at = ntop < SHOWN ? ntop++ : SHOWN;
        while (at > 0 && cs->host_nodes_by_op[top[at - 1]] < cs->host_nodes_by_op[op]) {
            if (at < SHOWN)
                top[at] = top[at - 1];
            at--;
        }
        if (at < SHOWN)
            top[at] = op;
    }
    if (!ntop)
        return;
    fprintf(e, "tssa-stream: stats: %shost_ops_per_run", tag);
    for (int i = 0; i < ntop; i++)
        fprintf(e, "%s %s %.6g", i ? "," : "", top[i] ? op_info(top[i])->name : "(unknown op)",
                (double)cs->host_nodes_by_op[top[i]] / runs);
    fputc('\n', e);
}
#endif

static bool print_stats(Run *r)
{
    if (!r->o->stats)
        return true;
    /* Under mpirun every rank reports what it ran: keys rank0.KEY, rank1.KEY... */
    char tag[32] = "";
    if (world_size() > 1)
        snprintf(tag, sizeof tag, "rank%d.", world_rank());
    int runs = 1 + r->o->repeat;
    EvalTally ops = eval_tally();
    const KernelsStats *ks = r->kernels ? kernels_stats(r->kernels) : NULL;
    FILE *e = stderr;
    fprintf(e, "tssa-stream: stats: %sbackend %s\n", tag, r->o->backend == BACKEND_CUDA ? "cuda" : "cpu");
    fprintf(e, "tssa-stream: stats: %sfusion %s\n", tag, r->o->no_fuse ? "off" : "on");
#ifdef TSSA_USE_CUDA
    if (r->cuda) {
        CudaStats cs = cuda_backend_stats(r->cuda);
        fprintf(e, "tssa-stream: stats: %sdevice %s\n", tag, cs.device);
        fprintf(e, "tssa-stream: stats: %slaunches_per_run %.6g\n", tag, (double)cs.launches / runs);
        fprintf(e, "tssa-stream: stats: %sgemms_per_run %.6g\n", tag, (double)cs.gemms / runs);
        fprintf(e, "tssa-stream: stats: %shost_nodes_per_run %.6g\n", tag, (double)cs.host_nodes / runs);
        print_host_ops(e, tag, &cs, runs);
        fprintf(e, "tssa-stream: stats: %sbytes_to_device_per_run %.6g\n", tag,
                (double)cs.bytes_to_device / runs);
        fprintf(e, "tssa-stream: stats: %sbytes_to_host_per_run %.6g\n", tag, (double)cs.bytes_to_host / runs);
        fprintf(e, "tssa-stream: stats: %scopies_to_device_per_run %.6g\n", tag,
                (double)cs.copies_to_device / runs);
        fprintf(e, "tssa-stream: stats: %scopies_to_host_per_run %.6g\n", tag, (double)cs.copies_to_host / runs);
        fprintf(e, "tssa-stream: stats: %sstrided_inputs_per_run %.6g\n", tag,
                (double)cs.strided_inputs / runs);
        fprintf(e, "tssa-stream: stats: %speak_device_bytes %lld\n", tag, (long long)cs.peak_device_bytes);
        fprintf(e, "tssa-stream: stats: %sdevice_allocations %lld\n", tag, (long long)cs.device_allocations);
    }
#endif
    if (ks) {
        fprintf(e, "tssa-stream: stats: %sfused_groups %d\n", tag, ks->groups);
        fprintf(e, "tssa-stream: stats: %snodes_fused %d\n", tag, ks->nodes_fused);
        fprintf(e, "tssa-stream: stats: %skernels %d\n", tag, ks->kernels);
        fprintf(e, "tssa-stream: stats: %sgroups_interpreted %d%s%s\n", tag, ks->interpreted,
                ks->interpreted_why ? " first because: " : "",
                ks->interpreted_why ? ks->interpreted_why : "");
        fprintf(e, "tssa-stream: stats: %skernels_per_run %.6g\n", tag, (double)ks->launches / runs);
        fprintf(e, "tssa-stream: stats: %sgroups_interpreted_per_run %.6g\n", tag,
                (double)ks->fallbacks / runs);
        fprintf(e, "tssa-stream: stats: %sinputs_copied_per_run %.6g\n", tag, (double)ks->copies / runs);
        fprintf(e, "tssa-stream: stats: %scompile_s %.4f\n", tag, ks->compile_s);
        fprintf(e, "tssa-stream: stats: %scache %s\n", tag,
                ks->kernels == 0 ? "unused" : ks->compiled ? "miss" : "hit");
    }
    fprintf(e, "tssa-stream: stats: %slibrary_calls_per_run %.6g\n", tag, (double)ops.library / runs);
    fprintf(e, "tssa-stream: stats: %sfallbacks_per_run %.6g\n", tag, (double)ops.reference / runs);
    fprintf(e, "tssa-stream: stats: %sviews_per_run %.6g\n", tag, (double)ops.views / runs);
    fprintf(e, "tssa-stream: stats: %sfilters %d\n", tag, lower_stats(r->program)->work_filters);
    KernelsMemory mem = kernels_plan_memory(r->program);
    fprintf(e, "tssa-stream: stats: %sbytes_planned %lld\n", tag, (long long)mem.bytes_planned);
    fprintf(e, "tssa-stream: stats: %sbytes_without_reuse %lld\n", tag, (long long)mem.bytes_naive);
    fprintf(e, "tssa-stream: stats: %stensors_planned %d\n", tag, mem.values_planned);
    fprintf(e, "tssa-stream: stats: %stensors_of_unknown_shape %d\n", tag, mem.values_unknown);
    /* tensor buffers malloc'd by the first run and by the last (0 once the
     * pool serves every tensor from the buffers earlier runs gave back) */
    fprintf(e, "tssa-stream: stats: %sallocations_first_run %lld\n", tag,
            (long long)r->pool.first_run_allocations);
    fprintf(e, "tssa-stream: stats: %sallocations_last_run %lld\n", tag, (long long)r->pool.last_run_allocations);
    fprintf(e, "tssa-stream: stats: %spool_bytes_held %lld\n", tag, (long long)r->pool.peak_bytes_held);
    fprintf(e, "tssa-stream: stats: %spool_bytes_cap %lld\n", tag, (long long)r->pool.cap_bytes);
    return true;
}

static bool write_outputs(Run *r)               /* frontend: .npy outputs */
{
    if (world_rank() != 0)                      /* rank 0 holds and writes them */
        return true;
    for (int i = 0; i < r->nsets; i++) {        /* --inputs: OUT/SET/out0.npy ... */
        if (!r->o->out_dir) {
            printf("%s:\n", r->set_names[i]);
            outputs_summarize(stdout, r->set_outputs[i], r->set_noutputs[i]);
            continue;
        }
        char *dir = xprintf("%s/%s", r->o->out_dir, r->set_names[i]);
        bool ok = outputs_write(dir, r->set_outputs[i], r->set_noutputs[i], stderr);
        free(dir);
        if (!ok)
            return stop(r, EXIT_RUNTIME);
    }
    if (r->nsets > 0)
        return true;
    if (!r->o->out_dir) {
        outputs_summarize(stdout, r->outputs, r->noutputs);
        return true;
    }
    return outputs_write(r->o->out_dir, r->outputs, r->noutputs, stderr) ? true
                                                                          : stop(r, EXIT_RUNTIME);
}

static void run_free(Run *r)
{
    for (int i = 0; i < r->noutputs; i++)
        rt_release(r->outputs[i]);
    free(r->outputs);
    sched_free(r->schedule);
#ifdef TSSA_USE_CUDA
    cuda_backend_close(r->cuda);        /* before the kernels it launches */
#endif
    kernels_free(r->kernels);
    lower_program_free(r->program);
    for (int i = 0; i < r->nsets; i++) {
        if (r->set_outputs)
            free_outputs(r->set_outputs[i], r->set_noutputs[i]);
        if (r->set_inputs && i > 0)             /* set 0's are r->inputs */
            free_outputs(r->set_inputs[i], r->ninputs);
    }
    free(r->set_outputs);
    free(r->set_noutputs);
    free(r->set_inputs);
    free_strings(r->set_names, r->nsets);
    for (int i = 0; i < r->ninputs; i++)
        rt_release(r->inputs[i]);
    free(r->inputs);
    safetensors_close(r->weights);
    ir_graph_free(r->graph);
    stream_graph_free(r->stream_text);
    trace_log_free(r->trace);
}

/* Under mpirun every rank compiles the same plan and so would find the
 * same bad input: only rank 0 speaks. The other ranks write their standard
 * output to /dev/null and, until they agree that the compile went well
 * (agree), their standard error to a scratch file, which a rank shows only
 * when it failed where rank 0 did not. */
static struct {
    int saved_stderr;
    FILE *captured;
} quiet = {-1, NULL};

static void hold_stderr(void)
{
    if (world_rank() == 0 || quiet.captured)
        return;
    fflush(stderr);
    if ((quiet.captured = tmpfile()) != NULL) {
        quiet.saved_stderr = dup(STDERR_FILENO);
        dup2(fileno(quiet.captured), STDERR_FILENO);
    }
}

static void quiet_other_ranks(void)
{
    if (world_rank() == 0)
        return;
    fflush(stdout);
    int devnull = open("/dev/null", O_WRONLY);
    if (devnull >= 0) {
        dup2(devnull, STDOUT_FILENO);
        close(devnull);
    }
    hold_stderr();
}

static void speak_again(bool show_captured)
{
    if (!quiet.captured)
        return;
    fflush(stderr);
    dup2(quiet.saved_stderr, STDERR_FILENO);
    close(quiet.saved_stderr);
    rewind(quiet.captured);
    char buf[4096];
    size_t n;
    while (show_captured && (n = fread(buf, 1, sizeof buf, quiet.captured)) > 0)
        fwrite(buf, 1, n, stderr);
    fclose(quiet.captured);
    quiet.captured = NULL;
}

/* Under mpirun, the end of a step that may fail on some ranks and not on
 * others (a file missing on one host, a compiler broken on one): every
 * rank calls it, whatever its step did, before any other collective call,
 * so that no rank waits in a call that a failed rank skipped. A failed
 * rank passes false after setting r->status (stop()). True when every
 * rank got through; else every rank takes the job's status (rank 0's when
 * it failed: it said why, once, for all; else the worst), a rank that
 * failed where rank 0 did not shows the messages it held back, and every
 * rank stops. */
static bool ranks_agree(Run *r, bool ok)
{
    if (world_size() == 1)
        return ok;
    int mine = ok ? EXIT_OK : r->status != EXIT_OK ? r->status : EXIT_RUNTIME;
    int worst = world_max_int(mine);    /* first: it waits for the slowest rank without spinning */
    int root_status = world_share_int(mine, 0);
    if (worst == EXIT_OK)
        return true;
    speak_again(mine != EXIT_OK && root_status == EXIT_OK);
    r->status = root_status != EXIT_OK ? root_status : worst;
    return false;
}

/* Under mpirun: whether every rank compiled and goes on to run (the ranks
 * speak again from here on). When rank 0 stopped with an error, every rank
 * exits with its status (rank 0 said why, once); a rank that failed alone
 * shows its own message. */
static bool agree(Run *r, bool go)
{
    if (world_size() == 1)
        return go;
    bool all_ok = ranks_agree(r, r->status == EXIT_OK);
    speak_again(false);
    int any_stopped = world_max_int(!go);
    return all_ok && !any_stopped;
}

/* The whole compiler, in order. Each stage is one call into its layer and
 * returns false when the run stops there (an --emit stop, or an error whose
 * exit status it set). A new stage is one line here and, if it has a
 * printed form, one --emit value in emit_stop. Under mpirun every rank
 * runs every stage up to the schedule alike (rank 0 reads the files and
 * shares them); agree() then checks they all got there before any rank
 * places, runs and exchanges messages. A stage where ranks may part ways
 * (each rank's own files, compiler, device, runs) ends in ranks_agree(),
 * which every rank reaches, so all of them stop together. */
static int run_pipeline(const Options *o)
{
    Run r = {.o = o, .status = EXIT_OK};
    bool go = false;
    if (o->emit == EMIT_TOPOLOGY) {
        (void)(bind_cores(&r) && emit_topology(&r));
    } else if (o->model_is_stream) {            /* a hand-written stream graph */
        go = read_stream_text(&r) && fission(&r) && schedule(&r);
    } else if (read_graph(&r) && emit_stop(&r, EMIT_IR) && bind_inputs(&r) && verify_ops(&r)) {
        if (o->backend == BACKEND_REF && o->emit == EMIT_NONE) {
            (void)(run_reference(&r) && write_outputs(&r));
        } else {
            go = prepare_functionalize(&r)      && emit_stop(&r, EMIT_ALIAS)
                 && functionalize(&r)           && (r.bound || emit_stop(&r, EMIT_TSSA))
                 && specialize(&r)
                 && infer_shapes(&r)            && emit_stop(&r, EMIT_TSSA)
                 && fuse(&r)                    && emit_stop(&r, EMIT_FUSED);
            go = compile_kernels(&r, go)        && emit_stop(&r, EMIT_C)       /* every rank: agrees */
                                                && emit_stop(&r, EMIT_CUDA)
                 && lower(&r)
                 && fission(&r)
                 && schedule(&r);
        }
    }
    if (agree(&r, go))
        (void)(bind_cores(&r)
               && measure_rates(&r)
               && place(&r)                     && emit_stop(&r, EMIT_STREAM)
                                                && emit_stop(&r, EMIT_DOT)
                                                && emit_stop(&r, EMIT_SCHEDULE)
               && open_device(&r)
               && execute(&r)
               && write_trace(&r)
               && print_stats(&r)
               && write_outputs(&r));
    run_free(&r);
    return r.status;
}

/* Under mpirun the options decide which collective calls a rank makes and
 * in what order (--trace gathers every rank's events, --repeat N runs N
 * times, --fission and --loop-chunk shape the plan, --inputs runs one set
 * after another): a rank started with other values than rank 0's (its own
 * launcher script) would wait in a call the others never make, or take
 * another call's message. So every rank compares them with rank 0's before
 * any work. File paths may differ from host to host (each rank checks its
 * own files, and rank 0 alone reads the inputs and writes the outputs), so
 * only whether one is given is compared; --stats and -o change no call. */
static bool options_agree(const Options *o)
{
    if (world_size() == 1)
        return true;
    const struct {
        const char *name;
        long long value;
        bool presence;          /* a file's option: given or not */
    } steering[] = {
        {"the model's kind (.ir or .str)", o->model_is_stream, false},
        {"--weights", o->weights != NULL, true},
        {"--emit", o->emit, false},
        {"--backend", o->backend, false},
        {"--json", o->json, false},
        {"--fission", o->fission, false},
        {"--loop-chunk", o->loop_chunk, false},
        {"--devices", o->devices, false},
        {"--no-fuse", o->no_fuse, false},
        {"--keep-loops", o->keep_loops, false},
        {"--repeat", o->repeat, false},
        {"--ranks", o->ranks, false},
        {"--place", o->place != NULL, true},
        {"--rates", o->rates != NULL, true},
        {"--trace", o->trace != NULL, true},
        {"--inputs", o->inputs_dir != NULL, true},
        {"NAME=VALUE bindings", o->nbind > 0, true},
    };
    int differs = -1;
    long long root_value = 0;
    for (int i = 0; i < (int)(sizeof steering / sizeof steering[0]); i++) {
        long long root = (long long)world_share_u64((uint64_t)steering[i].value, 0);
        if (root != steering[i].value && differs < 0) {
            differs = i;
            root_value = root;
        }
    }
    if (world_max_int(differs >= 0) == 0)
        return true;
    if (differs >= 0) {
        speak_again(true);
        fprintf(stderr, "tssa-stream: error: rank %d was started ", world_rank());
        if (steering[differs].presence)
            fprintf(stderr, "%s %s where rank 0 was started %s it", steering[differs].value ? "with" : "without",
                    steering[differs].name, steering[differs].value ? "without" : "with");
        else
            fprintf(stderr, "with %s %lld where rank 0 has %lld", steering[differs].name, steering[differs].value,
                    root_value);
        fputs(": every rank needs the same options (only file paths may differ)\n", stderr);
    }
    return false;
}

/* A build without MPI started by mpirun would run the whole program in
 * every process, each writing the outputs: refused (by the first). */
static bool mpi_missing(void)
{
    const char *size = getenv("OMPI_COMM_WORLD_SIZE");
    if (world_built_with_mpi() || !size || atoi(size) <= 1)
        return false;
    const char *rank = getenv("OMPI_COMM_WORLD_RANK");
    if (!rank || atoi(rank) == 0)
        fputs("tssa-stream: error: this tssa-stream was built without MPI, so it cannot run on several "
              "ranks (install libopenmpi-dev and rebuild: scripts/setup.sh, scripts/build.sh)\n", stderr);
    return true;
}

int main(int argc, char **argv)
{
    if (mpi_missing())
        return EXIT_USAGE;
    if (!world_start(&argc, &argv, stderr))
        return EXIT_RUNTIME;
    /* Under mpirun a rank's threads depend on the ranks: products must not
     * (outputs are the same bits for every -np, and as a plain run's). One
     * pool of threads (OpenMP's) then runs both the kernels and the
     * products: OpenBLAS's own idle threads would spin against it. */
    tensor_products_independent_of_threads();
    quiet_other_ranks();
    Options o = {0};
    o.bind = calloc((size_t)argc + 1, sizeof *o.bind);
    if (!o.bind) {
        fputs("tssa-stream: error: out of memory\n", stderr);
        world_finish();
        return EXIT_RUNTIME;
    }
    /* Rank 0's verdict on the arguments, unless another rank's (a launcher
     * script's own) do not parse where rank 0's do: it says why. */
    int parsed = parse_args(argc, argv, &o);
    int status = world_share_int(parsed, 0), worst = world_max_int(parsed);
    if (status < 0 && worst >= 0) {
        speak_again(parsed >= 0);
        status = worst;
    }
    if (status < 0 && !options_agree(&o))
        status = EXIT_USAGE;
    if (status < 0)
        status = run_pipeline(&o);
    speak_again(false);
    free(o.bind);
    world_finish();
    return status;
}
