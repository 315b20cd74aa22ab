/* world.c — the ranks of a run, through Open MPI (world.h).
 *
 * MPI starts only when a launcher started the process (mpirun sets
 * OMPI_COMM_WORLD_SIZE, PMIx launchers PMIX_RANK, others PMI_SIZE): a plain
 * `tssa-stream model.ir` never pays MPI's start-up or needs a launcher.
 * Collective helpers are thin wrappers that keep MPI's types out of the
 * driver. The channel transport is channels.c. Built without MPI
 * (TSSA_USE_MPI undefined) the world is one process.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "backends/mpi/mpi_internal.h"
#include "tssa/world.h"

bool world_built_with_mpi(void)
{
#ifdef TSSA_USE_MPI
    return true;
#else
    return false;
#endif
}

bool world_launched_by_mpirun(void)
{
    return getenv("OMPI_COMM_WORLD_SIZE") || getenv("PMIX_RANK") || getenv("PMI_SIZE");
}

/* --simulate-hosts: every rank its own host (world.h). Set before
 * world_start, which picks the transport from it. */
static bool simulating_hosts;

void world_simulate_hosts(bool on)
{
    simulating_hosts = on;
}

bool world_simulating_hosts(void)
{
    return simulating_hosts;
}

#ifdef TSSA_USE_MPI

/* local_*: the ranks of this rank's host as the run sees it (this rank
 * alone when simulating hosts); machine_*: the processes that really share
 * this machine's cores, which are shared out among them either way. */
static struct {
    bool started;
    int rank, size, local_rank, local_size, machine_rank, machine_size;
} world = {.size = 1, .local_size = 1, .machine_size = 1};

/* Simulated hosts talk only through messages over a network: Open MPI's
 * shared-memory paths between processes of one machine (the vader BTL,
 * UCX's shared-memory transports under pml ucx, coll sm's segment) are
 * taken away, leaving TCP over the loopback interface (the BTL self is a
 * rank's messages to itself). Open MPI reads these from the environment
 * in MPI_Init, so they are set just before it; the launcher's environment
 * is overridden, since a shared-memory transport would defeat the point. */
static void choose_network_transport(void)
{
    setenv("OMPI_MCA_pml", "ob1", 1);
    setenv("OMPI_MCA_btl", "self,tcp", 1);
    setenv("OMPI_MCA_btl_tcp_if_include", "lo", 1);
    setenv("OMPI_MCA_coll", "^sm", 1);
    /* Items up to 4 MiB go eagerly, whole, when sent: over TCP a larger
     * message waits for a handshake that the sender completes only inside
     * an MPI call, and a rank computing its next set's stage makes none, so
     * the next stage's rank stalled (a 2-stage pipeline of 512 KiB items
     * ran 1.7x slower than with these). A launcher's own values stay. */
    setenv("OMPI_MCA_btl_tcp_eager_limit", "4194304", 0);
    setenv("OMPI_MCA_btl_tcp_max_send_size", "4194304", 0);
}

bool world_start(int *argc, char ***argv, FILE *err)
{
    if (!world_launched_by_mpirun())
        return true;
    if (simulating_hosts)
        choose_network_transport();
    int provided = 0;
    if (MPI_Init_thread(argc, argv, MPI_THREAD_FUNNELED, &provided) != MPI_SUCCESS) {
        fputs("tssa-stream: error: MPI did not start\n", err);
        return false;
    }
    world.started = true;
    /* A failing call aborts the job with MPI's message (the default);
     * channels.c checks the results anyway and names the channel. */
    MPI_Comm_rank(MPI_COMM_WORLD, &world.rank);
    MPI_Comm_size(MPI_COMM_WORLD, &world.size);
    MPI_Comm host;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, world.rank, MPI_INFO_NULL, &host);
    MPI_Comm_rank(host, &world.machine_rank);
    MPI_Comm_size(host, &world.machine_size);
    MPI_Comm_free(&host);
    world.local_rank = simulating_hosts ? 0 : world.machine_rank;
    world.local_size = simulating_hosts ? 1 : world.machine_size;
    return channels_start(err);
}

/* Waiting ranks poll MPI for a moment, then sleep between polls: Open MPI
 * busy-polls in blocking calls, and a rank waiting for its input (or for
 * the others to finish) would take a core from the ranks doing the work,
 * which share the host's cores (each busy rank runs a thread per core).
 * The pauses grow from 20 us to 1 ms: a short wait (a message due soon)
 * ends within a few us of its message, and a long one (an idle rank
 * waiting for the job to end: 50 us pauses cost it a fifth of a core)
 * costs next to nothing. */
