/* cuda_gpu_choice.h — the GPU closest to a rank's cores (private to
 * backends/cuda/; cuda_gpu_choice.c says how). */
#ifndef TSSA_CUDA_GPU_CHOICE_H
#define TSSA_CUDA_GPU_CHOICE_H

#include <stddef.h>

/* The NUMA node sysfs gives the PCI device bus_id ("0000:41:00.0", any
 * case, a domain of 4 or 8 digits), or -1 when unknown. */
int cuda_gpu_numa_node(const char *bus_id);
/* The NUMA node holding most of the CPUs this process may run on, or -1. */
int cuda_rank_numa_node(void);
/* The GPU (0 .. ngpus-1) for local rank local_rank on node rank_node, of
 * GPUs on nodes gpu_node[]: one on the rank's node (local rank mod their
 * count), else local rank mod ngpus. why gets one line saying which. */
int cuda_choose_gpu(int ngpus, const int *gpu_node, int rank_node, int local_rank, char *why, size_t cap);

#endif
