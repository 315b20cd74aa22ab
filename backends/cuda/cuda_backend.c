/* cuda_backend.c — --backend=cuda: the plan's fused groups and GEMMs run on a
 * device (cuda_device.h: a GPU, or the CPU shim), the rest on the host,
 * with tensor data kept where it was made until someone else needs it.
 *
 * The cpu executor still fires the schedule (backend_cpu_run with an
 * ExecDevice); this file is the device's node runner and its memory:
 *
 *   residency  every Storage a device node touched has a Mirror: its device
 *              buffer and which copy is current (host, device, or both). A
 *              kernel's or GEMM's input is uploaded only when the device copy
 *              is stale; its outputs are made on the device alone (their host
 *              memory is reserved but not written); a host node, the
 *              executor (a loop's stack, a message to a rank) and the
 *              outputs download a storage only when the host copy is stale;
 *              a host node that writes in place makes the device copy stale.
 *              So copies happen at graph inputs and outputs and where data
 *              crosses between device and host nodes, never per launch.
 *   views      a view shares its storage, so it shares the Mirror: a kernel
 *              reads a contiguous view at its offset in the device buffer; a
 *              strided one is made contiguous on the host first (counted).
 *   memory     device buffers come from a pool of freed buffers of the same
 *              size, so a run's allocations after the first are reuses (no
 *              cuMemAlloc per launch); a Mirror whose storage only it still
 *              holds is dead and its buffer goes back to the pool (swept as
 *              mirrors accumulate and after every run). The pool is emptied
 *              and the allocation retried when the device runs out.
 *   kernels    the program's CUDA text (kernels_source) plus this file's two
 *              runtime kernels (a bias broadcast for linear) is loaded once;
 *              output o of a group is one launch of NAME_out<o> on the grid
 *              kir_cuda_grid chose (KernelsArg.blocks x block_threads: a
 *              thread per element or row, or a block per row or output whose
 *              reductions are long), unless the printer's kernel of another
 *              output writes it too (blocks 0: same-shaped elementwise
 *              outputs share one launch).
 *   GEMM       mm, bmm, linear and matmul of float32/float64 matrices (last
 *              two dims row-major or transposed, batch dims of one stride;
 *              matmul with a vector as a one-row or one-column matrix) go to
 *              the device's GEMM (cuBLAS); other shapes run on the host.
 *   devices    with several (--devices N: the placement's StreamFilter.device),
 *              the executor selects each firing's device: a Lane, a GPU and
 *              a stream of its own there (logical devices on one GPU share
 *              its memory, not its stream). A mirror keeps a buffer per GPU
 *              and, per buffer, the lane that last wrote it and the lanes
 *              that read it since: a lane reading what another wrote first
 *              waits on the device for an event of the writer's stream
 *              (`order`), a lane writing waits for the readers, and a pool
 *              buffer is reused only after its users' streams. The host
 *              waits only for data it reads (a download waits for the
 *              writer's stream) and at the end of a run.
 *   copies     a value another GPU has comes peer to peer where the driver
 *              allows (copy_peer, queued on the reader's stream after the
 *              writer's event), else staged through pinned host memory
 *              (out on the writer's stream, in on the reader's; the buffer
 *              reused, by size, after both); on the same GPU none is needed. Each
 *              is counted (--stats copies_peer / staged / none_needed).
 *   graphs     --repeat's timed runs (outputs dropped, one device): the
 *              first is captured (capture_begin on lane 0's stream after
 *              its inputs were prefetched; the executor runs as always, its
 *              launches, products and memsets recorded instead of run) and
 *              at its end (the executor's sync) the capture becomes a graph
 *              that runs as that run's work. A later timed run whose inputs
 *              match the captured run's (kinds, numbers, strings, tensors'
 *              dtype, shape, strides, offset, storage size) is replayed: its
 *              tensors uploaded into the captured run's input buffers, one
 *              graph_launch, the sync; the executor does not run. That is
 *              exact because a capture ends, and graphs go off for good
 *              (stats.graph_state says why and where), as soon as the host
 *              part of the run could differ from a replay's: the host reads
 *              device data (mirror_to_host: an `if` on a value, .item(), a
 *              data-dependent loop, a host op's input), reads the data of
 *              an input over GRAPH_GUARD_MAX, or the pool must free memory,
 *              or it prints (prim::Print, aten::warn: a replay would not).
 *              An input the host reads that is smaller is guarded instead:
 *              its bytes at the start of the run are kept and a replay
 *              needs the same (else graphs go off and the run is plain).
 *              Everything the host decided or made is then a function of
 *              the program, the inputs' kinds and shapes, the guarded
 *              inputs' data and the seed, which a replay's match: a tensor the
 *              host made and sends to the device (a factory, a random draw)
 *              is copied into pinned memory the graph keeps and the copy
 *              from there is captured (graph_upload). The work captured so far
 *              runs then as a graph of its own and the run goes on plainly.
 *              Every buffer the graph names stays allocated: the pool frees
 *              nothing while a graph exists (its buffers only go back to
 *              the pool, and replays allocate nothing), and the graph is
 *              destroyed (after a sync) before any buffer is released. A
 *              replay's outputs stay in the graph's buffers, as a timed
 *              run's stay on the device; the host values of the run are
 *              not made again (nobody reads a timed run's outputs). A
 *              replay counts the graph's launches and products in
 *              stats.launches and gemms (the device ran them) and one call
 *              from the host (--stats host_launches_per_run).
 *              --no-graphs (CudaOptions.no_graphs) turns this off.
 *              TSSA_CUDA_GRAPH_CHECK=1 (tests): the first run's outputs are
 *              kept and each timed run's compared with them (a replay's
 *              read back from the graph's output buffers, after its input
 *              buffers were zeroed before the rebinding upload).
 */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "backends/cuda/cuda_device.h"
#include "tssa/cuda.h"

enum { THREADS_PER_BLOCK = 256, SWEEP_MIN = 64 };

#define COPY_KERNEL(name, type) \
    "extern \"C\" __global__ void " name "(const tssa_copy_args a)\n{\n" \
    "    const long long lin = (long long)blockIdx.x * blockDim.x + threadIdx.x;\n" \
    "    if (lin >= a.total)\n        return;\n" \
    "    long long rest = lin, s = 0, d = 0;\n" \
    "    for (int k = (int)a.rank - 1; k >= 0; k--) {\n" \
    "        const long long i = rest % a.sizes[k];\n" \
    "        rest /= a.sizes[k];\n" \
    "        s += i * a.sstr[k];\n" \
    "        d += i * a.dstr[k];\n" \
    "    }\n" \
    "    ((" type " *)a.dst)[d] = ((const " type " *)a.src)[s];\n}\n" \
    "TSSA_KERNEL_ENTRY(" name ", tssa_copy_args)\n"

#define GATHER_KERNEL(name, itype, etype) \
    "extern \"C\" __global__ void " name "(const tssa_gather_args a)\n{\n" \
    "    const long long lin = (long long)blockIdx.x * blockDim.x + threadIdx.x;\n" \
    "    if (lin >= a.total)\n        return;\n" \
    "    const long long r = lin / a.row_len, c = lin % a.row_len;\n" \
    "    const long long i = (long long)((const " itype " *)a.idx)[r];\n" \
    "    if (i < 0 || i >= a.rows) {\n" \
    "        a.bad[1] = i;\n        a.bad[0] = 1;\n" \
    "        ((" etype " *)a.dst)[lin] = 0;\n        return;\n    }\n" \
    "    ((" etype " *)a.dst)[lin] = ((const " etype " *)a.table)[i * a.row_len + c];\n}\n" \
    "TSSA_KERNEL_ENTRY(" name ", tssa_gather_args)\n"

/* The runtime's own kernels: a bias row broadcast over a linear's output
 * (then accumulated into), and a strided copy (a region written into a
 * tensor: immut::select_rev / slice_rev on the device). */
static const char RUNTIME_KERNELS[] =
    "\n/* the cuda backend's own kernels */\n"
    "#ifndef TSSA_KERNEL_ENTRY\n#define TSSA_KERNEL_ENTRY(kernel, args)\n#endif\n"
    "struct tssa_rows_args { const void *src; void *dst; long long n; long long total; };\n"
    "extern \"C\" __global__ void tssa_rows_f32(const tssa_rows_args a)\n{\n"
    "    const long long lin = (long long)blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    if (lin < a.total)\n        ((float *)a.dst)[lin] = ((const float *)a.src)[lin % a.n];\n}\n"
    "TSSA_KERNEL_ENTRY(tssa_rows_f32, tssa_rows_args)\n"
    "extern \"C\" __global__ void tssa_rows_f64(const tssa_rows_args a)\n{\n"
    "    const long long lin = (long long)blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    if (lin < a.total)\n        ((double *)a.dst)[lin] = ((const double *)a.src)[lin % a.n];\n}\n"
    "TSSA_KERNEL_ENTRY(tssa_rows_f64, tssa_rows_args)\n"
    /* a strided copy of `total` elements (src's and dst's strides over
     * sizes; a stride 0 broadcasts), one per element size */
    "struct tssa_copy_args { const void *src; void *dst; long long total; long long rank;\n"
    "    long long sizes[8]; long long sstr[8]; long long dstr[8]; };\n"
    COPY_KERNEL("tssa_copy_1", "unsigned char") COPY_KERNEL("tssa_copy_2", "unsigned short")
    COPY_KERNEL("tssa_copy_4", "unsigned int") COPY_KERNEL("tssa_copy_8", "unsigned long long")
    /* rows of a table at indices (aten::embedding); an index outside the
     * table writes zeros and is noted in bad[0..1] (1, the index) for the
     * host to report */
    "struct tssa_gather_args { const void *table; const void *idx; void *dst; long long rows;\n"
    "    long long row_len; long long total; long long *bad; };\n"
    GATHER_KERNEL("tssa_gather_i64_4", "long long", "unsigned int")
    GATHER_KERNEL("tssa_gather_i64_8", "long long", "unsigned long long")
    GATHER_KERNEL("tssa_gather_i32_4", "int", "unsigned int")
    GATHER_KERNEL("tssa_gather_i32_8", "int", "unsigned long long");

typedef struct RowsArgs {
    uint64_t src, dst;
    int64_t n, total;
} RowsArgs;

enum { COPY_MAX_RANK = 8 };
typedef struct GatherArgs {
    uint64_t table, idx, dst;
    int64_t rows, row_len, total;
    uint64_t bad;
} GatherArgs;

typedef struct CopyArgs {
    uint64_t src, dst;
    int64_t total, rank;
    int64_t sizes[COPY_MAX_RANK], sstr[COPY_MAX_RANK], dstr[COPY_MAX_RANK];
} CopyArgs;

/* A storage's copies: on the host, and on each GPU (device buffer, and
 * whether it holds the current data). */
typedef struct Mirror {
    Storage *storage;
    Tensor *holder;             /* a view of it only the mirror holds: keeps it alive */
    size_t bytes;
    bool host_valid;
    DevicePtr dptr[CUDA_MAX_DEVICES];
    bool device_valid[CUDA_MAX_DEVICES];
    /* per GPU: the lane whose stream last wrote the buffer (-1: none), and
     * the lanes (bits) whose streams read it since */
    signed char writer[CUDA_MAX_DEVICES];
    unsigned char readers[CUDA_MAX_DEVICES];
} Mirror;

_Static_assert(CUDA_MAX_DEVICES <= 8, "a Mirror's readers are a byte of lane bits");

/* A logical device: its GPU, its stream there, and how far that stream is
 * known to be ordered after the others'. */
typedef struct Lane {
    int gpu;
    DeviceStream *stream;
    int64_t queued;                     /* calls queued on the stream so far */
    int64_t waited[CUDA_MAX_DEVICES];   /* lane j's `queued` when this stream last waited for j's */
} Lane;

typedef struct FreeBuffer {
    size_t bytes;
    DevicePtr dptr;
    unsigned users;             /* lanes whose streams may still use it */
} FreeBuffer;

typedef struct GraphSlot GraphSlot;

/* Graphs for --repeat's timed runs (the header's "graphs"). */
typedef enum GraphPhase {
    GRAPH_WAITING,              /* no timed run yet: the next is captured */
    GRAPH_CAPTURING,            /* the executor's run is being captured */
    GRAPH_READY,                /* a graph replays the timed runs */
    GRAPH_OFF,                  /* plain runs (stats.graph_state says why) */
} GraphPhase;

typedef struct GraphState {
    GraphPhase phase;
    bool check;                 /* TSSA_CUDA_GRAPH_CHECK=1: replays' outputs compared */
    DeviceGraph *graph;
    GraphSlot *inputs, *outputs;    /* the captured run's, flattened */
    int ninputs, noutputs;
    RtValue *const *rebound;    /* the inputs already uploaded into the graph's buffers */
    bool gathers;               /* the graph runs gathers: their note is read after it */
    void **pinned;              /* the host data the graph uploads (graph_upload) */
    int npinned;
    RtValue **reference;        /* check mode: the first (plain) run's outputs, copied */
    int nreference;
    int64_t launches_before, gemms_before;
} GraphState;