enum { SPIN_POLLS = 200, FIRST_PAUSE_NS = 20 * 1000, LONGEST_PAUSE_NS = 1000 * 1000 };

static void wait_a_little(int *polls)
{
    if (++*polls <= SPIN_POLLS)
        return;
    int doublings = (*polls - SPIN_POLLS) / 50;        /* twice as long every 50 pauses */
    long pause_ns = doublings >= 6 ? LONGEST_PAUSE_NS : (long)FIRST_PAUSE_NS << doublings;
    struct timespec pause = {0, pause_ns < LONGEST_PAUSE_NS ? pause_ns : LONGEST_PAUSE_NS};
    nanosleep(&pause, NULL);
}

bool world_wait_probe(int source, int tag, MPI_Comm comm, MPI_Message *message, MPI_Status *status)
{
    int found = 0, polls = 0;
    while (!found) {
        if (MPI_Improbe(source, tag, comm, &found, message, status) != MPI_SUCCESS)
            return false;
        if (!found)
            wait_a_little(&polls);
    }
    return true;
}

void world_wait_all(int n, MPI_Request *requests)
{
    int done = 0, polls = 0;
    while (!done && MPI_Testall(n, requests, &done, MPI_STATUSES_IGNORE) == MPI_SUCCESS)
        if (!done)
            wait_a_little(&polls);
}

static void wait_for(MPI_Request *request)
{
    world_wait_all(1, request);
}

void world_finish(void)
{
    if (!world.started)
        return;
    channels_finish();
    /* Ranks that finish early wait here without spinning. */
    MPI_Request all_done;
    MPI_Ibarrier(MPI_COMM_WORLD, &all_done);
    wait_for(&all_done);
    MPI_Finalize();
    world.started = false;
}

int world_rank(void) { return world.rank; }
int world_size(void) { return world.size; }
int world_local_rank(void) { return world.local_rank; }
int world_local_size(void) { return world.local_size; }
int world_machine_rank(void) { return world.machine_rank; }
int world_machine_size(void) { return world.machine_size; }

/* Under mpirun the rank leaves without MPI_Finalize: mpirun (Open MPI's
 * default) then ends every other rank and exits with this status. That is
 * what MPI_Abort asks for, but Open MPI 4.1's MPI_Abort path made mpirun
 * itself crash or hang now and then here (its help-text relay), so it is
 * kept for launchers that are not mpirun. */
_Noreturn void world_abort(int status)
{
    fflush(stdout);
    fflush(stderr);
    if (world.started && !getenv("OMPI_COMM_WORLD_SIZE"))
        MPI_Abort(MPI_COMM_WORLD, status);
    _exit(status);
}

void world_barrier(void)
{
    if (!world.started)
        return;
    MPI_Request done;
    MPI_Ibarrier(MPI_COMM_WORLD, &done);
    wait_for(&done);
}

/* One value of root's everywhere. Non-blocking and waited for with
 * pauses (wait_for): a rank waiting here while root works (calibrating
 * the rates, reading the inputs) leaves the cores to it, where a blocking
 * MPI_Bcast spins; a simulated host's spinning neighbour halved rank 0's
 * two-thread triad and math rates, which then stayed in the cache. */
static void share_value(void *value, MPI_Datatype type, int root)
{
    if (!world.started)
        return;
    MPI_Request done;
    MPI_Ibcast(value, 1, type, root, MPI_COMM_WORLD, &done);
    wait_for(&done);
}

int world_share_int(int value, int root)
{
    share_value(&value, MPI_INT, root);
    return value;
}

double world_share_double(double value, int root)
{
    share_value(&value, MPI_DOUBLE, root);
    return value;
}

uint64_t world_share_u64(uint64_t value, int root)
{
    share_value(&value, MPI_UINT64_T, root);
    return value;
}

/* Nonblocking and waited for without spinning: the driver's agreements
 * (every rank's status after a step) find some ranks waiting long for the
 * others, as world_barrier does. */
int world_max_int(int value)
{
    int most = value;
    if (world.started) {
        MPI_Request done;
        MPI_Iallreduce(&value, &most, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD, &done);
        wait_for(&done);
    }
    return most;
}

/* MPI counts are ints: large buffers move in pieces of at most 1 GiB. */
enum { PIECE = 1 << 30 };

