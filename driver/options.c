/* options.c — the tssa-stream command line: the --help text, parse_args
 * (GNU-style options and NAME=VALUE bindings, every combination checked
 * before any work, exit status 2 with a message for a bad one), --version
 * and --help (their backends from the table, registry.h), and under mpirun, the check that every rank was
 * started with the options that steer its collective calls (options_agree).
 */
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "driver/driver.h"
#include "tssa/eval.h"

static const char *const emit_names[] = {
    [EMIT_IR] = "ir", [EMIT_ALIAS] = "alias", [EMIT_TSSA] = "tssa",
    [EMIT_STREAM] = "stream", [EMIT_SCHEDULE] = "schedule", [EMIT_DOT] = "dot",
    [EMIT_C] = "c", [EMIT_CUDA] = "cuda", [EMIT_FUSED] = "fused", [EMIT_TOPOLOGY] = "topology",
    [EMIT_PLACEMENT] = "placement",
};

/* --fission=K: copies per filter beyond any machine's cores only make nodes. */
#define MAX_FISSION 4096
/* --devices N: a bound on the number itself; each backend's own limit
 * (BackendIface.max_devices) is checked once the backend is known. */
#define MAX_DEVICES 1024
/* --repeat N: a bound that keeps a typo from running for hours. */
#define MAX_REPEAT 1000000
/* --ranks N: placements are planned for at most this many ranks. */
#define MAX_RANKS 4096
#define STRINGIFY(x) #x
#define NUMBER_TEXT(x) STRINGIFY(x)

static const char usage_head[] =
    "usage: tssa-stream [OPTIONS] MODEL [NAME=VALUE ...]\n"
    "\n"
    "Compiles an imperative PyTorch program, given as the TorchScript graph text\n"
    "that print(torch.jit.script(f).graph) writes, and runs it.\n"
    "\n"
    "  MODEL               graph text (.ir), or a stream graph (.str) to inspect\n"
    "                      with --emit=stream|schedule|dot\n"
    "  NAME=VALUE          binds graph input %NAME (%x.1 is x): a .npy path, an\n"
    "                      int, a float, true or false, None (an Optional input),\n"
    "                      a JSON array for a list or tuple ([3,3], [0.5,true]);\n"
    "                      every input, defaults too (graph text keeps none)\n"
    "\n"
    "options (before or after MODEL):\n"
    "  --weights FILE      safetensors file for the module input (%self)\n"
    "  -o, --output DIR    write outputs as DIR/out0.npy, DIR/out1.npy, ...\n"
    "                      (tuples flattened in order; numbers as 0-d arrays);\n"
    "                      without -o a one-line summary per output is printed\n"
    ;

