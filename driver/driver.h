/* driver.h — what the driver's files share (driver/ only): the exit
 * statuses, the options the command line gives (parsed by options.c), the
 * Run that the pipeline's stages fill (tssa-stream.c), the coordination of
 * the ranks under mpirun (ranks.c) and the --stats lines (stats.c). */
#ifndef TSSA_DRIVER_H
#define TSSA_DRIVER_H

#include <stdbool.h>
#include <stdint.h>

#include "tssa/backend.h"
#include "tssa/frontend.h"
#include "tssa/functionalize.h"
#include "tssa/io.h"
#include "tssa/ir.h"
#include "tssa/kernels.h"
#include "tssa/lower.h"
#include "tssa/machine.h"
#include "tssa/registry.h"
#include "tssa/schedule.h"
#include "tssa/shapes.h"
#include "tssa/stream.h"
#include "tssa/util.h"
#include "tssa/value.h"
#include "tssa/world.h"

enum { EXIT_OK = 0, EXIT_RUNTIME = 1, EXIT_USAGE = 2 };

/* The whole command: what `tssa-stream ARGS...` does, returning its exit
 * status (driver/main.c is only this call). A process runs it once: it
 * starts and ends MPI under mpirun, and the conformance runner
 * (tests/conformance) calls it in a forked child per case. */
int tssa_stream_main(int argc, char **argv);

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
    EMIT_PLACEMENT, /* each node's device, decided when the plan is built */
} Emit;

typedef struct Options {
    const char *model;
    bool model_is_stream;   /* a .str stream graph rather than graph text */
    const char *weights;
    const char *out_dir;
    Emit emit;
    /* --backend=NAME from the table (registry.h); without it the first
     * available one in the table's order of preference */
    const BackendIface *backend;
    /* --backend=NAME of a backend this build lacks, and why: refused once
     * every option is read (each option's own error comes first) */
    const char *backend_absent, *backend_absent_why;
    bool json;
    int fission;            /* --fission=K: copies per eligible filter; 1 = off */
    long loop_chunk;        /* --loop-chunk=C: iterations per phase of a long loop; 0 = default */
    int devices;            /* --devices N: CUDA devices to place on; 0: not given (1) */
    bool no_fuse;           /* --no-fuse: every node its own filter, interpreted */
    bool keep_loops;        /* --keep-loops: no horizontal fusion of data-parallel loops */
    const char *print_after;/* --print-after=PASS: the graph after that kernels pass */
    int repeat;             /* --repeat N: timed runs after the first; 0 = off */
    bool no_graphs;         /* --no-graphs: --repeat's timed runs never replayed from a CUDA graph */
    bool stats;             /* --stats: counts and times to stderr */
    int ranks;              /* --ranks N: place for N ranks (inspection); 0 = the world's */
    bool simulate_hosts;    /* --simulate-hosts: every rank its own host (world_simulate_hosts) */
    const char *place;      /* --place FILE: pinned placement */
    const char *rates;      /* --rates FILE: device and link rates */
    const char *trace;      /* --trace FILE.json: Chrome trace of the run */
    const char *inputs_dir; /* --inputs DIR: one input set per subfolder */
    int nbind;
    char **bind;
} Options;

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
    NodePlacement *placement;   /* each node's device (the backend's supports_node) */
    void *backend_ctx;          /* what the backend's prepare opened (a device) */
    MachineTopology machine;    /* this rank's host (hwloc) */
    int busy_ranks;             /* ranks the placement gives work filters */
    RankBinding binding;        /* its cores and threads */
    DeviceRates rates;          /* the cost model's device and link rates */
    DeviceRates alone_rates;    /* rank 0 with all its host's cores (placement's one-rank case) */
    double one_device_s;        /* --devices N: the steady state predicted on one device (fission) */
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

/* options.c: the command line */
int parse_args(int argc, char **argv, Options *o);
/* Whether argv asks for --simulate-hosts, read as parse_args reads it but
 * silently: MPI's transport is chosen before MPI starts, and the options
 * are parsed (with messages, by rank 0) only after. */
bool options_simulate_hosts_requested(int argc, char **argv);
bool parse_whole(const char *arg, long lo, long hi, long *out);
bool options_agree(const Options *o);

/* ranks.c: under mpirun, standard error of the ranks other than 0 held
 * back, and every rank's agreement after a step that may fail on some ranks
 * only */
void hold_stderr(void);
void quiet_other_ranks(void);
void speak_again(bool show_captured);
bool ranks_agree(Run *r, bool ok);
bool agree(Run *r, bool go);
uint64_t plan_fingerprint(const Schedule *s);
bool mpi_missing(void);

/* stats.c: --stats */
bool print_stats(Run *r);

#endif