void world_share_bytes(void **data, size_t *len, int root)
{
    if (!world.started)
        return;
    uint64_t n = *len;
    MPI_Bcast(&n, 1, MPI_UINT64_T, root, MPI_COMM_WORLD);
    if (world.rank != root) {
        *data = xmalloc(n + 1);
        ((char *)*data)[n] = '\0';
        *len = n;
    }
    for (uint64_t at = 0; at < n; at += PIECE) {
        uint64_t piece = n - at < PIECE ? n - at : PIECE;
        MPI_Bcast((char *)*data + at, (int)piece, MPI_BYTE, root, MPI_COMM_WORLD);
    }
}

/* len bytes at data, root's everywhere (the buffer exists on every rank). */
static void share_into(void *data, size_t len, int root)
{
    for (size_t at = 0; at < len; at += PIECE) {
        size_t piece = len - at < PIECE ? len - at : PIECE;
        MPI_Bcast((char *)data + at, (int)piece, MPI_BYTE, root, MPI_COMM_WORLD);
    }
}

/* Receives root's len bytes (share_into) without keeping them: a rank that
 * cannot take them still makes every broadcast the others make. */
static void share_into_nowhere(size_t len, int root)
{
    char *scratch = len ? xmalloc(len < PIECE ? len : PIECE) : NULL;
    for (size_t at = 0; at < len; at += PIECE) {
        size_t piece = len - at < PIECE ? len - at : PIECE;
        MPI_Bcast(scratch, (int)piece, MPI_BYTE, root, MPI_COMM_WORLD);
    }
    free(scratch);
}

/* Root sends the spans' sizes ahead of them, so that a rank that cannot
 * read the description (out of memory for the spans) still receives every
 * span with the others: the calls stay the same on every rank whatever
 * fails, and the caller's agreement ends the job. */
bool world_share_values(RtValue ***values, int *n, int root, FILE *err)
{
    if (!world.started)
        return true;
    int ok = 1;
    if (world.rank == root) {
        RtWireOut out;
        ok = rt_wire_pack(*values, *n, &out);
        ok = world_share_int(ok, root);
        if (!ok) {
            fputs("tssa-stream: error: out of memory packing the inputs for the other ranks\n", err);
            return false;
        }
        void *meta = out.meta;
        size_t bytes = out.meta_words * sizeof(int64_t);
        world_share_bytes(&meta, &bytes, root);
        uint64_t *sizes = xcalloc((size_t)out.nspans + 1, sizeof *sizes);
        for (int s = 0; s < out.nspans; s++)
            sizes[s] = out.span_bytes[s];
        void *sizes_data = sizes;
        size_t sizes_bytes = (size_t)out.nspans * sizeof *sizes;
        world_share_bytes(&sizes_data, &sizes_bytes, root);
        free(sizes);
        for (int s = 0; s < out.nspans; s++)
            share_into((void *)out.span_data[s], out.span_bytes[s], root);
        rt_wire_out_free(&out);
        return true;
    }
    if (!world_share_int(ok, root))
        return false;
    void *meta = NULL, *sizes_data = NULL;
    size_t bytes = 0, sizes_bytes = 0;
    world_share_bytes(&meta, &bytes, root);
    world_share_bytes(&sizes_data, &sizes_bytes, root);
    const uint64_t *sizes = sizes_data;
    size_t nspans = sizes_bytes / sizeof *sizes;
    RtWireIn in;
    bool readable = rt_wire_begin(meta, bytes, &in);
    if (readable && (size_t)in.nspans != nspans) {
        rt_wire_in_free(&in);
        readable = false;
    }
    if (!readable) {
        for (size_t s = 0; s < nspans; s++)
            share_into_nowhere(sizes[s], root);
        free(sizes_data);
        free(meta);
        fputs("tssa-stream: error: the inputs rank 0 sent do not read back\n", err);
        return false;
    }
    free(sizes_data);
    for (int s = 0; s < in.nspans; s++)
        share_into(in.span_data[s], in.span_bytes[s], root);
    *values = rt_wire_finish(&in, n);
    free(meta);
    if (!*values)
        fputs("tssa-stream: error: the inputs rank 0 sent do not read back\n", err);
    return *values != NULL;
}

