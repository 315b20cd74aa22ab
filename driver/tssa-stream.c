/* tssa-stream — the driver.
 *
 * Reads a model (TorchScript graph text), runs the compiler's stages in order
 * and either prints the stage asked for with --emit or runs the program on a
 * backend. The whole pipeline is spelled out in run_pipeline(), so a reader
 * sees the compiler at once; every stage is one call into its layer's folder
 * (docs/ARCHITECTURE.md), and every --emit value is a stop in emit_stop().
 *
 * The rest of the driver is beside it (driver.h is what they share): the
 * command line in options.c, the coordination of ranks under mpirun in
 * ranks.c, the --stats lines in stats.c.
 *
 * Exit status (README): 0 success; 2 bad usage or bad input (located
 * messages for text inputs); 1 a runtime failure naming the node and line.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/stat.h>
#include <unistd.h>

#include "driver/driver.h"

/* Stops the pipeline with an exit status; returns false (do not go on). */
static bool stop(Run *r, int status)
{
    r->status = status;
    return false;
}


static StreamNode *stream_root(const Run *r)
{
    return r->stream_text ? r->stream_text->root : lower_stream_graph(r->program)->root;
}

/* Under mpirun, and for simulated hosts, the link the cost model priced the
 * messages between ranks at (after --emit=schedule's table). */
