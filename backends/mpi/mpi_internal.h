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
#endif

#endif
