/* world.h — the ranks of a run (backends/mpi), through Open MPI.
 *
 * Under `mpirun -np N` the N processes form one world: every rank compiles
 * the same plan, rank 0 reads the inputs and writes the outputs, and the
 * channels that cross ranks carry their items as MPI messages
 * (world_channel_transport). Started any other way (no mpirun), or built
 * without MPI, the world is this one process: rank 0 of 1, and every call
 * here is a cheap no-op.
 */
#ifndef TSSA_WORLD_H
#define TSSA_WORLD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "tssa/backend.h"

/* Whether this build has MPI (TSSA_USE_MPI). */
bool world_built_with_mpi(void);
/* Whether the process was started by mpirun (or another MPI launcher),
 * read from the launcher's environment before MPI starts. */
bool world_launched_by_mpirun(void);
/* --simulate-hosts: every rank behaves as if alone on its own host. Called
 * before world_start, which then keeps Open MPI off shared memory (TCP
 * over loopback only, world.c) and makes each rank its host's only rank
 * (world_local_*); the ranks still share this machine's cores
 * (world_machine_*). Without mpirun it only records the wish. */
void world_simulate_hosts(bool on);
bool world_simulating_hosts(void);
/* Starts MPI when launched by mpirun (MPI_Init_thread, funneled). False
 * after writing why to err. */
bool world_start(int *argc, char ***argv, FILE *err);
/* MPI_Finalize when started. */
void world_finish(void);
int world_rank(void);
int world_size(void);
/* This rank among the ranks on its host, and how many share the host. */
int world_local_rank(void);
int world_local_size(void);
/* This rank among the processes really running on this machine, and how
 * many: the same as world_local_* unless hosts are simulated, when the
 * machine's cores are still shared out among these. */
int world_machine_rank(void);
int world_machine_size(void);
/* Ends every rank of the job now with status (world.c says how); exits when the
 * world is one process. */
_Noreturn void world_abort(int status);

/* Collective calls (every rank calls them, in the same order). */
void world_barrier(void);
int world_share_int(int value, int root);          /* root's value, everywhere */
double world_share_double(double value, int root);
/* Root's bytes everywhere: on root *data and *len are read; elsewhere *data
 * receives a new malloc'd buffer (NUL-terminated beyond *len). */
void world_share_bytes(void **data, size_t *len, int root);
/* Root's values everywhere (rank 0 reads the inputs; the others need them
 * to compile the same plan): on the other ranks *values and *n receive
 * new ones. False after writing why to err. */
bool world_share_values(RtValue ***values, int *n, int root, FILE *err);
/* Every rank's bytes, concatenated in rank order on root (a new buffer
 * there, *all_len its length; NULL elsewhere). */
char *world_gather_bytes(const void *data, size_t len, int root, size_t *all_len);
uint64_t world_share_u64(uint64_t value, int root);
/* The largest of every rank's value, everywhere. */
int world_max_int(int value);

/* Latency (seconds) and bandwidth (bytes/s) between ranks 0 and 1, from a
 * short ping-pong; every rank gets rank 0's figures. With one rank, or no
 * MPI, *latency and *bandwidth are left as they are (defaults). */
void world_measure_link(double *latency, double *bandwidth);

/* The transport the cpu executor uses for channels whose ends are on
 * different ranks (nonblocking sends of packed items, matched receives);
 * NULL when the world is one process. */
const ChannelTransport *world_channel_transport(void);

#endif
