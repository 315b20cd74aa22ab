/* channels.c — the MPI transport of channels between ranks
 * (ChannelTransport, backend.h).
 *
 * A message is the items one firing pushed on one channel, packed by
 * rt_wire_pack (eval/value_wire.c): a metadata block, then each data span
 * straight from the tensors' storage (no copy), all with the channel's
 * index as tag on the channels' own communicator. Sends are nonblocking:
 * the packed items stay referenced until MPI says their sends completed
 * (checked at every send, waited for at the end of a run). A receive
 * matches the channel's next metadata block from the producer's rank with
 * MPI_Mprobe/MPI_Mrecv (its size is not known in advance), then the spans
 * it announces; MPI keeps messages of one sender, tag and communicator in
 * order, so the spans that follow are that block's.
 */
#include <limits.h>
#include <stdlib.h>

#include "backends/mpi/mpi_internal.h"
#include "tssa/world.h"

#ifdef TSSA_USE_MPI

/* MPI counts are ints: spans move in pieces of at most 1 GiB. */
enum { PIECE = 1 << 30 };

typedef struct PendingSend {
    MPI_Request *requests;
    int nrequests;
    RtWireOut wire;
    RtValue **items;        /* referenced until the sends complete */
    int nitems;
} PendingSend;

static MPI_Comm channel_comm = MPI_COMM_NULL;
static int tag_limit;
static PendingSend *pending;
static int npending, cap_pending;

bool channels_start(FILE *err)
{
    if (MPI_Comm_dup(MPI_COMM_WORLD, &channel_comm) != MPI_SUCCESS) {
        fputs("tssa-stream: error: MPI: cannot make the channels' communicator\n", err);
        return false;
    }
    int *ub = NULL, found = 0;
    MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &ub, &found);
    tag_limit = found && ub ? *ub : 32767;
    return true;
}

static void pending_free(PendingSend *p)
{
    for (int i = 0; i < p->nitems; i++)
        rt_release(p->items[i]);
    free(p->items);
    free(p->requests);
    rt_wire_out_free(&p->wire);
}

/* Frees the sends that completed, keeping the others in order. */
static void reap(void)
{
    int kept = 0;
    for (int i = 0; i < npending; i++) {
        int done = 0;
        MPI_Testall(pending[i].nrequests, pending[i].requests, &done, MPI_STATUSES_IGNORE);
        if (done)
            pending_free(&pending[i]);
        else
            pending[kept++] = pending[i];
    }
    npending = kept;
}

static bool channel_send(int channel, int to_rank, RtValue *const *items, int n, FILE *err)
{
    if (channel > tag_limit) {
        fprintf(err, "tssa-stream: error: channel %d is beyond this MPI's largest tag (%d)\n", channel,
                tag_limit);
        return false;
    }
    reap();
    PendingSend p = {0};
    if (!rt_wire_pack(items, n, &p.wire)) {
        fprintf(err, "tssa-stream: error: out of memory packing channel %d's items\n", channel);
        return false;
    }
    int most = 1;
    for (int s = 0; s < p.wire.nspans; s++)
        most += (int)((p.wire.span_bytes[s] + PIECE - 1) / PIECE);
    p.requests = xcalloc((size_t)most, sizeof *p.requests);
    int rc = MPI_Isend(p.wire.meta, (int)(p.wire.meta_words * sizeof(int64_t)), MPI_BYTE, to_rank, channel,
                       channel_comm, &p.requests[p.nrequests++]);
    for (int s = 0; rc == MPI_SUCCESS && s < p.wire.nspans; s++) {
        const char *data = p.wire.span_data[s];
        for (size_t at = 0; rc == MPI_SUCCESS && at < p.wire.span_bytes[s]; at += PIECE) {
            size_t piece = p.wire.span_bytes[s] - at < PIECE ? p.wire.span_bytes[s] - at : PIECE;
            rc = MPI_Isend(data + at, (int)piece, MPI_BYTE, to_rank, channel, channel_comm,
                           &p.requests[p.nrequests++]);
        }
    }
    p.items = xcalloc((size_t)n + 1, sizeof *p.items);
    for (int i = 0; i < n; i++)
        p.items[p.nitems++] = rt_retain(items[i]);
    if (npending == cap_pending) {
        cap_pending = cap_pending ? 2 * cap_pending : 16;
        pending = xrealloc(pending, (size_t)cap_pending * sizeof *pending);
    }
    pending[npending++] = p;
    if (rc != MPI_SUCCESS) {
        fprintf(err, "tssa-stream: error: MPI_Isend of channel %d to rank %d failed\n", channel, to_rank);
        return false;
    }
    return true;
}

static RtValue **channel_recv(int channel, int from_rank, int *n, FILE *err)
{
    *n = 0;
    MPI_Message message;
    MPI_Status status;
    int count = 0;
    if (!world_wait_probe(from_rank, channel, channel_comm, &message, &status) ||
        MPI_Get_count(&status, MPI_BYTE, &count) != MPI_SUCCESS || count == MPI_UNDEFINED) {
        fprintf(err, "tssa-stream: error: MPI: no message on channel %d from rank %d\n", channel, from_rank);
        return NULL;
    }
    char *meta = xmalloc((size_t)count + 8);
    MPI_Mrecv(meta, count, MPI_BYTE, &message, MPI_STATUS_IGNORE);
    RtWireIn in;
    if (!rt_wire_begin(meta, (size_t)count, &in)) {
        fprintf(err, "tssa-stream: error: channel %d: a message from rank %d is not one this program sends\n",
                channel, from_rank);
        free(meta);
        return NULL;
    }
    for (int s = 0; s < in.nspans; s++) {
        char *data = in.span_data[s];
        for (size_t at = 0; at < in.span_bytes[s]; at += PIECE) {
            size_t piece = in.span_bytes[s] - at < PIECE ? in.span_bytes[s] - at : PIECE;
            MPI_Recv(data + at, (int)piece, MPI_BYTE, from_rank, channel, channel_comm, MPI_STATUS_IGNORE);
        }
    }
    RtValue **items = rt_wire_finish(&in, n);
    free(meta);
    if (!items)
        fprintf(err, "tssa-stream: error: channel %d: a message from rank %d does not read back\n", channel,
                from_rank);
    return items;
}

static bool channel_flush(FILE *err)
{
    (void)err;
    for (int i = 0; i < npending; i++) {
        world_wait_all(pending[i].nrequests, pending[i].requests);
        pending_free(&pending[i]);
    }
    npending = 0;
    return true;
}

void channels_finish(void)
{
    channel_flush(stderr);
    free(pending);
    pending = NULL;
    cap_pending = 0;
    if (channel_comm != MPI_COMM_NULL)
        MPI_Comm_free(&channel_comm);
}

static const ChannelTransport mpi_transport = {
    .send = channel_send,
    .recv = channel_recv,
    .flush = channel_flush,
};

const ChannelTransport *world_channel_transport(void)
{
    return world_size() > 1 ? &mpi_transport : NULL;
}

#endif