/* One GPU (or emulated device): its kernels and its pool of free buffers. */
typedef struct Gpu {
    Device *dev;
    void ***functions;          /* [kernel index][output]: NULL for an empty output */
    const char ***function_names; /* [kernel index][output]: "NAME_out<o>", for messages */
    char **names;               /* every name loaded (owns the strings above) */
    int nnames;
    void *rows_fn[2];           /* tssa_rows_f32, tssa_rows_f64 */
    void *copy_fn[4];           /* tssa_copy_1, _2, _4, _8 (by element size) */
    void *gather_fn[2][2];      /* tssa_gather_{i64,i32}_{4,8} */
    DevicePtr gather_bad;       /* the gathers' out-of-range note (2 int64), or 0 */
    bool gather_unchecked;      /* a gather ran since the note was last read */
    FreeBuffer *pool;
    int npool, cappool;
} Gpu;

struct CudaBackend {
    KernelProgram *kp;
    Gpu gpus[CUDA_MAX_DEVICES];
    int ngpus;
    /* the placement's devices (StreamFilter.device) on the GPUs: several
     * devices may share a GPU */
    Lane lanes[CUDA_MAX_DEVICES];
    int ndevices;
    int lane;                   /* the device of the firing under way */
    int cur;                    /* its GPU */
    bool peer[CUDA_MAX_DEVICES][CUDA_MAX_DEVICES];  /* [to][from]: copy_peer allowed */
    FreeBuffer *pinned;         /* staging buffers (dptr: the host pointer), reused by size */
    int npinned;
    size_t pinned_bytes;
    char source[256];           /* the source line of the node under way, for messages */
    const char *op_name;        /* its op ("aten::Bool"), or "the executor" */
    char gather_source[256];    /* that of the last gather, for an index out of range */
    /* mirrors: a dense array and an open-addressing index over it */
    Mirror *mirrors;
    int nmirrors, capmirrors, swept_at;
    int *index;                 /* position + 1, or 0 */
    int capindex;               /* a power of two, > 2 * nmirrors */
    int64_t in_use;
    CudaStats stats;
    ExecDevice exec;
    const NodePlacement *placement;     /* the plan's, or NULL */
    GraphState graph;
};

static bool graph_interrupt(CudaBackend *cb, const char *why);
static bool graph_host_reads(CudaBackend *cb, const Tensor *t);
static bool graph_finish_capture(CudaBackend *cb);
static bool graph_before_free(CudaBackend *cb);
static bool graph_upload(CudaBackend *cb, DevicePtr dst, const void *src, size_t bytes);

/* ---------------------------------------------------------------- failures */

/* Records a device failure for the evaluator to report at the node. */
/* The Python source line of the node being run (set by run_node): a
 * plain node's comment ("yolo.py:12:8"), or a fused group's first member's
 * ("fused 5 nodes: aten::add (yolo.py:16:28), ..."). */
static void note_source(CudaBackend *cb, const IrNode *n)
{
    cb->source[0] = '\0';
    const char *c = n->comment;
    if (!c)
        return;
    const char *open = n->op == OP_TSSA_FUSION_GROUP ? strchr(c, '(') : NULL;
    const char *from = open ? open + 1 : c;
    size_t len = open ? strcspn(from, ")") : strcspn(from, "\n");
    snprintf(cb->source, sizeof cb->source, "%.*s", (int)len, from);
}

/* Records a device failure for the evaluator to report at the node (its
 * place in the graph text), with the source line and what failed. */
static int device_failed(CudaBackend *cb, const char *what)
{
    Device *d = cb->gpus[cb->cur].dev;
    tensor_set_error("cuda (%s): %s%s%s%s%s%s", d->name, what ? what : "", what ? ": " : "", d->error,
                     cb->source[0] ? " (source " : "", cb->source, cb->source[0] ? ")" : "");
    return -1;
}

/* ---------------------------------------------------------------- streams */

/* The firings that follow run on lane `lane`: its GPU, its stream. */
static void use_lane(CudaBackend *cb, int lane)
{
    cb->lane = lane;
    cb->cur = cb->lanes[lane].gpu;
    cb->gpus[cb->cur].dev->stream = cb->lanes[lane].stream;
}

/* The first lane on GPU g. */
static int lane_on(const CudaBackend *cb, int g)
{
    for (int l = 0; l < cb->ndevices; l++)
        if (cb->lanes[l].gpu == g)
            return l;
    return 0;
}

/* A call was queued on the current lane's stream. */
static void queued(CudaBackend *cb)
{
    cb->lanes[cb->lane].queued++;
}

/* The current lane's stream runs what it is given next only after what
 * lane w has queued so far (nothing to do when it already waited for all
 * of that). The host does not wait. */
static bool wait_for_lane(CudaBackend *cb, int w)
{
    Lane *r = &cb->lanes[cb->lane];
    if (w < 0 || w == cb->lane || r->waited[w] >= cb->lanes[w].queued)
        return true;
    Device *d = cb->gpus[r->gpu].dev, *pd = cb->gpus[cb->lanes[w].gpu].dev;
    if (!d->ops->order(d, r->stream, pd, cb->lanes[w].stream))
        return false;
    r->waited[w] = cb->lanes[w].queued;
    cb->stats.stream_waits++;
    return true;
}

static bool wait_for_lanes(CudaBackend *cb, unsigned lanes)
{
    for (int l = 0; l < cb->ndevices; l++)
        if (((lanes >> l) & 1u) && !wait_for_lane(cb, l))
            return false;
    return true;
}

/* The current lane is about to read m's buffer on GPU g: after its writer. */
static bool before_read(CudaBackend *cb, Mirror *m, int g)
{
    int w = m->writer[g];
    if (w >= 0 && w != cb->lane) {
        /* a value made by another device of this GPU: no copy, only a wait */
        if (g == cb->cur && !(m->readers[g] & (1u << cb->lane)))
            cb->stats.copies_none_needed++;
        if (!wait_for_lane(cb, w))
            return false;
    }
    m->readers[g] |= (unsigned char)(1u << cb->lane);
    return true;
}

/* The current lane is about to write m's buffer on GPU g: after its last
 * writer and everyone who read it since. */
static bool before_write(CudaBackend *cb, Mirror *m, int g)
{
    if (!wait_for_lane(cb, m->writer[g]) || !wait_for_lanes(cb, m->readers[g]))
        return false;
    m->writer[g] = (signed char)cb->lane;
    m->readers[g] = 0;
    return true;
}

/* The lanes that may still use m's buffer on GPU g. */
static unsigned users_of(const Mirror *m, int g)
{
    return m->readers[g] | (m->writer[g] >= 0 ? 1u << m->writer[g] : 0u);
}

/* ---------------------------------------------------------------- memory */

/* A buffer on GPU g (the current lane's): a freed one of the same size,
 * once the streams that used it are waited for, else a new one. */
static bool pool_alloc(CudaBackend *cb, int g, size_t bytes, DevicePtr *p)
{
    Gpu *gpu = &cb->gpus[g];
    for (int i = 0; i < gpu->npool; i++)
        if (gpu->pool[i].bytes == bytes) {
            if (!wait_for_lanes(cb, gpu->pool[i].users))
                return false;
            *p = gpu->pool[i].dptr;
            gpu->pool[i] = gpu->pool[--gpu->npool];
            goto got;
        }
    if (!gpu->dev->ops->alloc(gpu->dev, bytes, p)) {
        /* out of memory, perhaps only because of what the pool keeps */
        if (!graph_before_free(cb))
            return false;
        for (int i = 0; i < gpu->npool; i++)
            gpu->dev->ops->release(gpu->dev, gpu->pool[i].dptr);
        gpu->npool = 0;
        if (!gpu->dev->ops->alloc(gpu->dev, bytes, p))
            return false;
    }
    cb->stats.device_allocations++;
got:
    cb->in_use += (int64_t)bytes;
    if (cb->in_use > cb->stats.peak_device_bytes)
        cb->stats.peak_device_bytes = cb->in_use;
    return true;
}

static void pool_free(CudaBackend *cb, int g, size_t bytes, DevicePtr p, unsigned users)
{
    Gpu *gpu = &cb->gpus[g];
    if (gpu->npool == gpu->cappool) {
        gpu->cappool = gpu->cappool ? 2 * gpu->cappool : 64;
        gpu->pool = xrealloc(gpu->pool, (size_t)gpu->cappool * sizeof *gpu->pool);
    }
    gpu->pool[gpu->npool++] = (FreeBuffer){bytes, p, users};
    cb->in_use -= (int64_t)bytes;
}

static size_t slot_of(const CudaBackend *cb, const Storage *s)
{
    uint64_t h = (uint64_t)(uintptr_t)s;
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdULL;
    h ^= h >> 33;
    return (size_t)h & (size_t)(cb->capindex - 1);
}

static void reindex(CudaBackend *cb)
{
    int cap = 64;
    while (cap <= 2 * cb->nmirrors)
        cap *= 2;
    free(cb->index);
    cb->index = xcalloc((size_t)cap, sizeof *cb->index);
    cb->capindex = cap;
    for (int i = 0; i < cb->nmirrors; i++) {
        size_t at = slot_of(cb, cb->mirrors[i].storage);
        while (cb->index[at])
            at = (at + 1) & (size_t)(cap - 1);
        cb->index[at] = i + 1;
    }
}

static Mirror *mirror_find(const CudaBackend *cb, const Storage *s)
{
    if (!cb->capindex)
        return NULL;
    for (size_t at = slot_of(cb, s);; at = (at + 1) & (size_t)(cb->capindex - 1)) {
        int i = cb->index[at];
        if (!i)
            return NULL;
        if (cb->mirrors[i - 1].storage == s)
            return &cb->mirrors[i - 1];
    }
}

/* Mirrors whose storage nobody else holds are dead: their buffers go back
 * to the pool. */
static void sweep(CudaBackend *cb)
{
    int kept = 0;
    for (int i = 0; i < cb->nmirrors; i++) {
        Mirror *m = &cb->mirrors[i];
        if (m->storage->refcount == 1) {     /* only the holder */
            for (int g = 0; g < cb->ngpus; g++)
                if (m->dptr[g])
                    pool_free(cb, g, m->bytes, m->dptr[g], users_of(m, g));
            tensor_release(m->holder);
            continue;
        }
        cb->mirrors[kept++] = *m;
    }
    cb->nmirrors = kept;
    cb->swept_at = kept;
    reindex(cb);
}

/* The mirror of t's storage, made (device copy stale, no buffer yet) when
 * missing. */
static Mirror *mirror_get(CudaBackend *cb, const Tensor *t)
{
    Storage *s = t->storage;
    Mirror *m = mirror_find(cb, s);
    if (m)
        return m;
    if (cb->nmirrors >= 2 * cb->swept_at + SWEEP_MIN)
        sweep(cb);
    if (cb->nmirrors == cb->capmirrors) {
        cb->capmirrors = cb->capmirrors ? 2 * cb->capmirrors : 64;
        cb->mirrors = xrealloc(cb->mirrors, (size_t)cb->capmirrors * sizeof *cb->mirrors);
    }
    cb->mirrors[cb->nmirrors++] =
        (Mirror){.storage = s, .holder = tensor_make_view(t, t->ndim, t->sizes, t->strides, t->offset),
                 .bytes = s->nbytes, .host_valid = true};
    memset(cb->mirrors[cb->nmirrors - 1].writer, -1, sizeof cb->mirrors[cb->nmirrors - 1].writer);
    if (2 * cb->nmirrors >= cb->capindex)
        reindex(cb);
    else {
        size_t at = slot_of(cb, s);
        while (cb->index[at])
            at = (at + 1) & (size_t)(cb->capindex - 1);
        cb->index[at] = cb->nmirrors;
    }
    return &cb->mirrors[cb->nmirrors - 1];
}

static bool gathers_ok(CudaBackend *cb, int g);

static FreeBuffer *pinned_buffer(CudaBackend *cb, size_t bytes);

/* Downloads of at least this many bytes go through a pinned buffer (full
 * DMA speed: the data a message to another rank, an output or a host node
 * takes), while the pinned pool holds at most PINNED_POOL_MAX bytes. */
#define PINNED_DOWNLOAD_MIN ((size_t)64 << 10)
#define PINNED_POOL_MAX ((size_t)256 << 20)

/* m's bytes from GPU g's buffer into host memory, on the current lane's
 * stream (the host waits for it alone). */
static bool download(CudaBackend *cb, Mirror *m, int g)
{
    Device *d = cb->gpus[g].dev;
    bool pooled = false;
    for (int i = 0; i < cb->npinned; i++)
        pooled |= cb->pinned[i].bytes == m->bytes;
    bool pinned = m->bytes >= PINNED_DOWNLOAD_MIN && (pooled || cb->pinned_bytes + m->bytes <= PINNED_POOL_MAX);
    if (!pinned)
        return d->ops->download(d, m->storage->data, m->dptr[g], m->bytes);
    FreeBuffer *buf = pinned_buffer(cb, m->bytes);
    if (!buf || !wait_for_lanes(cb, buf->users) ||
        !d->ops->stage_out(d, (void *)(uintptr_t)buf->dptr, m->dptr[g], m->bytes))
        return false;
    queued(cb);
    if (!d->ops->stream_sync(d))
        return false;
    memcpy(m->storage->data, (const void *)(uintptr_t)buf->dptr, m->bytes);
    buf->users = 1u << cb->lane;    /* done: the host waited for that stream */
    cb->stats.copies_to_host_pinned++;
    return true;
}