/* after --backend=NAME's lines (print_help) */
static const char usage_tail[] =
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
    "                        placement each node's device, decided when the\n"
    "                                  plan is built from the backend's\n"
    "                                  static answer (op, shapes, dtypes,\n"
    "                                  kernel): node, op, source line,\n"
    "                                  device, and why one stays on the host\n"
    "                        c         the fused kernels as C11 + OpenMP, as\n"
    "                                  they are compiled for the cpu backend\n"
    "                        cuda      the same kernels as CUDA (one thread\n"
    "                                  per output element)\n"
    "                      for graph text, tssa, stream, schedule and dot are\n"
    "                      specialized to the bindings given (shapes, trip counts);\n"
    "                      fused, stream, schedule, dot, c and cuda need them all\n"
    "  --print-after=PASS  print the graph (as --emit=fused does) after the\n"
    "                      kernels pass PASS and stop; the passes, in order:\n"
    "                      expand_rnn_layers, split_loop_tuples, shape_infer,\n"
    "                      fold_decided, decompose_cells, fold_embedding_linear,\n"
    "                      sink_sliced_products, strip_mine,\n"
    "                      hoist_input_products, split_bias,\n"
    "                      invert_whole_assigns, unpack_views, fuse,\n"
    "                      horizontal, batch_heads (a pass left out, such as\n"
    "                      horizontal or batch_heads with\n"
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
    "  --devices N         with a backend that has devices: place on N\n"
    "                      devices (1 to the backend's limit, in its lines above):\n"
    "                      data-parallel loops are cut into slices for the GPUs\n"
    "                      the devices are on (a kernel per slice) and every\n"
    "                      data-parallel filter becomes N copies, copy j on\n"
    "                      device j (cuda:j in --emit=schedule); with fewer\n"
    "                      GPUs than N, GPUs stand in for several devices, and\n"
    "                      N devices on one GPU keep one device's plan; each\n"
    "                      device has its own stream; --emit=schedule prints the\n"
    "                      predicted speedup over one device\n"
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
    "                      or, for GPUs and ranks on several hosts, one kernel\n"
    "                      and one GEMM per slice of its iterations; --fission\n"
    "                      and --place keep the loop too)\n"
    "  --no-fuse           keep every op its own filter, run by the reference\n"
    "                      kernels (fusion is on by default: neighbouring\n"
    "                      elementwise ops, views, slice assigns, casts and\n"
    "                      row reductions become one generated C kernel,\n"
    "                      compiled with $CC (default cc) and cached in\n"
    "                      $XDG_CACHE_HOME/tssa-stream, ~/.cache/tssa-stream)\n"
    "  --seed N            the seed of the random ops (rand, randn, randint,\n"
    "                      randperm, normal, bernoulli, multinomial, dropout\n"
    "                      and rrelu in training mode, uniform_, normal_):\n"
    "                      an integer from 0 to 2^64-1, default 0; the same\n"
    "                      seed gives the same numbers on every backend,\n"
    "                      placement and rank count\n"
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
    "                      --emit=schedule it only plans); on --backend=cuda\n"
    "                      (one device) the first timed run is captured as a\n"
    "                      CUDA graph and the others replay it (one launch\n"
    "                      each), unless the run reads device data on the host\n"
    "                      (--stats says why not)\n"
    "  --no-graphs         with --repeat on --backend=cuda: run every timed run\n"
    "                      through the executor, no CUDA graph\n"
    "  --stats             print to stderr what the run did: fused groups,\n"
    "                      kernels launched per run, fallbacks, compile time,\n"
    "                      tensor buffers malloc'd in the first and the last\n"
    "                      run (later runs reuse the earlier runs' buffers;\n"
    "                      TSSA_STORAGE_POOL=0 turns that off);\n"
    "                      on --backend=cuda also GEMMs, bytes and copies each\n"
    "                      way, and host_ops_per_run: the ops that left the\n"
    "                      device (each waits for it and copies its inputs back)\n"
    "                      and host_fallbacks_per_run: nodes placed on the\n"
    "                      device that a run-time fact kept on the host\n"
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
    "                      {\"flops_per_s\", \"bytes_per_s\", \"math_per_s\",\n"
    "                      \"firing_s\", \"link_latency_s\", \"link_bytes_per_s\"}\n"
    "                      (math_per_s: exp/tanh-class calls per second; calibration\n"
    "                      runs once per host and thread count and is cached\n"
    "                      beside the kernels)\n"
    "  --inputs DIR        run the program over every input set in DIR: one\n"
    "                      subfolder per set, in name order, holding the files\n"
    "                      the bindings name (x=x.npy reads DIR/SET/x.npy); -o\n"
    "                      OUT writes OUT/SET/out0.npy ...; every set must have\n"
    "                      the first's shapes; prints sets per second and the\n"
    "                      time per set (on several ranks the stages overlap)\n"
    "  --simulate-hosts    every rank behaves as if alone on its own host, to\n"
    "                      build, test and time the multi-host path on one\n"
    "                      machine: Open MPI talks TCP over loopback only (no\n"
    "                      shared memory), rank R of N is bound to cores\n"
    "                      [R*C/N, (R+1)*C/N) of the C cores and runs that many\n"
    "                      threads (OMP_NUM_THREADS caps them), no rank lends\n"
    "                      its cores to another, and the cost model prices each\n"
    "                      rank at its own share; without mpirun it only plans\n"
    "                      (--ranks N: N hosts of C/N cores each)\n"
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

__attribute__((format(printf, 1, 2))) static int usage_error(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "tssa-stream: error: ");
    vfprintf(stderr, fmt, ap);
    va_end(ap);
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
                       "dot, placement, c, cuda, topology)", arg);
}

/* --backend=NAME: a backend of the table (backends/registry.c). */
static int parse_backend(const char *arg, Options *o)
{
    const char *why = NULL;
    if ((o->backend = backend_find(arg, &why)))
        return EXIT_OK;
    if (why) {
        o->backend_absent = arg;
        o->backend_absent_why = why;
        return EXIT_OK;
    }
    return usage_error("unknown backend '%s' (backends: %s)", arg, backend_all_names());
}

/* --devices N with a backend that has no devices: names the one that has. */
static int devices_misplaced(void)
{
    const char *absent = NULL, *kind = NULL;
    const BackendIface *b = backend_with_devices(&absent, &kind);
    if (b)
        return usage_error("--devices N places filters on %s devices: it needs --backend=%s", b->device_kind,
                           b->name);
    if (absent)
        return usage_error("--devices N places filters on %s devices: it needs --backend=%s, which this "
                           "build lacks", kind, absent);
    return usage_error("%s", "--devices N places filters on devices: no backend of this build has any");
}

/* A whole number from lo to hi, written as digits only (strtol would also
 * take " 2" and "+2"); false for anything else. */
bool parse_whole(const char *arg, long lo, long hi, long *out)
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