static void print_link(const Run *r)
{
    if (world_size() == 1 && !world_simulating_hosts())
        return;
    const DeviceRates *rates = &r->rates;
    const char *source = rates->link_pinned ? "from --rates"
                         : world_size() > 1 ? "measured by a ping-pong between ranks 0 and 1"
                                            : "the default, no mpirun";
    printf("\nlink between ranks: %.3g us latency, %.3g GB/s (%s)%s\n", rates->link_latency_s * 1e6,
           rates->link_bytes_per_s * 1e-9, source,
           world_simulating_hosts() ? "; hosts simulated: one per rank, TCP over loopback" : "");
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
        else {
            sched_print_table(stdout, r->schedule);
            print_link(r);
        }
        break;
    case EMIT_C:        kernels_print_source(stdout, r->kernels, KERNELS_TARGET_C); break;
    case EMIT_CUDA:     kernels_print_source(stdout, r->kernels, KERNELS_TARGET_CUDA); break;
    case EMIT_FUSED:    ir_print(stdout, r->graph); break;
    case EMIT_PLACEMENT: node_placement_print(stdout, r->placement); break;
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

/* Objects the program creates and only reads and writes by attribute
 * (`b = BoxCoder(...)` in forward) become plain values, for every backend
 * alike. Runs after --emit=ir, which prints the graph as read. */
static bool replace_fresh_objects(Run *r)       /* ir: objects by their attributes */
{
    ir_replace_fresh_objects(r->graph);
    return true;
}

/* Composite ops (the transformer fast path's) become the ops they are made
 * of, for every backend alike; after --emit=ir too. */
static bool expand_decompositions(Run *r)       /* frontend: composite ops by their definitions */
{
    return ir_expand_decompositions(r->graph, stderr) >= 0 ? true : stop(r, EXIT_RUNTIME);
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

/* The 128-bit digest of bound values: their shapes, dtypes, numbers and
 * every byte of their tensors (rt_wire_pack's metadata and spans). */
static CacheKey inputs_digest(RtValue *const *values, int n)
{
    CacheKey key = cache_key_start();
    RtWireOut out;
    if (!rt_wire_pack(values, n, &out))
        return key;
    cache_key_add(&key, out.meta, out.meta_words * sizeof *out.meta);
    for (int s = 0; s < out.nspans; s++)
        cache_key_add(&key, out.span_data[s], out.span_bytes[s]);
    rt_wire_out_free(&out);
    return key;
}

/* Without --inputs: every rank reads the bindings' files
 * itself, as it opens the weights, so data already in files never travels
 * through rank 0 (the way distributed data loaders read their shards; on
 * separate hosts the files must be on each, as on a shared file system).
 * The ranks then check that they read the same values: a digest of every
 * rank's inputs against rank 0's (FNV-1a over the bytes, about 20 ms for
 * mask_crop's 30 MB). */
static bool bind_inputs_on_every_rank(Run *r)
{
    const Options *o = r->o;
    bool ok = bindings_resolve(r->graph, o->nbind, o->bind, o->weights, &r->inputs, &r->ninputs, &r->weights,
                               stderr);
    if (!ranks_agree(r, ok || stop(r, EXIT_USAGE)))
        return false;
    if (world_size() == 1) {
        r->bound = true;
        return true;
    }
    CacheKey mine = inputs_digest(r->inputs, r->ninputs), root = mine;
    void *data = &root;
    size_t len = sizeof root;
    world_share_bytes(&data, &len, 0);
    bool same = len == sizeof root && memcmp(data, &mine, sizeof mine) == 0;
    if (data != &root)
        free(data);
    if (!same)
        fprintf(stderr, "tssa-stream: error: rank %d read inputs that differ from rank 0's: every rank reads "
                        "the input files itself, so every host needs the same files\n", world_rank());
    if (!ranks_agree(r, same || stop(r, EXIT_USAGE)))
        return false;
    r->bound = true;
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
        if (!o->inputs_dir)
            return bind_inputs_on_every_rank(r);
        /* Rank 0 reads the --inputs sets and hands the values to the
         * others; every rank opens the weights it compiles against. */
        int ok = world_rank() != 0 || bind_input_sets(r);
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

/* A backend that runs the program as written (ref, the oracle):
 * imperative, op by op, none of the plan's stages. */
static bool run_graph(Run *r)                   /* backends: run_graph */
{
    if (world_rank() != 0)                      /* it runs once, on rank 0 */
        return true;
    int status = r->o->backend->run_graph(r->graph, r->inputs, r->ninputs, r->weights, &r->outputs,
                                          &r->noutputs, stderr);
    return status == EXIT_OK ? true : stop(r, status);
}

/* What the bindings tell TensorSSA: module attributes for constant folding,
 * whether the bound tensors share storage, and their sizes and strides. */
static bool prepare_functionalize(Run *r)
{
    tssa_options_default(&r->tssa);
    r->tssa.weights = r->weights;
    r->tssa.inputs_disjoint = r->bound && tssa_inputs_disjoint(r->inputs, r->ninputs);
    if (r->bound) {                             /* their strides decide reshapes */
        r->tssa.inputs = r->inputs;
        r->tssa.ninputs = r->ninputs;
    }
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
 * over the rank's cores) and one GEMM per product, for every placement. It
 * stays a loop only where the user asked for its iterations as firings:
 * --keep-loops, --fission=K, and a --place file (which names the loop's
 * filters). */
static bool horizontal_wanted(const Options *o)
{
    return !(o->keep_loops || o->fission > 1 || o->place);
}

/* The GPUs that --devices N's devices are on (the backend says; N where
 * it cannot), at least 1. */
static int device_gpus(const Options *o)
{
    GpuRates gpus = {.gpus = o->devices};
    if (o->backend->gpu_rates)
        o->backend->gpu_rates(o->devices, world_local_rank(), &gpus);
    return gpus.gpus > 1 ? gpus.gpus : 1;
}

/* The devices the data-parallel filters are spread over: --devices N when
 * they are N GPUs (or fewer, but more than one); one when they all share one
 * GPU, whose time they would only share (on an H200, 12-head attention
 * split over two logical devices of one GPU ran at 0.93x one device: the
 * split adds launches and waits between streams, the GPU no work). The
 * prediction line of --emit=schedule says which. */
static int placed_devices(const Options *o)
{
    int n = o->devices ? o->devices : 1;
    return n > 1 && device_gpus(o) > 1 ? n : 1;
}

/* How many workers that share no memory the program's data-parallel loops
 * are cut into slices for (kernels/strip_mine.c), each slice one kernel and
 * one message: the GPUs of --devices N, or the ranks when they are on
 * several hosts. Ranks on one host share its cores: there the kernel's
 * threads do what slices would, without the messages (1: no slices). */
static int slice_workers(const Options *o)
{
    if (!horizontal_wanted(o))
        return 1;
    if (o->backend->device_kind && o->devices > 1)
        return device_gpus(o);  /* logical devices on one GPU share its time */
    if (world_local_size() < world_size())
        return world_size();
    if (world_simulating_hosts() && o->ranks > 1)   /* --ranks N: planning for N simulated hosts */
        return o->ranks;
    return 1;
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
    po.slices = slice_workers(r->o);
    po.slices_exact = !(r->o->backend->device_kind && r->o->devices > 1);
    po.sink_column_products = !r->o->backend->device_kind || po.slices > 1;
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

/* The kernels are compiled for a run and generated for the stops after
 * this one (--emit=c|cuda print them; the placement of the nodes, which
 * --emit=placement, schedule, stream and dot show, asks which groups have
 * one).
 * Every rank calls it, `reached` false where the stages before it stopped
 * (a failure, or an --emit stop) so that the ranks agree on going on. */
static bool compile_kernels(Run *r, bool reached) /* kernels: generate, compile, load */
{
    bool wanted = reached && !r->o->no_fuse;
    int status = EXIT_OK;
    /* a backend whose kernels are not C compiles their text itself
     * (prepare_backend); the placement only asks which groups have one */
    bool compile_c = r->o->emit == EMIT_NONE && r->o->backend->kernels_target == KERNELS_TARGET_C;
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

/* Each node of the program on a device or the host, decided now from
 * what is known statically (the backend's supports_node): the runs only
 * execute it. A filter with no node on the device is the host's. */
static bool place_nodes(Run *r)                 /* backends: placement */
{
    r->placement = node_placement_build(r->o->backend, r->program, r->kernels);
    node_placement_mark_filters(r->placement, stream_root(r));
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
/* --fission=K splits data-parallel filters for threads and ranks; on a
 * backend with devices (cuda) every work filter then gets a device, and
 * with --devices N the data-parallel ones are split over the N devices. The
 * graph changes; the schedule stage plans it again. */
static bool fission(Run *r)                     /* scheduler: fission, devices */
{
    bool devices = r->o->backend->device_kind && !r->stream_text;
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
    if (devices && r->o->devices > 1 && r->o->backend->gpu_rates) {
        /* the prediction's one device: this schedule, before the split */
        GpuRates gr = {0};
        double unused;
        r->o->backend->gpu_rates(1, world_local_rank(), &gr);
        sched_device_times(r->schedule, 1, &gr, &r->one_device_s, &unused);
    }
    if (devices)
        r->schedule = sched_place_devices(r->schedule, placed_devices(r->o), stderr);
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

/* This rank's share of the machine's cores: a block among the processes
 * that really run here (world_machine_*), also when each is its own
 * simulated host (then local rank 0 of 1). */
static RankBinding machine_share(const MachineTopology *machine, int machine_rank, int machine_size)
{
    RankBinding b = machine_binding_plan(machine, machine_rank, machine_size);
    if (world_simulating_hosts()) {
        b.local_rank = 0;
        b.local_size = 1;
        b.own_host = true;
    }
    return b;
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
        r->binding = machine_share(&r->machine, world_machine_rank(), world_machine_size());
    }
    cap_threads(&r->binding);
    if (world_launched_by_mpirun())
        machine_bind(&r->binding, stderr);      /* a failed bind only warns */
    return ranks_agree(r, true);
}

/* --emit=topology: the machine and the binding of every rank on it (with
 * --simulate-hosts each of them its own host, on its share of the cores). */
static bool emit_topology(Run *r)
{
    if (r->o->emit != EMIT_TOPOLOGY)
        return true;
    int n = world_machine_size(), first = world_rank() - world_machine_rank();
    RankBinding *bindings = xcalloc((size_t)n, sizeof *bindings);
    int *ranks = xcalloc((size_t)n, sizeof *ranks);
    for (int i = 0; i < n; i++) {
        bindings[i] = machine_share(&r->machine, i, n);
        ranks[i] = first + i;
    }
    if (world_rank() == 0) {
        machine_topology_print(stdout, &r->machine, bindings, ranks, n);
        if (r->o->backend && r->o->backend->print_topology)
            r->o->backend->print_topology(stdout, world_local_rank());
    }
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

/* device_rates_get for `threads` threads, calibrated (when not cached) on
 * as many cores: a rank bound to its share of the host (one core of two)
 * widens its binding to the whole machine while it measures, then takes
 * its own again. Calibrating two threads on the one core a rank holds gave
 * one core's rate, cached as the two-thread figure every later run read
 * (a 2-thread GEMM rate of 90 GFLOP/s where two cores give 170). */
static bool rates_on_cores(Run *r, DeviceRates *out, const char *path, const char *cache, int threads,
                           const DeviceRatesProbe *probe)
{
    bool widen = !path && r->binding.ncores > 0 && threads > r->binding.ncores && r->machine.cores >= threads;
    if (widen) {
        RankBinding all = machine_binding_plan(&r->machine, 0, 1);
        machine_bind(&all, stderr);
    }
    bool ok = device_rates_get(out, path, cache, threads, probe, stderr);
    if (widen)
        machine_bind(&r->binding, stderr);
    return ok;
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
     * mpirun plans for N ranks sharing this host. With --simulate-hosts
     * no rank reaches another's cores: rank 0 alone has only its share.
     * host_ranks counts the processes taking turns on this machine's
     * cores when there are more of them than cores. */
    int rank_threads = r->binding.threads, alone_threads = r->binding.threads;
    int host_cores = r->binding.ncores, host_ranks = 1;
    if (world_launched_by_mpirun()) {
        RankBinding alone = machine_binding_plan(&r->machine, 0, 1);
        host_cores = alone.ncores;
        cap_threads(&alone);
        if (!world_simulating_hosts())
            alone_threads = alone.threads > rank_threads ? alone.threads : rank_threads;
        host_ranks = world_machine_size();
    } else if (r->o->ranks > 1) {
        rank_threads = alone_threads / r->o->ranks > 1 ? alone_threads / r->o->ranks : 1;
        if (world_simulating_hosts())
            alone_threads = rank_threads;
        host_ranks = r->o->ranks;
    }
    int ok = 1;
    if (world_rank() == 0) {
        char *cache = tssa_cache_dir();
        DeviceRatesProbe probe = {kernels_measure_rates, NULL};
        ok = rates_on_cores(r, &r->rates, r->o->rates, cache, rank_threads, &probe);
        r->alone_rates = r->rates;
        if (ok && alone_threads != rank_threads && !r->o->rates)
            ok = rates_on_cores(r, &r->alone_rates, NULL, cache, alone_threads, &probe);
        /* Ranks sharing this machine (simulated hosts too) share its
         * memory: a rank's bandwidth is at most its part of what all the
         * machine's cores draw together, not what one core draws alone
         * (on the 2-core test host 34 GB/s for two threads against 24 for
         * one: 17 each, which is what mask_crop's two simulated hosts get).
         * Ranks on hosts of their own are one per machine here. */
        if (ok && !r->o->rates && host_ranks > 1 && host_ranks <= host_cores && host_cores != rank_threads) {
            DeviceRates whole;
            ok = rates_on_cores(r, &whole, NULL, cache, host_cores, &probe);
            double share = whole.bytes_per_s / host_ranks;
            if (ok && share < r->rates.bytes_per_s)
                r->rates.bytes_per_s = share;
        }
        free(cache);
        /* More ranks than cores (oversubscribed): they take turns on the
         * cores, each at cores / ranks of one core's rate. */
        if (ok && !r->o->rates && host_cores > 0 && host_ranks > host_cores) {
            r->rates.flops_per_s *= (double)host_cores / host_ranks;
            r->rates.bytes_per_s *= (double)host_cores / host_ranks;
            r->rates.math_per_s *= (double)host_cores / host_ranks;
        }
    }
    if (!world_share_int(ok, 0))
        return stop(r, EXIT_USAGE);
    r->alone_rates.flops_per_s = world_share_double(r->alone_rates.flops_per_s, 0);
    r->alone_rates.bytes_per_s = world_share_double(r->alone_rates.bytes_per_s, 0);
    r->rates.flops_per_s = world_share_double(r->rates.flops_per_s, 0);
    r->rates.bytes_per_s = world_share_double(r->rates.bytes_per_s, 0);
    r->rates.math_per_s = world_share_double(r->rates.math_per_s, 0);
    r->alone_rates.math_per_s = world_share_double(r->alone_rates.math_per_s, 0);
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
 * the placement; ranks of one host are taken to be consecutive. Simulated
 * hosts lend nothing: another host's cores are out of reach. */
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
    if (world_simulating_hosts()) {     /* another host's cores are out of reach */
        free(busy);
        return;
    }
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

/* Every filter gets a rank: pinned by --place, else the partitioner's. */
static bool place(Run *r)                       /* scheduler: partition */
{
    PartitionOptions po = {
        .nranks = placement_ranks(r->o), .sets = r->nsets > 0 ? r->nsets : 1 + r->o->repeat,
        .flops_per_s = r->rates.flops_per_s, .bytes_per_s = r->rates.bytes_per_s,
        .math_per_s = r->rates.math_per_s, .alone_math_per_s = r->alone_rates.math_per_s,
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
    if (r->o->devices > 1 && r->o->backend->gpu_rates) {
        GpuRates gr = {0};
        r->o->backend->gpu_rates(r->o->devices, world_local_rank(), &gr);
        sched_note_devices(r->schedule, r->o->devices, &gr, r->one_device_s);
    }
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
    /* nobody reads these runs' outputs: each rank keeps the rows it
     * computed (no gather), and the stream ends when every rank is done */
    ExecPlan timed = *plan;
    timed.outputs_dropped = true;
    double t0 = seconds_now();
    const BackendIface *b = r->o->backend;
    status = copy ? b->run_sets(r->backend_ctx, &timed, n, inputs, r->ninputs, drop_outputs, NULL, stderr)
                  : EXIT_RUNTIME;
    if (status == EXIT_OK)
        world_barrier();
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
    const BackendIface *b = r->o->backend;
    for (int i = 0; i < n; i++) {
        RtValue **outputs = NULL, **inputs = clone_inputs(pristine, r->ninputs);
        int noutputs = 0;
        if (!inputs) {
            fputs("tssa-stream: error: out of memory copying the inputs for --repeat\n", stderr);
            free(times);
            return stop(r, EXIT_RUNTIME);
        }
        if (b->stage_inputs && !b->stage_inputs(r->backend_ctx, inputs, r->ninputs, stderr)) {
            free_outputs(inputs, r->ninputs);
            free(times);
            return stop(r, EXIT_RUNTIME);
        }
        double t0 = seconds_now();
        int status = b->run(r->backend_ctx, &timed, inputs, r->ninputs, &outputs, &noutputs, stderr);
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
    int status = r->o->backend->run_sets(r->backend_ctx, plan, r->nsets, inputs, r->ninputs, keep_set_outputs, r,
                                         stderr);
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

/* What the backend's runs need, opened on every rank (cuda: each rank its
 * own device, the ranks taking the GPUs in turn, with the program's kernels
 * compiled and loaded on it). */
static bool prepare_backend(Run *r)             /* backends: prepare */
{
    /* devices that share one GPU run the plan of one (placed_devices):
     * one device, one stream, nothing to wait for between them */
    int devices = r->o->devices > 1 && placed_devices(r->o) == 1 ? 1 : r->o->devices;
    BackendSetup setup = {.kernels = r->kernels, .rank = world_rank(), .local_rank = world_local_rank(),
                          .devices = devices, .no_graphs = r->o->no_graphs};
    r->backend_ctx = r->o->backend->prepare(&setup, stderr);
    return ranks_agree(r, r->backend_ctx || stop(r, EXIT_RUNTIME));     /* each rank its own */
}

/* Every rank fires the actors placed on it; a runtime failure on any rank
 * ends the whole job (its message names the rank, the filter and the
 * source line), so no rank waits forever for a message. The others then
 * end while they wait for messages or in the agreement after the runs:
 * nothing is written before every rank's runs went well. */
static bool execute(Run *r)                     /* backends: run (+ mpi channels) */
{
    start_trace(r);
    ExecPlan plan = {.program = r->program, .schedule = r->schedule, .kernels = r->kernels,
                     .rank = world_rank(), .transport = world_channel_transport(), .trace = r->trace,
                     .trace_epoch = r->trace_epoch, .placement = r->placement,
                     .backend_name = r->o->backend->name, .inputs_everywhere = r->nsets == 0};
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
    const BackendIface *b = r->o->backend;
    RtValue **pristine = r->o->repeat ? clone_inputs(r->inputs, r->ninputs) : NULL;
    int status = r->o->repeat && !pristine ? EXIT_RUNTIME
                 : b->run(r->backend_ctx, &plan, r->inputs, r->ninputs, &r->outputs, &r->noutputs, stderr);
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
    if (r->backend_ctx)
        r->o->backend->close(r->backend_ctx);   /* before the kernels it launches */
    node_placement_free(r->placement);
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
    } else if (read_graph(&r) && emit_stop(&r, EMIT_IR) && replace_fresh_objects(&r) &&
               expand_decompositions(&r) && bind_inputs(&r) && verify_ops(&r)) {
        if (!o->backend->runs_plan && o->emit == EMIT_NONE) {
            (void)(run_graph(&r) && write_outputs(&r));
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
                 && schedule(&r)
                 && place_nodes(&r)             && emit_stop(&r, EMIT_PLACEMENT);
        }
    }
    if (agree(&r, go))
        (void)(bind_cores(&r)
               && measure_rates(&r)
               && place(&r)                     && emit_stop(&r, EMIT_STREAM)
                                                && emit_stop(&r, EMIT_DOT)
                                                && emit_stop(&r, EMIT_SCHEDULE)
               && prepare_backend(&r)
               && execute(&r)
               && write_trace(&r)
               && print_stats(&r)
               && write_outputs(&r));
    run_free(&r);
    return r.status;
}

int tssa_stream_main(int argc, char **argv)
{
    if (mpi_missing())
        return EXIT_USAGE;
    /* --simulate-hosts decides MPI's transport, so it is known before MPI
     * starts; parse_args reads it again, with the other options, after. */
    world_simulate_hosts(options_simulate_hosts_requested(argc, argv));
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