/* Makes the host copy current (from a GPU that has the data), on the
 * writer's stream: the host waits for that stream alone. */
static bool mirror_to_host(CudaBackend *cb, Mirror *m)
{
    if (m->host_valid || m->bytes == 0)
        return true;
    int g = 0;
    while (g < cb->ngpus && !m->device_valid[g])
        g++;
    if (g == cb->ngpus)
        return true;    /* never written anywhere: nothing to bring */
    if (!graph_interrupt(cb, "the host read device data during the run"))
        return false;
    int lane = cb->lane;
    use_lane(cb, m->writer[g] >= 0 ? m->writer[g] : lane_on(cb, g));
    if (!gathers_ok(cb, g) || !download(cb, m, g))
        return false;   /* the failure is that GPU's: cb->cur stays on it */
    m->readers[g] |= (unsigned char)(1u << cb->lane);
    use_lane(cb, lane);
    m->host_valid = true;
    cb->stats.bytes_to_host += (int64_t)m->bytes;
    cb->stats.copies_to_host++;
    return true;
}

/* A pinned staging buffer of `bytes`, from the pool (its users, the lanes
 * whose streams last copied through it, to be waited for), else new. */
static FreeBuffer *pinned_buffer(CudaBackend *cb, size_t bytes)
{
    for (int i = 0; i < cb->npinned; i++)
        if (cb->pinned[i].bytes == bytes)
            return &cb->pinned[i];
    Device *d = cb->gpus[cb->cur].dev;
    void *p;
    if (!d->ops->pinned_alloc(d, bytes, &p))
        return NULL;
    cb->pinned = xreallocn(cb->pinned, (size_t)cb->npinned + 1, sizeof *cb->pinned);
    cb->pinned[cb->npinned] = (FreeBuffer){bytes, (DevicePtr)(uintptr_t)p, 0};
    cb->pinned_bytes += bytes;
    return &cb->pinned[cb->npinned++];
}

/* m's data into its (allocated) buffer on the current GPU, from another
 * GPU that has it (peer to peer where allowed, else staged through pinned
 * memory), else from the host. */
static bool bring_here(CudaBackend *cb, Mirror *m)
{
    int g = cb->cur, lane = cb->lane;
    Device *d = cb->gpus[g].dev;
    int h = -1;
    for (int o = 0; o < cb->ngpus; o++)
        if (o != g && m->device_valid[o] && (h < 0 || m->writer[o] >= 0))
            h = o;
    if (!before_write(cb, m, g))
        return false;
    if (h >= 0 && cb->peer[g][h]) {
        /* on this lane's stream, after the writer's */
        if (!wait_for_lane(cb, m->writer[h]) ||
            !d->ops->copy_peer(d, m->dptr[g], cb->gpus[h].dev, m->dptr[h], m->bytes))
            return false;
        queued(cb);
        m->readers[h] |= (unsigned char)(1u << lane);
        cb->stats.copies_peer++;
        cb->stats.bytes_peer += (int64_t)m->bytes;
        return true;
    }
    if (h >= 0) {
        /* out on the writer's stream (once the buffer's last users are
         * done with it), in on this one after it */
        FreeBuffer *buf = pinned_buffer(cb, m->bytes);
        if (!buf)
            return false;
        int w = m->writer[h] >= 0 ? m->writer[h] : lane_on(cb, h);
        use_lane(cb, w);
        Device *hd = cb->gpus[h].dev;
        void *pinned = (void *)(uintptr_t)buf->dptr;
        if (!wait_for_lanes(cb, buf->users) || !hd->ops->stage_out(hd, pinned, m->dptr[h], m->bytes))
            return false;
        queued(cb);
        m->readers[h] |= (unsigned char)(1u << w);
        use_lane(cb, lane);
        if (!wait_for_lane(cb, w) || !d->ops->stage_in(d, m->dptr[g], pinned, m->bytes))
            return false;
        queued(cb);
        buf->users = (1u << w) | (1u << lane);
        cb->stats.copies_staged++;
        cb->stats.bytes_staged += (int64_t)m->bytes;
        return true;
    }
    if (!mirror_to_host(cb, m))
        return false;
    if (cb->graph.phase == GRAPH_CAPTURING) {
        if (!graph_upload(cb, m->dptr[g], m->storage->data, m->bytes))
            return false;
    } else if (!d->ops->upload(d, m->dptr[g], m->storage->data, m->bytes)) {
        return false;
    }
    queued(cb);
    cb->stats.bytes_to_device += (int64_t)m->bytes;
    cb->stats.copies_to_device++;
    return true;
}

/* The current GPU's copy of t's storage, current (brought when stale
 * there), for the current lane to read: after its writer's stream. */
static bool on_device(CudaBackend *cb, const Tensor *t, DevicePtr *p)
{
    int g = cb->cur;
    Mirror *m = mirror_get(cb, t);
    if (!m->dptr[g] && !pool_alloc(cb, g, m->bytes, &m->dptr[g]))
        return false;
    if (!m->device_valid[g] && m->bytes > 0 && !bring_here(cb, m))
        return false;
    m->device_valid[g] = true;
    if (!before_read(cb, m, g))
        return false;
    *p = m->dptr[g] + (DevicePtr)((size_t)t->offset * dtype_size(t->dtype));
    return true;
}

/* A new contiguous tensor whose data the device will write. */
static Tensor *device_output(CudaBackend *cb, TensorDType dt, int rank, const int64_t *sizes,
                             DevicePtr *p)
{
    Tensor *t = tensor_empty_unfilled(dt, rank, sizes);
    if (!t)
        return NULL;
    Mirror *m = mirror_get(cb, t);
    int g = cb->cur;
    if (!pool_alloc(cb, g, m->bytes, &m->dptr[g])) {
        tensor_release(t);      /* the mirror is swept with it */
        return NULL;
    }
    m->host_valid = false;
    m->device_valid[g] = true;
    m->writer[g] = (signed char)cb->lane;
    m->readers[g] = 0;
    *p = m->dptr[g];
    return t;
}

static bool value_to_host(CudaBackend *cb, const RtValue *v)
{
    if (!v)
        return true;
    if (v->kind == RT_TENSOR) {
        Mirror *m = mirror_find(cb, v->u.t->storage);
        return graph_host_reads(cb, v->u.t) && (!m || mirror_to_host(cb, m));
    }
    if (v->kind == RT_LIST || v->kind == RT_TUPLE || v->kind == RT_DICT)
        for (int i = 0; i < v->u.list.n; i++)
            if (!value_to_host(cb, v->u.list.items[i]))
                return false;
    return true;
}

/* The host is about to write v's tensor: its device copy goes stale. */
static void host_writes(CudaBackend *cb, const RtValue *v)
{
    if (v && v->kind == RT_TENSOR) {
        Mirror *m = mirror_find(cb, v->u.t->storage);
        for (int g = 0; m && g < cb->ngpus; g++)
            m->device_valid[g] = false;
    } else if (v && (v->kind == RT_LIST || v->kind == RT_TUPLE || v->kind == RT_DICT)) {
        for (int i = 0; i < v->u.list.n; i++)
            host_writes(cb, v->u.list.items[i]);
    }
}

/* ---------------------------------------------------------------- launches */

static bool launch_grid(CudaBackend *cb, void *fn, const char *name, int64_t blocks, int threads,
                        const void *args, size_t size)
{
    Device *d = cb->gpus[cb->cur].dev;
    if (!d->ops->launch(d, fn, name, blocks, threads, args, size))
        return false;
    queued(cb);
    cb->stats.launches++;
    return true;
}

/* The backend's own kernels (copies, gathers): a thread per element. */
static bool launch_elements(CudaBackend *cb, void *fn, const char *name, int64_t n, const void *args,
                            size_t size)
{
    return launch_grid(cb, fn, name, (n + THREADS_PER_BLOCK - 1) / THREADS_PER_BLOCK, THREADS_PER_BLOCK,
                       args, size);
}

enum { SMALL = 16 };

static int run_group(CudaBackend *cb, const KernelsKernel *k, RtValue **args, RtValue **outs)
{
    int n = k->ninputs, m = k->noutputs;
    uint64_t in_small[SMALL], out_small[SMALL];
    int64_t si_small[SMALL];
    double sf_small[SMALL];
    uint64_t *in = n > SMALL ? xcalloc((size_t)n, sizeof *in) : in_small;
    int64_t *si = n > SMALL ? xcalloc((size_t)n, sizeof *si) : si_small;
    double *sf = n > SMALL ? xcalloc((size_t)n, sizeof *sf) : sf_small;
    uint64_t *out = m > SMALL ? xcalloc((size_t)m, sizeof *out) : out_small;
    Tensor *held_small[SMALL] = {0};
    Tensor **held = n > SMALL ? xcalloc((size_t)n, sizeof *held) : held_small;
    const char *failed = NULL;
    bool ok = true;
    for (int i = 0; i < n && ok; i++) {
        const RtValue *a = args[i];
        in[i] = 0;
        si[i] = 0;
        sf[i] = 0;
        if (k->inputs[i].kind == KERNELS_ARG_TENSOR) {
            Tensor *t = a->u.t;
            if (!tensor_is_contiguous(t)) {
                /* gathered on the host, as the C kernels' caller does */
                ok = value_to_host(cb, a);
                held[i] = ok ? tensor_contiguous(t) : NULL;
                ok = ok && held[i];
                t = held[i];
                cb->stats.strided_inputs++;
            }
            ok = ok && on_device(cb, t, &in[i]);
            failed = ok ? NULL : "an input to the device";
        } else {
            kernels_scalar_arg(a, &si[i], &sf[i]);
        }
    }
    for (int o = 0; o < m && ok; o++) {
        const KernelsArg *ko = &k->outputs[o];
        Tensor *t = device_output(cb, ko->dtype, ko->rank, ko->sizes, &out[o]);
        ok = t != NULL;
        outs[o] = ok ? rt_tensor_take(t) : NULL;
        failed = ok ? NULL : "an output's device memory";
    }
    if (ok) {
        size_t size = kernels_args_size(k);
        unsigned char packed_small[8 * 4 * SMALL];
        unsigned char *packed = size > sizeof packed_small ? xmalloc(size) : packed_small;
        kernels_pack_args(k, in, si, sf, out, packed);
        for (int o = 0; o < m && ok; o++) {
            void *fn = cb->gpus[cb->cur].functions[k->index][o];
            if (!fn)
                continue;       /* an empty output */
            ok = launch_grid(cb, fn, cb->gpus[cb->cur].function_names[k->index][o],
                             k->outputs[o].blocks, k->outputs[o].block_threads, packed, size);
            failed = NULL;      /* the device's message names the kernel */
        }
        if (packed != packed_small)
            free(packed);
    }
    for (int i = 0; i < n; i++)
        tensor_release(held[i]);
    if (held != held_small)
        free(held);
    if (in != in_small) {
        free(in);
        free(si);
        free(sf);
    }
    if (out != out_small)
        free(out);
    if (!ok) {
        for (int o = 0; o < m; o++) {
            rt_release(outs[o]);
            outs[o] = NULL;
        }
        if (tensor_last_error() && *tensor_last_error() && !*cb->gpus[cb->cur].dev->error)
            return -1;  /* a host allocation failed: its message stands */
        return device_failed(cb, failed);
    }
    return 1;
}

/* ---------------------------------------------------------------- GEMM */

/* How the last two dims of t sit in memory as a matrix [rows, cols]:
 * row-major with row length *ld, or (*trans) its transpose stored
 * row-major. False when neither. */
static bool matrix_layout(const Tensor *t, bool *trans, int64_t *ld)
{
    int r = t->ndim - 2, c = t->ndim - 1;
    int64_t rows = t->sizes[r], cols = t->sizes[c];
    int64_t sr = rows == 1 ? cols : t->strides[r], sc = cols == 1 ? 1 : t->strides[c];
    if (sc == 1 && sr >= (cols > 1 ? cols : 1)) {
        *trans = false;
        *ld = sr > 0 ? sr : 1;
        return true;
    }
    sr = rows == 1 ? 1 : t->strides[r];
    sc = cols == 1 ? rows : t->strides[c];
    if (sr == 1 && sc >= rows) {
        *trans = true;
        *ld = sc;
        return true;
    }
    return false;
}

/* The stride between t's matrices when its dims before the last two
 * collapse into one batch dim (1 matrix: 0). */
static bool batch_stride(const Tensor *t, int64_t *batch, int64_t *stride)
{
    int nb = t->ndim - 2;
    *batch = 1;
    *stride = 0;
    for (int d = nb - 1; d >= 0; d--) {
        if (t->sizes[d] == 1)
            continue;
        if (*batch > 1 && t->strides[d] != *stride * *batch)
            return false;
        if (*batch == 1)
            *stride = t->strides[d];
        *batch *= t->sizes[d];
    }
    return true;
}

