/* mpi_internal.h — private to backends/mpi: what world.c and channels.c
 * share. */
#ifndef TSSA_MPI_INTERNAL_H
#define TSSA_MPI_INTERNAL_H

#include <stdbool.h>
#include <stdio.h>

#ifdef TSSA_USE_MPI
#include <mpi.h>

/* The channels' own communicator (a duplicate of the world), so channel
 * messages never match the driver's collectives. */
bool channels_start(FILE *err);
void channels_finish(void);
/* MPI_Mprobe that does not hold a core while it waits (world.c). */
bool world_wait_probe(int source, int tag, MPI_Comm comm, MPI_Message *message, MPI_Status *status);
/* MPI_Waitall, likewise. */
void world_wait_all(int n, MPI_Request *requests);
#endif

#endif