/* --seed N: the random ops' seed, set where draws read it. */
static int parse_seed(const char *arg)
{
    char *end;
    errno = 0;
    unsigned long long n = strtoull(arg, &end, 0);
    if (errno || end == arg || *end || arg[0] == '-')
        return usage_error("--seed %s: N must be an integer from 0 to 18446744073709551615", arg);
    eval_set_random_seed((uint64_t)n);
    return EXIT_OK;
}

static bool is_binding(const char *arg)
{
    const char *eq = strchr(arg, '=');
    return eq && eq != arg;
}

/* The version and what this build can use: its libraries, and its
 * backends in the table's order of preference. */
static void print_version(void)
{
    printf("tssa-stream %s (built with:%s%s; backends:", TSSA_VERSION, world_built_with_mpi() ? " mpi" : "",
           tssa_build_libraries());
    for (int i = 0; tssa_backends[i]; i++)
        printf(" %s", tssa_backends[i]->name);
    puts(")");
}

/* --help: the text, with each backend of the table under --backend=NAME
 * (in order of preference; the first available is the default). */
static void print_help(void)
{
    fputs(usage_head, stdout);
    const char *indent = "                      ";
    printf("  --backend=NAME      the backend that runs the program, one of this\n"
           "%sbuild's (without --backend: the first available):\n", indent);
    for (int i = 0; tssa_backends[i]; i++) {
        const char *line = tssa_backends[i]->description;
        printf("%s%s: ", indent, tssa_backends[i]->name);
        for (;;) {
            size_t len = strcspn(line, "\n");
            printf("%.*s\n", (int)len, line);
            if (!line[len])
                break;
            line += len + 1;
            fputs(indent, stdout);
        }
    }
    fputs(usage_tail, stdout);
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

/* The long options, for parse_args and options_simulate_hosts_requested. */
enum { OPT_WEIGHTS = 256, OPT_EMIT, OPT_BACKEND, OPT_VERSION, OPT_JSON, OPT_FISSION, OPT_LOOP_CHUNK,
       OPT_FUSE, OPT_NO_FUSE, OPT_KEEP_LOOPS, OPT_REPEAT, OPT_STATS, OPT_RANKS, OPT_PLACE,
       OPT_RATES, OPT_TRACE, OPT_INPUTS, OPT_DEVICES, OPT_PRINT_AFTER, OPT_SEED,
       OPT_SIMULATE_HOSTS, OPT_NO_GRAPHS };
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
    {"no-graphs", no_argument, NULL, OPT_NO_GRAPHS},
    {"seed", required_argument, NULL, OPT_SEED},
    {"stats", no_argument, NULL, OPT_STATS},
    {"ranks", required_argument, NULL, OPT_RANKS},
    {"place", required_argument, NULL, OPT_PLACE},
    {"rates", required_argument, NULL, OPT_RATES},
    {"trace", required_argument, NULL, OPT_TRACE},
    {"inputs", required_argument, NULL, OPT_INPUTS},
    {"simulate-hosts", no_argument, NULL, OPT_SIMULATE_HOSTS},
    {"help", no_argument, NULL, 'h'},
    {"version", no_argument, NULL, OPT_VERSION},
    {0, 0, 0, 0},
};
/* A silent pass of getopt_long over a copy of argv (GNU getopt reorders
 * the array it reads), then optind = 0 so that parse_args starts afresh. */
bool options_simulate_hosts_requested(int argc, char **argv)
{
    char **copy = calloc((size_t)argc + 1, sizeof *copy);
    if (!copy)
        return false;
    memcpy(copy, argv, (size_t)argc * sizeof *copy);
    bool wanted = false;
    opterr = 0;
    int c;
    while ((c = getopt_long(argc, copy, ":o:h", longopts, NULL)) != -1)
        wanted |= c == OPT_SIMULATE_HOSTS;
    optind = 0;
    free(copy);
    return wanted;
}

/* GNU-style: options may stand anywhere; the first non-option argument is
 * MODEL, the rest are NAME=VALUE bindings. Returns -1 to go on, else the
 * exit status. */