/* C [batch..., m, n] = A [batch..., m, k] @ B [batch_b..., k, n] (B's
 * batch 1 or equal), optionally B taken transposed ([n, k] stored) and a
 * bias row added: 1 done, 0 not a shape this runs (the host does), -1. */
static int gemm_on(CudaBackend *cb, const Tensor *a, const Tensor *b, bool b_transposed, const Tensor *bias,
                   RtValue **out)
{
    if (a->ndim < 2 || b->ndim < 2 || b->ndim > a->ndim || b->dtype != a->dtype ||
        (bias && (bias->dtype != a->dtype || !tensor_is_contiguous(bias))))
        return 0;
    int64_t m = a->sizes[a->ndim - 2], k = a->sizes[a->ndim - 1];
    int64_t bk = b->sizes[b->ndim - (b_transposed ? 1 : 2)];
    int64_t n = b->sizes[b->ndim - (b_transposed ? 2 : 1)];
    /* the bias: a row ([n], [1, n]) or a whole [m, n] matrix (addmm's) */
    int64_t bias_n = bias ? tensor_numel(bias) : 0;
    bool bias_fits = !bias || (bias->ndim == 1 && bias->sizes[0] == n) ||
                     (bias->ndim == 2 && bias->sizes[1] == n && (bias->sizes[0] == 1 || bias->sizes[0] == m));
    if (bk != k || !bias_fits || m == 0 || n == 0 || k == 0)
        return 0;
    int64_t batch_a, stride_a, batch_b, stride_b;
    bool ta, tb;
    int64_t lda, ldb;
    if (!batch_stride(a, &batch_a, &stride_a) || !batch_stride(b, &batch_b, &stride_b) ||
        !matrix_layout(a, &ta, &lda) || !matrix_layout(b, &tb, &ldb))
        return 0;
    if (batch_b != 1 && batch_b != batch_a)
        return 0;
    /* B's batch dims must be A's (or absent) for the output shape below;
     * equal batch counts of broadcast dims ([1, n] by [n, 1]: an n x n
     * batch) are not pairs of matrices, and run on the host */
    if (batch_b != 1 && b->ndim != a->ndim)
        return 0;
    for (int d = 0; batch_b != 1 && d < a->ndim - 2; d++)
        if (a->sizes[d] != b->sizes[d])
            return 0;
    if (b_transposed)
        tb = !tb;
    /* A batch of rows stacked with no gap is one tall matrix: one GEMM */
    if (batch_b == 1 && batch_a > 1 && !ta && stride_a == m * lda) {
        m *= batch_a;
        batch_a = 1;
    }
    int64_t sizes[TENSOR_MAX_DIMS];
    int rank = a->ndim;
    memcpy(sizes, a->sizes, (size_t)rank * sizeof *sizes);
    sizes[rank - 1] = n;
    DevicePtr pa, pb, pc;
    if (!on_device(cb, a, &pa) || !on_device(cb, b, &pb))
        return device_failed(cb, "a GEMM operand to the device");
    Tensor *c = device_output(cb, a->dtype, rank, sizes, &pc);
    if (!c)
        return device_failed(cb, "a GEMM result's device memory");
    bool ok = true;
    if (bias) {
        DevicePtr pbias;
        ok = on_device(cb, bias, &pbias);
        int64_t total = m * n * (batch_a > 1 ? batch_a : 1);
        RowsArgs ra = {pbias, pc, bias_n, total};
        ok = ok && launch_elements(cb, cb->gpus[cb->cur].rows_fn[a->dtype == DT_F64], "tssa_rows", total, &ra,
                                   sizeof ra);
    }
    DeviceGemm g = {.dtype = a->dtype, .trans_a = ta, .trans_b = tb, .m = m, .n = n, .k = k,
                    .a = pa, .b = pb, .c = pc, .lda = lda, .ldb = ldb, .ldc = n,
                    .stride_a = stride_a, .stride_b = batch_b > 1 ? stride_b : 0,
                    .stride_c = m * n, .batch = batch_a, .accumulate = bias != NULL};
    Device *d = cb->gpus[cb->cur].dev;
    ok = ok && d->ops->gemm(d, &g);
    if (ok)
        queued(cb);
    if (!ok) {
        tensor_release(c);
        return device_failed(cb, "GEMM");
    }
    cb->stats.gemms++;
    *out = rt_tensor_take(c);
    return 1;
}

static bool copy_on_device(CudaBackend *cb, const Tensor *dst, const Tensor *src);

/* Whether the GEMM reads t as it lies: each matrix row-major or transposed,
 * its batch dims of one stride. */
static bool gemm_reads(const Tensor *t)
{
    int64_t batch, stride, ld;
    bool trans;
    return t->ndim < 2 || (batch_stride(t, &batch, &stride) && matrix_layout(t, &trans, &ld));
}

/* A contiguous copy of t made on the device, in *copy (counted in
 * strided_inputs); 0, or a device failure's status. */
static int contiguous_on_device(CudaBackend *cb, const Tensor *t, Tensor **copy)
{
    DevicePtr p;
    *copy = t->ndim <= COPY_MAX_RANK ? device_output(cb, t->dtype, t->ndim, t->sizes, &p) : NULL;
    if (!*copy)
        return t->ndim <= COPY_MAX_RANK ? device_failed(cb, "a GEMM operand's contiguous copy") : 0;
    if (!copy_on_device(cb, *copy, t)) {
        tensor_release(*copy);
        *copy = NULL;
        return device_failed(cb, "a GEMM operand made contiguous");
    }
    cb->stats.strided_inputs++;
    return 0;
}

/* C = A @ B on the device. The plan put the product there from its op and
 * dtypes; an operand whose layout only the run shows (a transposed batch of
 * heads, a view with gaps) is first made contiguous on the device, so the
 * product stays there. 1 when done, 0 when declined (the host runs it),
 * else a device failure's status. */
static int run_gemm(CudaBackend *cb, const Tensor *a, const Tensor *b, bool b_transposed,
                    const Tensor *bias, RtValue **out)
{
    Tensor *copy_a = NULL, *copy_b = NULL;
    int status = 0;
    if (!gemm_reads(a))
        status = contiguous_on_device(cb, a, &copy_a);
    if (status == 0 && !gemm_reads(b))
        status = contiguous_on_device(cb, b, &copy_b);
    if (status == 0)
        status = gemm_on(cb, copy_a ? copy_a : a, copy_b ? copy_b : b, b_transposed, bias, out);
    tensor_release(copy_a);
    tensor_release(copy_b);
    return status;
}

static const Tensor *tensor_arg(RtValue *const *args, int i, int nargs)
{
    return i < nargs && args[i] && args[i]->kind == RT_TENSOR ? args[i]->u.t : NULL;
}

/* matmul with a vector: v @ M as [1, k] @ M, M @ v as M @ [k, 1], the
 * result's unit dim dropped again (a view of the product). */
static int vector_gemm(CudaBackend *cb, const Tensor *a, const Tensor *b, RtValue **out)
{
    if (a->ndim + b->ndim < 3 || (a->ndim == 1 && b->ndim != 2) || (b->ndim == 1 && a->ndim < 2))
        return 0;       /* a dot product, or a batched vector: the host's */
    const Tensor *v = a->ndim == 1 ? a : b;
    int64_t sizes[2], strides[2];
    if (v == a) {
        sizes[0] = 1, sizes[1] = a->sizes[0];
        strides[0] = a->sizes[0] * a->strides[0], strides[1] = a->strides[0];
    } else {
        sizes[0] = b->sizes[0], sizes[1] = 1;
        strides[0] = b->strides[0], strides[1] = 1;
    }
    Tensor *m = tensor_make_view(v, 2, sizes, strides, v->offset);
    RtValue *product = NULL;
    int r = v == a ? run_gemm(cb, m, b, false, NULL, &product) : run_gemm(cb, a, m, false, NULL, &product);
    tensor_release(m);
    if (r != 1)
        return r;
    const Tensor *p = product->u.t;
    int rank = p->ndim - 1;
    int64_t psizes[TENSOR_MAX_DIMS], pstrides[TENSOR_MAX_DIMS];
    int drop = v == a ? p->ndim - 2 : p->ndim - 1;
    for (int d = 0, j = 0; d < p->ndim; d++)
        if (d != drop) {
            psizes[j] = p->sizes[d];
            pstrides[j++] = p->strides[d];
        }
    *out = rt_tensor_take(tensor_make_view(p, rank, psizes, pstrides, p->offset));
    rt_release(product);
    return 1;
}

/* mm, bmm, matmul (both operands at least 2-d) and linear. */
static int try_gemm(CudaBackend *cb, const IrNode *n, RtValue **args, RtValue **outs)
{
    int nargs = n->ninputs;
    const Tensor *a = tensor_arg(args, 0, nargs), *b = tensor_arg(args, 1, nargs);
    if (!a || !b || (a->dtype != DT_F32 && a->dtype != DT_F64))
        return 0;
    switch (n->op) {
    case OP_ATEN_MM:
        return a->ndim == 2 && b->ndim == 2 ? run_gemm(cb, a, b, false, NULL, outs) : 0;
    case OP_ATEN_BMM:
        return a->ndim == 3 && b->ndim == 3 ? run_gemm(cb, a, b, false, NULL, outs) : 0;
    case OP_ATEN_MATMUL:
        if (a->ndim == 1 || b->ndim == 1)
            return vector_gemm(cb, a, b, outs);
        return run_gemm(cb, a, b, false, NULL, outs);
    case OP_ATEN_ADDMM: {
        /* addmm(bias, a, b, beta=1, alpha=1): a @ b + bias (a GRU cell's) */
        const Tensor *m1 = tensor_arg(args, 1, nargs), *m2 = tensor_arg(args, 2, nargs);
        for (int i = 3; i < nargs; i++)
            if (!args[i] || (args[i]->kind == RT_INT ? args[i]->u.i != 1
                             : args[i]->kind != RT_FLOAT || args[i]->u.f != 1.0))
                return 0;
        if (!m1 || !m2 || m1->ndim != 2 || m2->ndim != 2)
            return 0;
        return run_gemm(cb, m1, m2, false, a, outs);
    }
    case OP_ATEN_LINEAR: {
        if (b->ndim != 2)
            return 0;
        const RtValue *bias = nargs > 2 ? args[2] : NULL;
        if (bias && bias->kind != RT_NONE && bias->kind != RT_TENSOR)
            return 0;
        return run_gemm(cb, a, b, true, bias && bias->kind == RT_TENSOR ? bias->u.t : NULL, outs);
    }
    default:
        return 0;
    }
}

/* ---------------------------------------------------------------- regions */

/* dst = src element by element on the current GPU (same sizes and dtype;
 * any strides, src's may be 0: a broadcast). */
static bool copy_on_device(CudaBackend *cb, const Tensor *dst, const Tensor *src)
{
    int64_t total = tensor_numel(dst);
    if (total == 0)
        return true;
    CopyArgs a = {.total = total, .rank = dst->ndim};
    if (!on_device(cb, src, &a.src) || !on_device(cb, dst, &a.dst) ||
        !before_write(cb, mirror_find(cb, dst->storage), cb->cur))
        return false;
    size_t es = dtype_size(dst->dtype);
    if (dst->dtype == src->dtype && tensor_is_contiguous(dst) && tensor_is_contiguous(src)) {
        /* one block of bytes (a slice's rows into a loop's result): the
         * copy engine, in order on this device's stream */
        Device *dev = cb->gpus[cb->cur].dev;
        cb->stats.memcpys_on_device++;
        return dev->ops->copy_peer(dev, a.dst, dev, a.src, (size_t)total * es);
    }
    for (int d = 0; d < dst->ndim; d++) {
        a.sizes[d] = dst->sizes[d];
        a.sstr[d] = src->strides[d];
        a.dstr[d] = dst->strides[d];
    }
    int e = es == 1 ? 0 : es == 2 ? 1 : es == 4 ? 2 : 3;
    return launch_elements(cb, cb->gpus[cb->cur].copy_fn[e], "tssa_copy", total, &a, sizeof a);
}

/* The device copy of t's storage on the current GPU was written: the
 * other copies are stale. */
static void device_wrote(CudaBackend *cb, const Tensor *t)
{
    Mirror *m = mirror_get(cb, t);
    m->host_valid = false;
    for (int g = 0; g < cb->ngpus; g++)
        m->device_valid[g] = g == cb->cur;
}

static bool static_index(const RtValue *v, int64_t none, int64_t *out)
{
    if (v && v->kind == RT_NONE) {
        *out = none;
        return true;
    }
    if (!v || (v->kind != RT_INT && v->kind != RT_BOOL))
        return false;
    *out = v->u.i;
    return true;
}

/* immut::select_rev(x, src, dim, index) and immut::slice_rev(x, src, dim,
 * start, end, step): x with that region replaced by src (broadcast), into
 * x itself when in_place (the executor planned x's buffer for it), else a
 * new tensor. On the device, so a loop's `out[t] = h` does not bring out
 * back to the host every iteration. 0 (the host's) for other ops, other
 * dtypes, more dims than the copy kernel takes, or a src that does not
 * broadcast to the region. */
