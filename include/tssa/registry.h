/* registry.h — the table of the backends this build has (backends/registry.c):
 * the one place they are listed, in order of preference, and how the driver
 * finds one by name. Each entry is a BackendIface (backend.h). Beside it,
 * the placement of a plan's nodes on the chosen backend's device
 * (backends/placement.c). */
#ifndef TSSA_REGISTRY_H
#define TSSA_REGISTRY_H

#include <stdbool.h>

#include "tssa/backend.h"
#include "tssa/stream.h"

/* The backends of this build, most preferred first, NULL-terminated. */
extern const BackendIface *const tssa_backends[];

/* The backend named name, or NULL: then *why is NULL for a name no build
 * knows, or says why this build lacks it (a static string). */
const BackendIface *backend_find(const char *name, const char **why);
/* A run's backend without --backend: the first of the table that is
 * available and preferred (the last, ever available, when none is). */
const BackendIface *backend_default(void);
/* b's place in the table (the ranks compare it), -1 for NULL. */
int backend_index(const BackendIface *b);
/* Every backend name a build may know, this one's and those it was built
 * without, in name order, ", "-separated: for an unknown --backend. */
const char *backend_all_names(void);
/* The backend whose plan places filters on devices (--devices N), or NULL:
 * *absent_name and *absent_kind then name one this build lacks and its
 * kind of device, or are NULL. */
const BackendIface *backend_with_devices(const char **absent_name, const char **absent_kind);

/* placement.c: each node of the program's graph (lowered, after fusion;
 * kp its kernels) placed with b's supports_node, when the plan is built. */
NodePlacement *node_placement_build(const BackendIface *b, const LowerProgram *program, const KernelProgram *kp);
void node_placement_free(NodePlacement *p);
/* A work filter under n (the lowered stream graph, after devices were
 * given: sched_place_devices) none of whose nodes the placement put on the
 * device gets none (StreamFilter.device -1: "cpu" in --emit=schedule). */
void node_placement_mark_filters(const NodePlacement *p, StreamNode *n);
/* --emit=placement: node, op, source line, device and, for a node kept on
 * the host, why; then the counts. */
void node_placement_print(FILE *out, const NodePlacement *p);

#endif