int parse_args(int argc, char **argv, Options *o)
{
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
        case OPT_NO_GRAPHS: o->no_graphs = true; break;
        case OPT_KEEP_LOOPS: o->keep_loops = true; break;
        case OPT_PRINT_AFTER:
            if ((status = parse_print_after(optarg, o)) != EXIT_OK)
                return status;
            break;
        case OPT_SEED:
            if ((status = parse_seed(optarg)) != EXIT_OK)
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
        case OPT_SIMULATE_HOSTS: o->simulate_hosts = true; break;
        case 'h': print_help(); return EXIT_OK;
        case OPT_VERSION: print_version(); return EXIT_OK;
        case ':': return usage_error("option '%s' needs a value", argv[optind - 1]);
        default: return usage_error("unknown option '%s'", argv[optind - 1]);
        }
    }
    if (o->backend_absent && !o->backend)
        return usage_error("--backend=%s: %s", o->backend_absent, o->backend_absent_why);
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
    if (!o->backend)
        o->backend = backend_default();
    bool runs_plan = o->backend->runs_plan;   /* ref runs the graph as written */
    if (!o->model)
        return usage_error("%s", "no MODEL given");
    size_t len = strlen(o->model);
    o->model_is_stream = len >= 4 && strcmp(o->model + len - 4, ".str") == 0;
    if (o->json && o->emit != EMIT_SCHEDULE)
        return usage_error("%s", "--json only applies to --emit=schedule");
    bool stream_graph_used = (o->emit >= EMIT_STREAM && o->emit != EMIT_FUSED) ||
                             (o->emit == EMIT_NONE && runs_plan);
    if (o->fission > 1 && !stream_graph_used)
        return usage_error("%s", "--fission applies to the stream graph: --emit=stream, schedule or dot, "
                                 "or a run on the cpu or cuda backend");
    bool placement_shown = o->emit == EMIT_SCHEDULE || o->emit == EMIT_STREAM || o->emit == EMIT_DOT;
    bool repeat_misplaced = o->repeat && o->emit != EMIT_NONE && !placement_shown;
    if (repeat_misplaced || (o->stats && o->emit != EMIT_NONE))
        return usage_error("%s", "--repeat and --stats time and count a run on the cpu or cuda backend; "
                                 "they take no --emit (but --repeat N with --emit=schedule shows the "
                                 "placement for N + 1 input sets)");
    if ((o->repeat || o->stats) && !runs_plan)
        return usage_error("--repeat and --stats time and count a run on the cpu or cuda backend, not "
                           "--backend=%s", o->backend->name);
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
    bool placed = placement_shown || (o->emit == EMIT_NONE && runs_plan);
    if ((o->ranks || o->place || o->rates) && !placed)
        return usage_error("%s", "--ranks, --place and --rates plan the placement: --emit=schedule, stream "
                                 "or dot, or a run on the cpu or cuda backend");
    if (o->ranks && world_launched_by_mpirun() && o->ranks != world_size())
        return usage_error("%s", "--ranks plans for N ranks without mpirun; under mpirun the ranks are "
                                 "mpirun's -np");
    if (o->ranks > 1 && o->emit == EMIT_NONE && !world_launched_by_mpirun())
        return usage_error("%s", "--ranks N only plans the placement (with --emit=schedule); to run on N "
                                 "ranks: mpirun -np N tssa-stream ...");
    if (o->trace && (o->emit != EMIT_NONE || !runs_plan))
        return usage_error("%s", "--trace records a run on the cpu or cuda backend; it takes no --emit and no "
                                 "--backend=ref");
    if (o->inputs_dir && (o->emit != EMIT_NONE || !runs_plan || o->repeat))
        return usage_error("%s", "--inputs DIR runs the program on the cpu or cuda backend over every set; it "
                                 "takes no --emit, --backend=ref or --repeat");
    if (o->devices && !o->backend->device_kind)
        return devices_misplaced();
    if (o->devices > o->backend->max_devices)
        return usage_error("--devices %d: the %s backend places filters on at most %d devices", o->devices,
                           o->backend->name, o->backend->max_devices);
    /* --devices N also decides the slices of data-parallel loops
     * (strip_mine), which --emit=fused and --print-after show */
    if (o->devices > 1 && !stream_graph_used && o->emit != EMIT_FUSED && !o->print_after)
        return usage_error("%s", "--devices applies to the stream graph and the fused graph: --emit=stream, "
                                 "schedule, dot or fused, --print-after, or a run");
    const char *why = NULL;
    if (o->emit == EMIT_NONE && !o->backend->available(&why))
        return usage_error("--backend=%s: %s", o->backend->name, why ? why : "not available here");
    /* An output directory or trace file that cannot be used is refused
     * before any work (by rank 0, which writes them). */
    if (o->out_dir && world_rank() == 0 && !outputs_check_dir(o->out_dir, stderr))
        return EXIT_USAGE;
    if (o->trace && world_rank() == 0 && !trace_log_check_path(o->trace, stderr))
        return EXIT_USAGE;
    return -1;
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
bool options_agree(const Options *o)
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
        {"--backend", backend_index(o->backend), false},
        {"--json", o->json, false},
        {"--fission", o->fission, false},
        {"--loop-chunk", o->loop_chunk, false},
        {"--devices", o->devices, false},
        {"--no-fuse", o->no_fuse, false},
        {"--keep-loops", o->keep_loops, false},
        {"--repeat", o->repeat, false},
        {"--no-graphs", o->no_graphs, false},
        {"--ranks", o->ranks, false},
        {"--simulate-hosts", o->simulate_hosts, false},
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