static int try_write_region(CudaBackend *cb, const IrNode *n, RtValue **args, RtValue **outs,
                            bool in_place)
{
    int nargs = n->ninputs;
    bool select = n->op == OP_IMMUT_SELECT_REV;
    if ((!select && n->op != OP_IMMUT_SLICE_REV) || nargs != (select ? 4 : 6))
        return 0;
    const Tensor *base = tensor_arg(args, 0, nargs), *src = tensor_arg(args, 1, nargs);
    int64_t dim, a, b = 0, step = 1;
    /* in place from a view of itself (x[1:] = x[:-1]): the copy's threads
     * would read what others wrote; the host's copy takes care of it */
    if (in_place && base && src && src->storage == base->storage)
        return 0;
    if (!base || !src || src->dtype != base->dtype || base->ndim > COPY_MAX_RANK ||
        !static_index(args[2], 0, &dim) || !static_index(args[3], 0, &a) ||
        (!select && (!static_index(args[4], INT64_MAX, &b) || !static_index(args[5], 1, &step))))
        return 0;
    Tensor *out;
    DevicePtr unused;
    if (in_place) {
        out = tensor_retain((Tensor *)base);
    } else {
        out = device_output(cb, base->dtype, base->ndim, base->sizes, &unused);
        if (!out)
            return device_failed(cb, "an output's device memory");
        if (!copy_on_device(cb, out, base)) {
            tensor_release(out);
            return device_failed(cb, "a copy on the device");
        }
    }
    Tensor *region = select ? tensor_select(out, dim, a) : tensor_slice(out, dim, a, b, step);
    Tensor *from = region ? tensor_expand((Tensor *)src, region->ndim, region->sizes) : NULL;
    tensor_clear_error();
    if (!from) {
        /* a bad index or a src that does not fit: the host says so, as PyTorch */
        tensor_release(region);
        tensor_release(out);
        return 0;
    }
    bool ok = copy_on_device(cb, region, from);
    tensor_release(region);
    tensor_release(from);
    if (!ok) {
        tensor_release(out);
        return device_failed(cb, "a region written on the device");
    }
    device_wrote(cb, out);
    outs[0] = rt_tensor_take(out);
    return 1;
}

/* ---------------------------------------------------------------- gathers */

/* Reads (and clears) GPU g's out-of-range note after gathers: false, with
 * PyTorch's message, when an index was outside its table. The read waits
 * for the device, so it is done where the host waits anyway: before data
 * comes back, at the end of a run. */
static bool gathers_ok(CudaBackend *cb, int g)
{
    Gpu *gpu = &cb->gpus[g];
    if (!gpu->gather_unchecked)
        return true;
    gpu->gather_unchecked = false;
    int64_t note[2] = {0, 0};
    Device *d = gpu->dev;
    /* any of the GPU's streams may have run a gather */
    if (!d->ops->sync(d) || !d->ops->download(d, note, gpu->gather_bad, sizeof note))
        return false;
    if (!note[0])
        return true;
    static const int64_t zero[2] = {0, 0};
    if (!d->ops->upload(d, gpu->gather_bad, zero, sizeof zero))
        return false;
    snprintf(d->error, sizeof d->error,
             "aten::embedding: index %lld out of range in self (the table's rows, read on the device%s%s)",
             (long long)note[1], cb->gather_source[0] ? ", at " : "", cb->gather_source);
    return false;
}

/* aten::embedding(weight, indices, ...): rows of a [V, D] float table at
 * int64 / int32 indices (a decoder's token each step), on the device, so
 * the tokens an argmax made there are not brought to the host. */
static int try_gather(CudaBackend *cb, const IrNode *n, RtValue **args, RtValue **outs)
{
    int nargs = n->ninputs;
    const Tensor *w = tensor_arg(args, 0, nargs), *idx = tensor_arg(args, 1, nargs);
    if (n->op != OP_ATEN_EMBEDDING || !w || !idx || w->ndim != 2 ||
        (w->dtype != DT_F32 && w->dtype != DT_F64) || (idx->dtype != DT_I64 && idx->dtype != DT_I32) ||
        !tensor_is_contiguous(w) || !tensor_is_contiguous(idx) || idx->ndim + 1 > TENSOR_MAX_DIMS)
        return 0;
    Gpu *gpu = &cb->gpus[cb->cur];
    if (!gpu->gather_bad) {
        /* zeroed on the device: a memset, unlike an upload, may be captured */
        size_t note = 2 * sizeof(int64_t);
        if (!pool_alloc(cb, cb->cur, note, &gpu->gather_bad) ||
            !gpu->dev->ops->zero(gpu->dev, gpu->gather_bad, note))
            return device_failed(cb, "the gathers' note");
        queued(cb);
    }
    int64_t sizes[TENSOR_MAX_DIMS];
    for (int d = 0; d < idx->ndim; d++)
        sizes[d] = idx->sizes[d];
    sizes[idx->ndim] = w->sizes[1];
    GatherArgs a = {.rows = w->sizes[0], .row_len = w->sizes[1], .bad = gpu->gather_bad};
    Tensor *out = device_output(cb, w->dtype, idx->ndim + 1, sizes, &a.dst);
    if (!out)
        return device_failed(cb, "an output's device memory");
    a.total = tensor_numel(out);
    bool ok = on_device(cb, w, &a.table) && on_device(cb, idx, &a.idx);
    if (ok && a.total > 0) {
        void *fn = gpu->gather_fn[idx->dtype == DT_I32][w->dtype == DT_F64];
        ok = launch_elements(cb, fn, "tssa_gather", a.total, &a, sizeof a);
        gpu->gather_unchecked = true;
        snprintf(cb->gather_source, sizeof cb->gather_source, "%s", cb->source);
    }
    if (!ok) {
        tensor_release(out);
        return device_failed(cb, "aten::embedding on the device");
    }
    outs[0] = rt_tensor_take(out);
    return 1;
}

/* aten::stack(tensors, dim) / aten::cat(tensors, dim) of a list of device
 * tensors (a loop's appended outputs: `torch.stack(outs)`): each item
 * copied into its place of the result on the device. 0 (the host's, which
 * also says what is wrong) unless every item is a tensor of one dtype and
 * the shapes fit: the same sizes (stack), or the same outside dim (cat;
 * PyTorch's legacy empty 1-d pieces: the host's). */
static int try_join(CudaBackend *cb, const IrNode *n, RtValue **args, RtValue **outs)
{
    bool stack = n->op == OP_ATEN_STACK;
    if ((!stack && n->op != OP_ATEN_CAT) || n->ninputs != 2 || !args[0] || args[0]->kind != RT_LIST ||
        args[0]->u.list.n < 1 || !args[1] || args[1]->kind != RT_INT)
        return 0;
    const RtValue *list = args[0];
    const Tensor *first = NULL;
    int64_t along = 0;
    for (int i = 0; i < list->u.list.n; i++) {
        const RtValue *item = list->u.list.items[i];
        if (!item || item->kind != RT_TENSOR)
            return 0;
        const Tensor *t = item->u.t;
        if (t->ndim + (stack ? 1 : 0) > COPY_MAX_RANK || (!stack && t->ndim == 0))
            return 0;
        if (!first) {
            first = t;
        } else if (t->dtype != first->dtype || t->ndim != first->ndim) {
            return 0;
        }
    }
    int rank = first->ndim + (stack ? 1 : 0);
    int64_t d = args[1]->u.i;
    if (d < 0)
        d += rank;
    if (d < 0 || d >= rank)
        return 0;
    for (int i = 0; i < list->u.list.n; i++) {
        const Tensor *t = list->u.list.items[i]->u.t;
        for (int k = 0; k < first->ndim; k++)
            if ((stack || k != d) && t->sizes[k] != first->sizes[k])
                return 0;
        along += stack ? 1 : t->sizes[d];
    }
    int64_t sizes[TENSOR_MAX_DIMS];
    for (int k = 0; k < rank; k++)     /* stack: the items' dims around the new one */
        sizes[k] = k == d ? along : first->sizes[stack && k > d ? k - 1 : k];
    DevicePtr p;
    Tensor *out = device_output(cb, first->dtype, rank, sizes, &p);
    if (!out)
        return device_failed(cb, "an output's device memory");
    bool ok = true;
    int64_t at = 0;
    for (int i = 0; i < list->u.list.n && ok; i++) {
        Tensor *t = list->u.list.items[i]->u.t;
        int64_t len = stack ? 1 : t->sizes[d];
        Tensor *part = tensor_narrow(out, d, at, len);
        Tensor *from = part && stack ? tensor_unsqueeze(t, d) : part ? tensor_retain(t) : NULL;
        ok = part && from && copy_on_device(cb, part, from);
        tensor_release(part);
        tensor_release(from);
        at += len;
    }
    if (!ok) {
        tensor_release(out);
        return device_failed(cb, stack ? "aten::stack on the device" : "aten::cat on the device");
    }
    outs[0] = rt_tensor_take(out);
    return 1;
}

/* ---------------------------------------------------------------- factories */

/* The sizes of an int list value; false for anything else. */
static bool size_list(const RtValue *v, int64_t *sizes, int *rank)
{
    if (!v || (v->kind != RT_LIST && v->kind != RT_TUPLE) || v->u.list.n > TENSOR_MAX_DIMS)
        return false;
    for (int i = 0; i < v->u.list.n; i++) {
        const RtValue *d = v->u.list.items[i];
        if (!d || d->kind != RT_INT || d->u.i < 0)
            return false;
        sizes[i] = d->u.i;
    }
    *rank = v->u.list.n;
    return true;
}

/* aten::zeros / empty (size, dtype?, ...) and zeros_like / empty_like
 * (self, dtype?, ...) made on the device (zeros: a memset there), so a
 * loop's result buffer is not made on the host and copied over each run.
 * 0 (the host's) for other ops, or arguments this does not read (a memory
 * format, a size that is not a list of ints). */
static int try_factory(CudaBackend *cb, const IrNode *n, RtValue **args, RtValue **outs)
{
    bool zeros = n->op == OP_ATEN_ZEROS || n->op == OP_ATEN_ZEROS_LIKE;
    bool like = n->op == OP_ATEN_ZEROS_LIKE || n->op == OP_ATEN_EMPTY_LIKE;
    if (!zeros && n->op != OP_ATEN_EMPTY && n->op != OP_ATEN_EMPTY_LIKE)
        return 0;
    int nargs = n->ninputs;
    int64_t sizes[TENSOR_MAX_DIMS];
    int rank;
    TensorDType dt;
    const Tensor *self = like ? tensor_arg(args, 0, nargs) : NULL;
    if (like) {
        if (!self)
            return 0;
        rank = self->ndim;
        memcpy(sizes, self->sizes, (size_t)rank * sizeof *sizes);
        dt = self->dtype;
    } else if (nargs < 1 || !size_list(args[0], sizes, &rank)) {
        return 0;
    } else {
        dt = dtype_default_float();
    }
    /* the dtype argument; the others (layout, device, pin, memory format)
     * change nothing here, except a memory format other than None */
    if (nargs > 1 && args[1] && args[1]->kind == RT_INT) {
        int d = dtype_from_scalar_type(args[1]->u.i);
        if (d < 0)
            return 0;
        dt = (TensorDType)d;
    } else if (nargs > 1 && args[1] && args[1]->kind != RT_NONE) {
        return 0;
    }
    /* memory_format (empty, zeros_like, empty_like: argument 5) */
    if (n->op != OP_ATEN_ZEROS && nargs > 5 && args[5] && args[5]->kind != RT_NONE)
        return 0;
    DevicePtr p;
    Tensor *out = device_output(cb, dt, rank, sizes, &p);
    if (!out)
        return device_failed(cb, "an output's device memory");
    Device *d = cb->gpus[cb->cur].dev;
    if (zeros && !d->ops->zero(d, p, (size_t)tensor_numel(out) * dtype_size(dt))) {
        tensor_release(out);
        return device_failed(cb, "zeros on the device");
    }
    if (zeros)
        queued(cb);
    outs[0] = rt_tensor_take(out);
    return 1;
}

/* The executor's copy of a tensor (a loop's written result, planned as a
 * copy of its initial value, which the loop's steps then write into on
 * the device): on the device when the data is current there, else NULL
 * (the host copies). */
static RtValue *clone_on_device(void *ctx, const RtValue *v, bool copy_contents)
{
    CudaBackend *cb = ctx;
    if (!v || v->kind != RT_TENSOR)
        return NULL;
    const Tensor *t = v->u.t;
    Mirror *m = mirror_find(cb, t->storage);
    if (!m || !m->device_valid[cb->cur] || t->ndim > COPY_MAX_RANK)
        return NULL;    /* only on the host: the host copies it there */
    DevicePtr p;
    Tensor *out = device_output(cb, t->dtype, t->ndim, t->sizes, &p);
    if (!out)
        return NULL;
    if (copy_contents && !copy_on_device(cb, out, t)) {
        tensor_release(out);
        return NULL;
    }
    return rt_tensor_take(out);
}

/* ---------------------------------------------------------------- the runner */

