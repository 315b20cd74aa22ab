/* machine.h — the machine model: what the host has (cores, caches, NUMA
 * nodes, GPUs), which cores each rank on it runs on, and how fast this
 * process computes and moves memory (scheduler/topology.c,
 * scheduler/device_rates.c).
 *
 * Topology comes from hwloc when the build has it (TSSA_USE_HWLOC); without
 * it only the core count is known, from sysconf. The ranks on one host share
 * its physical cores in contiguous blocks, so that each rank's OpenMP and
 * BLAS threads stay on cores of their own instead of competing for all of
 * them. Device rates are measured once per host and thread count (a STREAM
 * triad and a single-precision GEMM, about 0.2 s) and cached, so
 * that a cost model can weigh compute against memory traffic and dispatch.
 */
#ifndef TSSA_MACHINE_H
#define TSSA_MACHINE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

/* ---------------------------------------------------------------- topology */

typedef struct MachineTopology {
    char host[64];
    int cores;            /* physical cores (hwloc HWLOC_OBJ_CORE), >= 1 */
    int pus;              /* hardware threads (HWLOC_OBJ_PU) */
    int numa_nodes, packages;
    int64_t l1d_bytes, l2_bytes, l3_bytes;  /* size of one such cache, 0 if absent */
    int ngpus;            /* GPUs: PCI devices with a GPU or CUDA OS device (hwloc) */
    char gpu_names[8][64];  /* the first 8 of them */
    bool from_hwloc;      /* false when built without hwloc: cores and pus from sysconf, the rest 0 */
} MachineTopology;

/* Reads the host's topology; false after writing why to err. */
bool machine_topology_read(MachineTopology *t, FILE *err);

typedef struct RankBinding {
    int local_rank, local_size;   /* this rank among the ranks on its host */
    int first_core, ncores;       /* a contiguous block of physical cores, by hwloc logical index */
    int threads;                  /* OpenMP/BLAS threads to run there: ncores */
    bool oversubscribed;          /* more ranks than cores on the host: each rank one core, core = local_rank % cores */
    bool own_host;                /* --simulate-hosts: a host of its own, on its block of this machine's cores */
} RankBinding;

/* Rank local_rank of local_size (0 <= local_rank < local_size) gets cores
 * [floor(r*C/L), floor((r+1)*C/L)) of the C cores; with L > C, one core each
 * (oversubscribed). Pure function, deterministic. */
RankBinding machine_binding_plan(const MachineTopology *t, int local_rank, int local_size);

/* Binds the calling process to the block's cores (with hwloc) and sets the
 * OpenMP thread count (when built with it) to b->threads (OpenBLAS stays
 * single-threaded: tensor/linalg.c shares a product out itself). A
 * failed bind is not fatal: it returns false after a one-line warning to err,
 * with the thread counts set all the same. */
bool machine_bind(const RankBinding *b, FILE *err);

/* The topology and one line per rank, for --emit=topology:
 *   "rank R (local L of N): cores A-B, T threads[, oversubscribed]"
 * ("rank R (its own simulated host, local 0 of 1): ..." for own_host),
 * where R is world_ranks[i] and the rest comes from bindings[i], i < n. */
void machine_topology_print(FILE *out, const MachineTopology *t, const RankBinding *bindings, const int *world_ranks,
                            int n);

/* ---------------------------------------------------------------- device rates */

typedef struct DeviceRates {
    double flops_per_s;     /* float32 GEMM rate of this process's threads */
    double bytes_per_s;     /* memory bandwidth, STREAM triad */
    /* Elements per second through the math library's exp/log/tanh family
     * (the kernels' vectorized libm calls): what makes tanh(x @ W + b) cost
     * more than x + b. */
    double math_per_s;
    double firing_s;        /* fixed cost of one filter firing (dispatch) */
    /* The link between ranks: measured by a ping-pong under mpirun unless
     * the override file pins it (link_pinned); defaults otherwise. */
    double link_latency_s, link_bytes_per_s;
    bool link_pinned;
    char source[32];        /* "calibrated", "cache", "file", "default" */
} DeviceRates;

/* 20e9 flop/s, 10e9 B/s, 2e9 math calls/s, 2e-6 s per firing, links of
 * 5e-6 s and 5e9 B/s (shared memory); source "default". */
void device_rates_default(DeviceRates *r);

/* Measures, with code compiled the way the generated kernels are (the
 * kernels layer's kernels_measure_rates: -O3 -march=native, libmvec), the
 * memory bandwidth (a STREAM triad) and math_per_s for `threads` threads;
 * false (nothing set) when it cannot compile. This project's own build
 * flags give a triad a third less than the kernels reach (16 against
 * 23-26 GB/s on one core of the 2-core test host), so the kernels' own
 * figure is the one that predicts them. */
typedef struct DeviceRatesProbe {
    bool (*measure)(void *ctx, int threads, double *bytes_per_s, double *math_per_s);
    void *ctx;
} DeviceRatesProbe;

/* The rates of this process running `threads` (>= 1) threads, from the
 * first of:
 *   override_path  a JSON object {"flops_per_s", "bytes_per_s", "math_per_s",
 *                  "firing_s", "link_latency_s", "link_bytes_per_s"}
 *                  (missing keys keep the defaults; an unreadable or bad
 *                  file returns false after "FILE: error: WHAT" to err);
 *   the cache      <cache_dir>/device-rates-<host>-<threads>t.json, when
 *                  cache_dir is not NULL and the file parses; the folder
 *                  and the file are used only when nobody but this user
 *                  could have written them (util/cache_trust.c: otherwise
 *                  a warning to err, once per process, and calibration);
 *   calibration    under 0.3 s, then written to the cache (a failed write is
 *                  a warning to err); the bandwidth and math_per_s from
 *                  probe when it is given and works, else from this
 *                  file's own loops (math_per_s then keeps its default).
 * Returns true but for a bad override file. */
bool device_rates_get(DeviceRates *r, const char *override_path, const char *cache_dir, int threads,
                      const DeviceRatesProbe *probe, FILE *err);

#endif