char *world_gather_bytes(const void *data, size_t len, int root, size_t *all_len)
{
    *all_len = 0;
    if (!world.started) {
        char *copy = xmalloc(len + 1);
        memcpy(copy, data, len);
        copy[len] = '\0';
        *all_len = len;
        return copy;
    }
    /* Point to point from each rank in turn: a gather of unknown, possibly
     * large sizes without an int displacement limit. */
    if (world.rank != root) {
        uint64_t n = len;
        MPI_Send(&n, 1, MPI_UINT64_T, root, 0, MPI_COMM_WORLD);
        for (uint64_t at = 0; at < n; at += PIECE) {
            uint64_t piece = n - at < PIECE ? n - at : PIECE;
            MPI_Send((const char *)data + at, (int)piece, MPI_BYTE, root, 0, MPI_COMM_WORLD);
        }
        return NULL;
    }
    size_t total = len, cap = len + 1;
    char *all = xmalloc(cap);
    memcpy(all, data, len);
    for (int r = 0; r < world.size; r++) {
        if (r == root)
            continue;
        uint64_t n = 0;
        MPI_Recv(&n, 1, MPI_UINT64_T, r, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        if (total + n + 1 > cap) {
            cap = total + n + 1;
            all = xrealloc(all, cap);
        }
        for (uint64_t at = 0; at < n; at += PIECE) {
            uint64_t piece = n - at < PIECE ? n - at : PIECE;
            MPI_Recv(all + total + at, (int)piece, MPI_BYTE, r, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        }
        total += n;
    }
    all[total] = '\0';
    *all_len = total;
    return all;
}

/* Ranks 0 and 1 bounce a small and a large message: latency is half the
 * small round trip, bandwidth the large message over half its round trip
 * less the latency. The best of a few rounds, to skip warm-up. */
void world_measure_link(double *latency, double *bandwidth)
{
    if (!world.started || world.size < 2)
        return;
    enum { SMALL_ROUNDS = 50, LARGE_ROUNDS = 5, LARGE = 4 << 20 };
    double measured[2] = {*latency, *bandwidth};
    if (world.rank < 2) {
        char *buf = xcalloc(LARGE, 1);
        int peer = 1 - world.rank;
        double best_small = 1e9, best_large = 1e9;
        for (int size = 8, rounds = SMALL_ROUNDS; size; size = size == 8 ? LARGE : 0, rounds = LARGE_ROUNDS) {
            for (int i = 0; i < rounds; i++) {
                double t0 = MPI_Wtime();
                if (world.rank == 0) {
                    MPI_Send(buf, size, MPI_BYTE, peer, 1, MPI_COMM_WORLD);
                    MPI_Recv(buf, size, MPI_BYTE, peer, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                } else {
                    MPI_Recv(buf, size, MPI_BYTE, peer, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                    MPI_Send(buf, size, MPI_BYTE, peer, 1, MPI_COMM_WORLD);
                }
                double half = (MPI_Wtime() - t0) / 2;
                if (size == 8)
                    best_small = half < best_small ? half : best_small;
                else
                    best_large = half < best_large ? half : best_large;
            }
        }
        free(buf);
        measured[0] = best_small;
        double wire = best_large - best_small;
        measured[1] = wire > 0 ? LARGE / wire : *bandwidth;
    }
    MPI_Bcast(measured, 2, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    *latency = measured[0];
    *bandwidth = measured[1];
}

#else   /* one process */

bool world_start(int *argc, char ***argv, FILE *err)
{
    (void)argc;
    (void)argv;
    (void)err;
    return true;
}
void world_finish(void) {}
int world_rank(void) { return 0; }
int world_size(void) { return 1; }
int world_local_rank(void) { return 0; }
int world_local_size(void) { return 1; }
int world_machine_rank(void) { return 0; }
int world_machine_size(void) { return 1; }
_Noreturn void world_abort(int status)
{
    fflush(stdout);
    fflush(stderr);
    exit(status);
}
void world_barrier(void) {}
int world_share_int(int value, int root) { (void)root; return value; }
double world_share_double(double value, int root) { (void)root; return value; }
int world_max_int(int value) { return value; }
uint64_t world_share_u64(uint64_t value, int root) { (void)root; return value; }
void world_share_bytes(void **data, size_t *len, int root)
{
    (void)data;
    (void)len;
    (void)root;
}
bool world_share_values(RtValue ***values, int *n, int root, FILE *err)
{
    (void)values;
    (void)n;
    (void)root;
    (void)err;
    return true;
}
char *world_gather_bytes(const void *data, size_t len, int root, size_t *all_len)
{
    (void)root;
    char *copy = xmalloc(len + 1);
    memcpy(copy, data, len);
    copy[len] = '\0';
    *all_len = len;
    return copy;
}
void world_measure_link(double *latency, double *bandwidth)
{
    (void)latency;
    (void)bandwidth;
}
const ChannelTransport *world_channel_transport(void) { return NULL; }

#endif