/* The plan's site for n (NodePlacement), SITE_NONE where it decided none. */
static NodeSite placed_site(const CudaBackend *cb, const IrNode *n)
{
    const NodePlacement *p = cb->placement;
    if (!p || n->graph != p->graph || n->id >= p->nnodes)
        return SITE_NONE;
    return (NodeSite)p->site[n->id];
}

/* Whether every argument is a number or None: the host computes the node
 * without waiting for the device or moving data. */
static bool numbers_only(RtValue **args, int nargs)
{
    for (int i = 0; i < nargs; i++)
        if (args[i] && args[i]->kind != RT_INT && args[i]->kind != RT_FLOAT && args[i]->kind != RT_BOOL &&
            args[i]->kind != RT_NONE)
            return false;
    return true;
}

/* Executes the plan's placement: a node it put on the host is not offered
 * to the device; one it put on the device takes its device path, unless a
 * run-time precondition the plan could not see (an operand's layout the
 * GEMM cannot read, a group run in place, a list of tensors not all on the
 * device) declines it: it then runs on the host and counts as a fallback.
 * Nodes the plan did not place (made after it, or a group's body run node
 * by node) are offered as they come. */
static int run_node(void *ctx, const IrNode *n, RtValue **args, RtValue **outs, bool in_place)
{
    CudaBackend *cb = ctx;
    cb->gpus[cb->cur].dev->error[0] = '\0';
    note_source(cb, n);
    cb->op_name = op_info(n->op)->name;
    /* a replay would not print again: the run goes on plainly */
    if ((n->op == OP_PRIM_PRINT || n->op == OP_ATEN_WARN) && !graph_interrupt(cb, "the run prints"))
        return device_failed(cb, "ending the capture");
    NodeSite site = placed_site(cb, n);
    if (site == SITE_HOST || site == SITE_NO_DATA) {
        /* the host's, as planned */
    } else if (n->op == OP_TSSA_FUSION_GROUP && !in_place) {
        const KernelsKernel *k = kernels_kernel_of(cb->kp, n);
        if (k && kernels_args_fit(k, args))
            return run_group(cb, k, args, outs);
        /* else the host runs it (its C kernel, or its nodes one by one) */
    } else if (!in_place) {
        int r = try_gemm(cb, n, args, outs);
        if (r != 0)
            return r;
        r = try_write_region(cb, n, args, outs, false);
        if (r != 0)
            return r;
        r = try_gather(cb, n, args, outs);
        if (r != 0)
            return r;
        r = try_factory(cb, n, args, outs);
        if (r != 0)
            return r;
        r = try_join(cb, n, args, outs);
        if (r != 0)
            return r;
        /* a view reads no data: it shares its input's storage, and mirror */
        OpAlias alias = op_info(n->op)->alias;
        if (alias == ALIAS_VIEW || alias == ALIAS_VIEWS)
            return 0;
    }
    if (in_place && site != SITE_HOST && site != SITE_NO_DATA) {
        int r = try_write_region(cb, n, args, outs, true);
        if (r != 0)
            return r;
    }
    if (site == SITE_DEVICE)
        cb->stats.host_fallbacks++;
    /* shapes, dtypes and containers: the host runs it on what it has (the
     * data may stay on the device) */
    bool list_concat = n->op == OP_ATEN_ADD && n->ninputs == 2 && args[0] && args[0]->kind == RT_LIST;
    if (numbers_only(args, n->ninputs))
        return 0;       /* scalar arithmetic (a slice's bounds): nothing left the device */
    if (op_reads_no_elements(n->op) || list_concat) {
        cb->stats.host_nodes++;
        cb->stats.host_nodes_by_op[n->op]++;
        return 0;
    }
    for (int i = 0; i < n->ninputs; i++)
        if (!value_to_host(cb, args[i]))
            return device_failed(cb, "an input back to the host");
    if (in_place)
        host_writes(cb, args[0]);
    else if (op_info(n->op)->mutates >= 0 && op_info(n->op)->mutates < n->ninputs)
        host_writes(cb, args[op_info(n->op)->mutates]);
    cb->stats.host_nodes++;
    cb->stats.host_nodes_by_op[n->op]++;
    return 0;
}

static void install(void *ctx, NodeExec *values)
{
    node_exec_set_node_runner(values, run_node, ctx);
    node_exec_set_cloner(values, clone_on_device, ctx);
}

/* move(cb, item) for each item; false after writing the device's failure
 * to err. */
static bool each_item(CudaBackend *cb, RtValue *const *items, int n, FILE *err,
                      bool (*move)(CudaBackend *, const RtValue *))
{
    for (int i = 0; i < n; i++)
        if (!move(cb, items[i])) {
            Device *d = cb->gpus[cb->cur].dev;
            fprintf(err, "tssa-stream: error: cuda (%s): %s\n", d->name, d->error);
            return false;
        }
    return true;
}

static bool items_to_host(void *ctx, RtValue *const *items, int n, FILE *err)
{
    CudaBackend *cb = ctx;
    cb->op_name = "the executor (a loop's state, a message or the outputs)";
    cb->source[0] = '\0';
    return each_item(ctx, items, n, err, value_to_host);
}

static bool value_to_device(CudaBackend *cb, const RtValue *v)
{
    DevicePtr unused;
    if (v && v->kind == RT_TENSOR)
        return on_device(cb, v->u.t, &unused);
    if (v && (v->kind == RT_LIST || v->kind == RT_TUPLE || v->kind == RT_DICT))
        for (int i = 0; i < v->u.list.n; i++)
            if (!value_to_device(cb, v->u.list.items[i]))
                return false;
    return true;
}

/* Onto the first device (the one the placement's device 0 is on). */
static bool items_to_device(void *ctx, RtValue *const *items, int n, FILE *err)
{
    CudaBackend *cb = ctx;
    use_lane(cb, 0);
    return each_item(cb, items, n, err, value_to_device);
}

/* Every stream done: no lane needs to wait for work queued before now,
 * nor for a pool buffer's or staging buffer's users. */
static void all_done(CudaBackend *cb)
{
    for (int r = 0; r < cb->ndevices; r++)
        for (int w = 0; w < cb->ndevices; w++)
            cb->lanes[r].waited[w] = cb->lanes[w].queued;
    for (int g = 0; g < cb->ngpus; g++)
        for (int i = 0; i < cb->gpus[g].npool; i++)
            cb->gpus[g].pool[i].users = 0;
    for (int i = 0; i < cb->npinned; i++)
        cb->pinned[i].users = 0;
}

static bool sync_devices(void *ctx, FILE *err)
{
    CudaBackend *cb = ctx;
    if (cb->graph.phase == GRAPH_CAPTURING && !graph_finish_capture(cb)) {
        fprintf(err, "tssa-stream: error: cuda (%s): capturing the run as a graph: %s (--no-graphs runs "
                     "without graphs)\n", cb->gpus[0].dev->name, cb->stats.graph_state);
        return false;
    }
    for (int g = 0; g < cb->ngpus; g++) {
        Device *d = cb->gpus[g].dev;
        if (!d->ops->sync(d) || !gathers_ok(cb, g)) {
            fprintf(err, "tssa-stream: error: cuda (%s): %s\n", d->name, d->error);
            return false;
        }
    }
    all_done(cb);
    return true;
}

static void select_device(void *ctx, int device)
{
    use_lane(ctx, device >= 0 && device < ((CudaBackend *)ctx)->ndevices ? device : 0);
}

static void end_run(void *ctx)
{
    sweep(ctx);
}

/* ---------------------------------------------------------------- graphs */

/* One input or output of the captured run, flattened (lists and tuples
 * item by item): what a later run's value must be for the graph to serve
 * it, and where the graph reads (or wrote) a tensor's storage. */
typedef struct GraphSlot {
    RtKind kind;
    TensorDType dtype;
    int ndim;
    int64_t sizes[TENSOR_MAX_DIMS], strides[TENSOR_MAX_DIMS], offset;
    size_t bytes;               /* the storage's */
    DevicePtr dptr;             /* the storage's buffer on GPU 0 */
    const Storage *storage;     /* the captured run's (compared by address only) */
    int64_t i;
    double f;
    char *s;                    /* RT_STR, RT_DEVICE, RT_OBJECT */
    int nitems;                 /* RT_LIST, RT_TUPLE, RT_DICT: the slots that follow */
    void *expected;             /* check mode, an output: its bytes after the captured run */
    void *snapshot;             /* an input up to GRAPH_GUARD_MAX bytes: its data at the start */
    bool guarded;               /* the host read it in the captured run: a replay needs the same data */
} GraphSlot;

/* The largest input whose data the host may read in a captured run: its
 * bytes are kept, and compared before each replay (a guard, as
 * torch.compile's on a value it specialized on). */
#define GRAPH_GUARD_MAX ((size_t)4 << 20)

static void slots_free(GraphSlot *slots, int n)
{
    for (int i = 0; i < n; i++) {
        free(slots[i].s);
        free(slots[i].expected);
        free(slots[i].snapshot);
    }
    free(slots);
}

/* Graphs off from now on (the first reason is kept). */
static void graph_off(CudaBackend *cb, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void graph_off(CudaBackend *cb, const char *fmt, ...)
{
    GraphState *gs = &cb->graph;
    if (gs->phase == GRAPH_OFF)
        return;
    gs->phase = GRAPH_OFF;
    va_list ap;
    va_start(ap, fmt);
    char why[400];
    vsnprintf(why, sizeof why, fmt, ap);
    va_end(ap);
    snprintf(cb->stats.graph_state, sizeof cb->stats.graph_state, "off: %s", why);
}

/* Appends v's slots (false, after graph_off, for a value a graph cannot
 * be keyed on). */
static bool slots_add(CudaBackend *cb, GraphSlot **slots, int *n, const RtValue *v, bool want_buffer)
{
    *slots = xreallocn(*slots, (size_t)*n + 1, sizeof **slots);
    GraphSlot *sl = &(*slots)[(*n)++];
    memset(sl, 0, sizeof *sl);
    sl->kind = v ? v->kind : RT_NONE;
    switch (sl->kind) {
    case RT_NONE:
    case RT_UNINIT:
        return true;
    case RT_INT:
    case RT_BOOL:
        sl->i = v->u.i;
        return true;
    case RT_FLOAT:
        sl->f = v->u.f;
        return true;
    case RT_STR:
    case RT_DEVICE:
    case RT_OBJECT:
        sl->s = xstrdup(v->u.s ? v->u.s : "");
        return true;
    case RT_LIST:
    case RT_TUPLE:
    case RT_DICT: {
        int at = *n - 1;
        (*slots)[at].nitems = v->u.list.n;
        for (int i = 0; i < v->u.list.n; i++)
            if (!slots_add(cb, slots, n, v->u.list.items[i], want_buffer))
                return false;
        return true;
    }
    case RT_TENSOR: {
        const Tensor *t = v->u.t;
        sl->dtype = t->dtype;
        sl->ndim = t->ndim;
        memcpy(sl->sizes, t->sizes, sizeof sl->sizes);
        memcpy(sl->strides, t->strides, sizeof sl->strides);
        sl->offset = t->offset;
        sl->bytes = t->storage->nbytes;
        sl->storage = t->storage;
        const Mirror *m = mirror_find(cb, t->storage);
        if (m && m->device_valid[0])
            sl->dptr = m->dptr[0];
        else if (want_buffer && sl->bytes) {
            graph_off(cb, "an input tensor (%s) is not in device memory when the run starts", dtype_name(t->dtype));
            return false;
        }
        return true;
    }
    }
    graph_off(cb, "an input of a kind the graph cannot be keyed on");
    return false;
}

/* Whether v matches the slots from *at on (as the captured run's inputs
 * were: kind, number, string, a tensor's dtype, shape, strides, offset and
 * storage size); *at moves past them. */
static bool slots_match(const GraphSlot *slots, int n, int *at, const RtValue *v)
{
    if (*at >= n)
        return false;
    const GraphSlot *sl = &slots[(*at)++];
    RtKind kind = v ? v->kind : RT_NONE;
    if (kind != sl->kind)
        return false;
    switch (kind) {
    case RT_INT:
    case RT_BOOL:
        return v->u.i == sl->i;
    case RT_FLOAT:
        return memcmp(&v->u.f, &sl->f, sizeof sl->f) == 0;
    case RT_STR:
    case RT_DEVICE:
    case RT_OBJECT:
        return strcmp(v->u.s ? v->u.s : "", sl->s) == 0;
    case RT_LIST:
    case RT_TUPLE:
    case RT_DICT:
        if (v->u.list.n != sl->nitems)
            return false;
        for (int i = 0; i < v->u.list.n; i++)
            if (!slots_match(slots, n, at, v->u.list.items[i]))
                return false;
        return true;
    case RT_TENSOR: {
        const Tensor *t = v->u.t;
        return t->dtype == sl->dtype && t->ndim == sl->ndim && t->offset == sl->offset &&
               t->storage->nbytes == sl->bytes && memcmp(t->sizes, sl->sizes, sizeof sl->sizes) == 0 &&
               memcmp(t->strides, sl->strides, sizeof sl->strides) == 0;
    }
    default:
        return true;
    }
}

/* Uploads the tensors of inputs into the captured run's input buffers
 * (queued on lane 0's stream, before the replay). */
static bool graph_rebind_tensors(CudaBackend *cb, const GraphSlot *slots, int n, int *at, const RtValue *v)
{
    const GraphSlot *sl = &slots[(*at)++];
    if (v && (v->kind == RT_LIST || v->kind == RT_TUPLE || v->kind == RT_DICT)) {
        for (int i = 0; i < v->u.list.n; i++)
            if (!graph_rebind_tensors(cb, slots, n, at, v->u.list.items[i]))
                return false;
        return true;
    }
    if (!v || v->kind != RT_TENSOR || !sl->bytes)
        return true;
    Device *d = cb->gpus[0].dev;
    /* check mode: the buffer is cleared first, so a replay that read it
     * without this upload would give other outputs */
    if (cb->graph.check && !d->ops->zero(d, sl->dptr, sl->bytes))
        return false;
    if (!d->ops->upload(d, sl->dptr, v->u.t->storage->data, sl->bytes))
        return false;
    queued(cb);
    cb->stats.bytes_to_device += (int64_t)sl->bytes;
    cb->stats.copies_to_device++;
    return true;
}

/* Ends a capture the run cannot finish (the host is about to read device
 * data, or to send host data into the run): what was captured so far runs
 * now, as one graph, and the run goes on as a plain one. Graphs are off
 * from then on, for `why` (at the node under way). */
static bool graph_interrupt(CudaBackend *cb, const char *why)
{
    GraphState *gs = &cb->graph;
    if (gs->phase != GRAPH_CAPTURING)
        return true;
    Device *d = cb->gpus[0].dev;
    DeviceGraph *g = NULL;
    bool ok = d->ops->capture_end(d, &g) && d->ops->graph_launch(d, g) && d->ops->stream_sync(d);
    if (g)
        d->ops->graph_destroy(d, g);
    graph_off(cb, "%s (%s%s%s)", why, cb->op_name, cb->source[0] ? " at " : "", cb->source);
    return ok;
}

static void graph_destroy(CudaBackend *cb);

/* Host data the captured run sends to the device (a tensor the host made
 * during the run: a factory, a random draw, a host op on constants): a
 * pageable upload cannot be captured, so the bytes are copied into pinned
 * memory the graph keeps, and the copy from there is captured. A replay
 * sends the same bytes, which is exact: what the host made is a function
 * of the program, the inputs' kinds and shapes and the seed (a host read
 * of input or device data ended the capture before). */
static bool graph_upload(CudaBackend *cb, DevicePtr dst, const void *src, size_t bytes)
{
    GraphState *gs = &cb->graph;
    Device *d = cb->gpus[0].dev;
    void *pinned = NULL;
    if (!d->ops->pinned_alloc(d, bytes, &pinned))
        return graph_interrupt(cb, "no pinned memory for host data the run sends to the device") &&
               d->ops->upload(d, dst, src, bytes);
    memcpy(pinned, src, bytes);
    gs->pinned = xreallocn(gs->pinned, (size_t)gs->npinned + 1, sizeof *gs->pinned);
    gs->pinned[gs->npinned++] = pinned;
    cb->stats.graph_uploads++;
    return d->ops->stage_in(d, dst, pinned, bytes);
}

/* The pool is about to free device memory: no graph may name it then. */
static bool graph_before_free(CudaBackend *cb)
{
    if (!graph_interrupt(cb, "device memory ran out during the run"))
        return false;
    if (cb->graph.graph) {
        graph_destroy(cb);
        graph_off(cb, "device memory ran out in a plain run");
    }
    return true;
}

/* Whether the host may read t's data now: a read of a run's input while it
 * is captured makes the host's part of the run depend on that input's
 * data, so a replay needs the same data: the input is guarded (its bytes at
 * the start of the run were kept, a replay compares them); an input too
 * large to keep ends the capture. */
static bool graph_host_reads(CudaBackend *cb, const Tensor *t)
{
    GraphState *gs = &cb->graph;
    if (gs->phase != GRAPH_CAPTURING)
        return true;
    for (int i = 0; i < gs->ninputs; i++) {
        GraphSlot *sl = &gs->inputs[i];
        if (sl->kind != RT_TENSOR || sl->storage != t->storage)
            continue;
        if (!sl->snapshot && sl->bytes)
            return graph_interrupt(cb, "the host read the data of an input over 4 MiB during the run");
        sl->guarded = true;
    }
    return true;
}

/* Whether v's guarded tensors (slots from *at on) hold the captured run's
 * data. */
static bool graph_guards_hold(const GraphSlot *slots, int n, int *at, const RtValue *v)
{
    const GraphSlot *sl = &slots[(*at)++];
    if (v && (v->kind == RT_LIST || v->kind == RT_TUPLE || v->kind == RT_DICT)) {
        for (int i = 0; i < v->u.list.n; i++)
            if (!graph_guards_hold(slots, n, at, v->u.list.items[i]))
                return false;
        return true;
    }
    return !sl->guarded || !sl->bytes || memcmp(v->u.t->storage->data, sl->snapshot, sl->bytes) == 0;
}

/* The end of the captured run (the executor waits for the device): the
 * capture becomes the graph, which runs now as this run's work. */
static bool graph_finish_capture(CudaBackend *cb)
{
    GraphState *gs = &cb->graph;
    Device *d = cb->gpus[0].dev;
    DeviceGraph *g = NULL;
    if (!d->ops->capture_end(d, &g)) {
        graph_off(cb, "the capture failed: %s", d->error);
        return false;
    }
    gs->graph = g;
    gs->phase = GRAPH_READY;
    int guarded = 0;
    for (int i = 0; i < gs->ninputs; i++)
        guarded += gs->inputs[i].guarded;
    gs->gathers = cb->gpus[0].gather_unchecked;
    cb->stats.graph_launches = cb->stats.launches - gs->launches_before;
    cb->stats.graph_gemms = cb->stats.gemms - gs->gemms_before;
    snprintf(cb->stats.graph_state, sizeof cb->stats.graph_state,
             "captured in the first timed run (%lld launches, %lld products, %lld copies of host data, "
             "%d inputs read on the host and guarded), replayed in the later ones",
             (long long)cb->stats.graph_launches, (long long)cb->stats.graph_gemms,
             (long long)cb->stats.graph_uploads, guarded);
    if (!d->ops->graph_launch(d, g)) {
        graph_off(cb, "cuGraphLaunch failed: %s", d->error);
        return false;
    }
    queued(cb);
    return true;
}

static void graph_destroy(CudaBackend *cb)
{
    GraphState *gs = &cb->graph;
    if (gs->phase == GRAPH_CAPTURING) {
        Device *d = cb->gpus[0].dev;
        DeviceGraph *g = NULL;
        if (d->ops->capture_end(d, &g) && g)
            d->ops->graph_destroy(d, g);
    }
    if (gs->graph) {
        Device *d = cb->gpus[0].dev;
        d->ops->sync(d);
        d->ops->graph_destroy(d, gs->graph);
        gs->graph = NULL;
    }
    for (int i = 0; i < gs->npinned; i++)
        cb->gpus[0].dev->ops->pinned_free(cb->gpus[0].dev, gs->pinned[i]);
    free(gs->pinned);
    gs->pinned = NULL;
    gs->npinned = 0;
    slots_free(gs->inputs, gs->ninputs);
    slots_free(gs->outputs, gs->noutputs);
    for (int i = 0; i < gs->nreference; i++)
        rt_release(gs->reference[i]);
    free(gs->reference);
    gs->reference = NULL;
    gs->nreference = 0;
    gs->inputs = gs->outputs = NULL;
    gs->ninputs = gs->noutputs = 0;
}

/* Whether inputs match the captured run's; when not, the graph goes (a
 * plain run follows, and every later one). */
static bool graph_serves(CudaBackend *cb, RtValue *const *inputs, int ninputs)
{
    GraphState *gs = &cb->graph;
    int at = 0;
    for (int i = 0; i < ninputs; i++)
        if (!slots_match(gs->inputs, gs->ninputs, &at, inputs[i]) || (i == ninputs - 1 && at != gs->ninputs)) {
            graph_destroy(cb);
            graph_off(cb, "input %d differs in kind, value or shape from the captured run's", i);
            return false;
        }
    return ninputs > 0 || gs->ninputs == 0;
}

static bool graph_rebind(CudaBackend *cb, RtValue *const *inputs, int ninputs, FILE *err)
{
    GraphState *gs = &cb->graph;
    use_lane(cb, 0);
    int at = 0;
    for (int i = 0; i < ninputs; i++)
        if (!graph_rebind_tensors(cb, gs->inputs, gs->ninputs, &at, inputs[i])) {
            fprintf(err, "tssa-stream: error: cuda (%s): %s\n", cb->gpus[0].dev->name, cb->gpus[0].dev->error);
            return false;
        }
    gs->rebound = inputs;
    return true;
}

bool cuda_backend_graph_stage(CudaBackend *cb, RtValue *const *inputs, int ninputs, bool *done, FILE *err)
{
    *done = false;
    if (cb->graph.phase != GRAPH_READY || !graph_serves(cb, inputs, ninputs))
        return true;
    *done = true;
    return graph_rebind(cb, inputs, ninputs, err);
}

/* Check mode (TSSA_CUDA_GRAPH_CHECK=1, for the tests): each replay's
 * outputs, read back from the captured run's output buffers, must be the
 * captured run's bytes (the inputs are the same; their buffers are zeroed
 * before each rebinding upload, so a replay that missed one differs). */
static bool graph_check_outputs(CudaBackend *cb, FILE *err)
{
    GraphState *gs = &cb->graph;
    Device *d = cb->gpus[0].dev;
    for (int i = 0; i < gs->noutputs; i++) {
        GraphSlot *sl = &gs->outputs[i];
        if (!sl->expected)
            continue;
        void *now = xmalloc(sl->bytes);
        bool ok = d->ops->download(d, now, sl->dptr, sl->bytes);
        bool same = ok && memcmp(now, sl->expected, sl->bytes) == 0;
        free(now);
        if (!ok) {
            fprintf(err, "tssa-stream: error: cuda (%s): %s\n", d->name, d->error);
            return false;
        }
        if (!same) {
            fprintf(err, "tssa-stream: error: cuda graph replay %lld: output slot %d differs from the captured "
                         "run's\n", (long long)cb->stats.graph_replays, i);
            return false;
        }
    }
    cb->stats.graph_checked_runs++;
    return true;
}

/* Whether v (brought to the host) equals ref: kinds, numbers, strings,
 * containers item by item, tensors by shape and elements (NaN equal). */
static bool same_output(CudaBackend *cb, const RtValue *ref, const RtValue *v)
{
    RtKind kind = v ? v->kind : RT_NONE;
    if (kind != (ref ? ref->kind : RT_NONE))
        return false;
    if (kind == RT_TENSOR) {
        bool close = false;
        return value_to_host(cb, v) && tensor_same_shape(ref->u.t, v->u.t) && ref->u.t->dtype == v->u.t->dtype &&
               tensor_allclose(ref->u.t, v->u.t, 0, 0, true, &close) && close;
    }
    if (kind == RT_LIST || kind == RT_TUPLE || kind == RT_DICT) {
        if (ref->u.list.n != v->u.list.n)
            return false;
        for (int i = 0; i < v->u.list.n; i++)
            if (!same_output(cb, ref->u.list.items[i], v->u.list.items[i]))
                return false;
        return true;
    }
    return kind == RT_NONE || kind == RT_UNINIT || rt_equal(ref, v);
}

/* Check mode: the first run's outputs are kept (copies, on the host); a
 * timed run the executor ran (captured, interrupted or plain) must give
 * the same. */
static bool graph_check_run(CudaBackend *cb, bool timed, RtValue **outputs, int noutputs, FILE *err)
{
    GraphState *gs = &cb->graph;
    if (!timed) {
        if (gs->reference)
            return true;
        gs->reference = xcalloc((size_t)noutputs + 1, sizeof *gs->reference);
        gs->nreference = noutputs;
        for (int i = 0; i < noutputs; i++)
            gs->reference[i] = outputs[i] ? rt_clone_tensors(outputs[i]) : NULL;
        return true;
    }
    if (!gs->reference)
        return true;
    for (int i = 0; i < noutputs; i++)
        if (i >= gs->nreference || !same_output(cb, gs->reference[i], outputs[i])) {
            fprintf(err, "tssa-stream: error: cuda timed run %lld (%s): output %d differs from the first run's\n",
                    (long long)cb->stats.graph_timed_runs,
                    cb->stats.graph_state[0] ? cb->stats.graph_state : "plain", i);
            return false;
        }
    cb->stats.graph_checked_runs++;
    return true;
}

bool cuda_backend_graph_replay(CudaBackend *cb, RtValue **inputs, int ninputs, int *status, FILE *err)
{
    GraphState *gs = &cb->graph;
    cb->stats.graph_timed_runs++;
    if (gs->phase != GRAPH_READY)
        return false;
    if (gs->rebound != inputs) {
        if (!graph_serves(cb, inputs, ninputs))
            return false;
        if (!graph_rebind(cb, inputs, ninputs, err)) {
            *status = 1;
            return true;
        }
    }
    gs->rebound = NULL;
    /* the guards, in the timed run: the data of inputs the host read */
    int at = 0;
    for (int i = 0; i < ninputs; i++)
        if (!graph_guards_hold(gs->inputs, gs->ninputs, &at, inputs[i])) {
            graph_destroy(cb);
            graph_off(cb, "input %d's data, read on the host in the captured run, differs", i);
            return false;
        }
    Device *d = cb->gpus[0].dev;
    *status = 0;
    if (!d->ops->graph_launch(d, gs->graph)) {
        fprintf(err, "tssa-stream: error: cuda (%s): %s\n", d->name, d->error);
        *status = 1;
        return true;
    }
    queued(cb);
    cb->stats.graph_replays++;
    /* what the device ran: the graph's kernels and products, as a plain
     * run counts them (the host made one call) */
    cb->stats.launches += cb->stats.graph_launches;
    cb->stats.gemms += cb->stats.graph_gemms;
    cb->gpus[0].gather_unchecked |= gs->gathers;
    /* the run is over when the device is done, as a plain timed run's */
    if (!sync_devices(cb, err) || (gs->check && !graph_check_outputs(cb, err)))
        *status = 1;
    return true;
}

void cuda_backend_graph_capture(CudaBackend *cb, RtValue **inputs, int ninputs)
{
    GraphState *gs = &cb->graph;
    if (gs->phase != GRAPH_WAITING)
        return;
    if (cb->ndevices > 1 || cb->ngpus > 1) {
        graph_off(cb, "--devices %d: a graph is captured from one stream", cb->ndevices);
        return;
    }
    for (int i = 0; i < ninputs; i++)
        if (!slots_add(cb, &gs->inputs, &gs->ninputs, inputs[i], true))
            return;
    /* the data of inputs the host may read (graph_host_reads) */
    for (int i = 0; i < gs->ninputs; i++) {
        GraphSlot *sl = &gs->inputs[i];
        if (sl->kind == RT_TENSOR && sl->bytes && sl->bytes <= GRAPH_GUARD_MAX) {
            sl->snapshot = xmalloc(sl->bytes);
            memcpy(sl->snapshot, sl->storage->data, sl->bytes);
        }
    }
    Device *d = cb->gpus[0].dev;
    use_lane(cb, 0);
    if (!d->ops->capture_begin(d)) {
        graph_off(cb, "%s", d->error);
        return;
    }
    gs->phase = GRAPH_CAPTURING;
    gs->launches_before = cb->stats.launches;
    gs->gemms_before = cb->stats.gemms;
}

bool cuda_backend_graph_after(CudaBackend *cb, bool timed, RtValue **outputs, int noutputs, FILE *err)
{
    GraphState *gs = &cb->graph;
    if (gs->phase == GRAPH_CAPTURING) {     /* the run failed before its end */
        graph_destroy(cb);
        graph_off(cb, "the captured run failed");
        return true;
    }
    if (!gs->check || !outputs)
        return true;
    if (!graph_check_run(cb, timed, outputs, noutputs, err))
        return false;
    if (!timed || gs->phase != GRAPH_READY || gs->noutputs)
        return true;
    for (int i = 0; i < noutputs; i++)
        if (!slots_add(cb, &gs->outputs, &gs->noutputs, outputs[i], false))
            return true;
    Device *d = cb->gpus[0].dev;
    for (int i = 0; i < gs->noutputs; i++) {
        GraphSlot *sl = &gs->outputs[i];
        if (sl->kind != RT_TENSOR || !sl->dptr || !sl->bytes)
            continue;
        sl->expected = xmalloc(sl->bytes);
        if (!d->ops->download(d, sl->expected, sl->dptr, sl->bytes)) {
            fprintf(err, "tssa-stream: error: cuda (%s): %s\n", d->name, d->error);
            return false;
        }
    }
    return true;
}

/* ---------------------------------------------------------------- opening */

int cuda_device_count(const char **why)
{
    return cuda_driver_count(why);
}

/* Loads the program's kernels and the runtime kernels on GPU g. */
static bool load_kernels(CudaBackend *cb, int g, FILE *err)
{
    KernelProgram *kp = cb->kp;
    Gpu *gpu = &cb->gpus[g];
    int nk = kernels_count(kp);
    size_t len = 0;
    char *program = kp ? kernels_source(kp, KERNELS_TARGET_CUDA, &len) : xstrdup("");
    char *source = xprintf("%s%s", program, RUNTIME_KERNELS);
    free(program);
    int nnames = 10;
    for (int i = 0; i < nk; i++)
        nnames += kernels_kernel_at(kp, i)->noutputs;
    char **names = xcalloc((size_t)nnames, sizeof *names);
    void **fns = xcalloc((size_t)nnames, sizeof *fns);
    int at = 0;
    names[at++] = xstrdup("tssa_rows_f32");
    names[at++] = xstrdup("tssa_rows_f64");
    for (int e = 0; e < 4; e++)
        names[at++] = xprintf("tssa_copy_%d", 1 << e);
    for (int e = 0; e < 4; e++)
        names[at++] = xprintf("tssa_gather_i%d_%d", e < 2 ? 64 : 32, e % 2 ? 8 : 4);
    gpu->functions = xcalloc((size_t)nk + 1, sizeof *gpu->functions);
    gpu->function_names = xcalloc((size_t)nk + 1, sizeof *gpu->function_names);
    int *first = xcalloc((size_t)nk + 1, sizeof *first);
    for (int i = 0; i < nk; i++) {
        const KernelsKernel *k = kernels_kernel_at(kp, i);
        gpu->functions[i] = xcalloc((size_t)k->noutputs + 1, sizeof **gpu->functions);
        gpu->function_names[i] = xcalloc((size_t)k->noutputs + 1, sizeof **gpu->function_names);
        first[i] = at;
        for (int o = 0; o < k->noutputs; o++)
            if (k->outputs[o].blocks > 0)       /* else the printer writes no kernel for it */
                names[at++] = xprintf("%s_out%d", k->name, o);
    }
    bool ok = gpu->dev->ops->load(gpu->dev, source, (const char *const *)names, at, fns);
    if (ok) {
        gpu->rows_fn[0] = fns[0];
        gpu->rows_fn[1] = fns[1];
        for (int e = 0; e < 4; e++)
            gpu->copy_fn[e] = fns[2 + e];
        for (int e = 0; e < 4; e++)
            gpu->gather_fn[e / 2][e % 2] = fns[6 + e];
        for (int i = 0; i < nk; i++) {
            const KernelsKernel *k = kernels_kernel_at(kp, i);
            for (int o = 0, j = first[i]; o < k->noutputs; o++)
                if (k->outputs[o].blocks > 0) {
                    gpu->function_names[i][o] = names[j];
                    gpu->functions[i][o] = fns[j++];
                }
        }
    } else {
        fprintf(err, "tssa-stream: error: cuda (%s): %s\n", gpu->dev->name, gpu->dev->error);
    }
    gpu->names = names;
    gpu->nnames = at;
    free(fns);
    free(first);
    free(source);
    return ok;
}

CudaBackend *cuda_backend_open(KernelProgram *kp, const CudaOptions *o, FILE *err)
{
    int ndevices = o->devices > 0 ? o->devices : 1;
    if (ndevices > CUDA_MAX_DEVICES)
        ndevices = CUDA_MAX_DEVICES;
    /* one GPU per device as far as there are GPUs (from o->device on, in
     * turn); emulated GPUs are as many as asked (o->emulated_gpus; 0: one
     * per device), each with memory of its own */
    int ngpus = ndevices, count = 0;
    if (!o->emulate) {
        count = cuda_device_count(NULL);
        if (count > 0 && ngpus > count)
            ngpus = count;
    } else if (o->emulated_gpus > 0 && o->emulated_gpus < ngpus) {
        ngpus = o->emulated_gpus;
    }
    CudaBackend *cb = xcalloc(1, sizeof *cb);
    cb->kp = kp;
    cb->ndevices = ndevices;
    for (int g = 0; g < ngpus; g++) {
        Device *dev = o->emulate ? cuda_emulated_open(o->device + g, err)
                                 : cuda_driver_open(count > 0 ? (o->device + g) % count : o->device + g, err);
        if (!dev) {
            cuda_backend_close(cb);
            return NULL;
        }
        cb->gpus[cb->ngpus++].dev = dev;
        if (!load_kernels(cb, g, err)) {
            cuda_backend_close(cb);
            return NULL;
        }
    }
    /* device d on GPU d mod G, with a stream of its own there: the GPU's
     * first stream for the first device on it, a new one for the rest */
    for (int d = 0; d < ndevices; d++) {
        Lane *l = &cb->lanes[d];
        Device *dev = cb->gpus[d % ngpus].dev;
        l->gpu = d % ngpus;
        if (d < ngpus)
            l->stream = dev->stream;
        else if (!dev->ops->stream_open(dev, &l->stream)) {
            fprintf(err, "tssa-stream: error: cuda (%s): %s\n", dev->name, dev->error);
            cuda_backend_close(cb);
            return NULL;
        }
    }
    for (int g = 0; g < ngpus; g++)
        for (int h = 0; h < ngpus; h++)
            cb->peer[g][h] = g != h && cb->gpus[g].dev->ops->peer_enable(cb->gpus[g].dev, cb->gpus[h].dev);
    use_lane(cb, 0);
    const Device *first = cb->gpus[0].dev;
    if (ngpus == 1 && ndevices == 1)
        snprintf(cb->stats.device, sizeof cb->stats.device, "%s", first->name);
    else
        snprintf(cb->stats.device, sizeof cb->stats.device, "%d devices on %d x %s", ndevices, ngpus,
                 first->name);
    cb->stats.devices = ndevices;
    if (o->gpu_choice)
        snprintf(cb->stats.gpu_choice, sizeof cb->stats.gpu_choice, "%s", o->gpu_choice);
    cb->stats.gpus = ngpus;
    int pairs = 0, peers = 0;
    for (int g = 0; g < ngpus; g++)
        for (int h = 0; h < ngpus; h++)
            if (g != h) {
                pairs++;
                peers += cb->peer[g][h];
            }
    cb->stats.peer_pairs = peers;
    cb->stats.gpu_pairs = pairs;
    for (int g = 0; g < ngpus; g++)
        snprintf(cb->stats.bus_ids[g], sizeof cb->stats.bus_ids[g], "%s", cb->gpus[g].dev->pci_bus_id);
    reindex(cb);
    const char *check = getenv("TSSA_CUDA_GRAPH_CHECK");
    cb->graph.check = check && strcmp(check, "1") == 0;
    if (o->no_graphs) {
        cb->graph.phase = GRAPH_OFF;
        snprintf(cb->stats.graph_state, sizeof cb->stats.graph_state, "disabled (--no-graphs)");
    }
    cb->op_name = "the executor";
    cb->exec = (ExecDevice){.ctx = cb, .install = install, .to_host = items_to_host,
                            .prefetch = items_to_device, .sync = sync_devices,
                            .select = select_device, .end_run = end_run};
    return cb;
}

const ExecDevice *cuda_backend_device(CudaBackend *cb)
{
    return &cb->exec;
}

void cuda_backend_set_placement(CudaBackend *cb, const NodePlacement *placement)
{
    cb->placement = placement;
}

CudaStats cuda_backend_stats(const CudaBackend *cb)
{
    return cb->stats;
}

void cuda_backend_close(CudaBackend *cb)
{
    if (!cb)
        return;
    if (cb->ngpus)
        graph_destroy(cb);
    for (int g = 0; g < cb->ngpus; g++)
        cb->gpus[g].dev->ops->sync(cb->gpus[g].dev);
    for (int i = 0; i < cb->npinned; i++)
        cb->gpus[0].dev->ops->pinned_free(cb->gpus[0].dev, (void *)(uintptr_t)cb->pinned[i].dptr);
    free(cb->pinned);
    for (int i = 0; i < cb->nmirrors; i++) {
        for (int g = 0; g < cb->ngpus; g++)
            if (cb->mirrors[i].dptr[g])
                cb->gpus[g].dev->ops->release(cb->gpus[g].dev, cb->mirrors[i].dptr[g]);
        tensor_release(cb->mirrors[i].holder);
    }
    for (int g = 0; g < cb->ngpus; g++) {
        Gpu *gpu = &cb->gpus[g];
        for (int i = 0; i < gpu->npool; i++)
            gpu->dev->ops->release(gpu->dev, gpu->pool[i].dptr);
        if (gpu->gather_bad)
            gpu->dev->ops->release(gpu->dev, gpu->gather_bad);
        for (int i = 0; gpu->functions && i < kernels_count(cb->kp); i++) {
            free(gpu->functions[i]);
            free(gpu->function_names[i]);
        }
        free(gpu->functions);
        free(gpu->function_names);
        for (int i = 0; i < gpu->nnames; i++)
            free(gpu->names[i]);
        free(gpu->names);
        free(gpu->pool);
        gpu->dev->ops->close(gpu->dev);
    }
    free(cb->mirrors);
    free(cb->index);
    free(cb);
}
