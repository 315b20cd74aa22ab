/* cuda_gpu_choice.c — which GPU a rank takes: the one closest to its cores.
 *
 * Each GPU's PCI bus id comes from the driver (cuDeviceGetPCIBusId; the
 * shim's from TSSA_CUDA_EMULATE_PCI), its NUMA node from sysfs
 * (/sys/bus/pci/devices/<bus id>/numa_node), and the rank's node from the
 * cores it is bound to (sched_getaffinity against each
 * /sys/devices/system/node/nodeN/cpulist: the node holding most of them).
 * hwloc is not asked: its CUDA plugin listed no GPU on the lent H100.
 *
 * The GPUs on the rank's node are the candidates (all of them when none
 * is, or a node is unknown); the rank takes candidate local_rank mod their
 * count, so the ranks of one node spread over its GPUs.
 *
 * TSSA_SYSFS_ROOT (default "/sys") moves the sysfs tree, for the tests.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backends/cuda/cuda_device.h"
#include "backends/cuda/cuda_gpu_choice.h"
#include "tssa/cuda.h"

static const char *sysfs_root(void)
{
    const char *r = getenv("TSSA_SYSFS_ROOT");
    return r && *r ? r : "/sys";
}

/* bus id as sysfs names it: lower case, a 4-digit domain ("00000000:3B:00.0"
 * -> "0000:3b:00.0"). */
static void sysfs_bus_id(const char *bus_id, char *out, size_t cap)
{
    const char *colon = strchr(bus_id, ':');
    const char *from = bus_id;
    if (colon && colon - bus_id > 4)
        from = colon - 4;
    size_t i = 0;
    for (; from[i] && i + 1 < cap; i++)
        out[i] = (char)tolower((unsigned char)from[i]);
    out[i] = '\0';
}

int cuda_gpu_numa_node(const char *bus_id)
{
    if (!bus_id || !*bus_id)
        return -1;
    char id[40], path[512];
    sysfs_bus_id(bus_id, id, sizeof id);
    snprintf(path, sizeof path, "%s/bus/pci/devices/%s/numa_node", sysfs_root(), id);
    FILE *f = fopen(path, "r");
    if (!f)
        return -1;
    int node = -1;
    if (fscanf(f, "%d", &node) != 1)
        node = -1;
    fclose(f);
    return node;        /* -1 also where the kernel knows no node */
}

/* How many of the CPUs in `set` the cpulist text ("0-3,8,10-11") names. */
static int cpus_in_list(const char *list, const cpu_set_t *set)
{
    int n = 0;
    const char *p = list;
    while (*p) {
        char *end;
        long a = strtol(p, &end, 10);
        if (end == p)
            break;
        long b = a;
        p = end;
        if (*p == '-') {
            b = strtol(p + 1, &end, 10);
            p = end;
        }
        for (long c = a; c <= b && c < CPU_SETSIZE; c++)
            n += c >= 0 && CPU_ISSET((int)c, set);
        while (*p == ',' || *p == '\n' || *p == ' ')
            p++;
    }
    return n;
}

int cuda_rank_numa_node(void)
{
    cpu_set_t set;
    CPU_ZERO(&set);
    if (sched_getaffinity(0, sizeof set, &set) != 0)
        return -1;
    int best = -1, best_count = 0;
    for (int node = 0; node < 1024; node++) {
        char path[512], text[4096];
        snprintf(path, sizeof path, "%s/devices/system/node/node%d/cpulist", sysfs_root(), node);
        FILE *f = fopen(path, "r");
        if (!f) {
            if (node > 64)
                break;          /* node numbers may have gaps; not this many */
            continue;
        }
        size_t len = fread(text, 1, sizeof text - 1, f);
        fclose(f);
        text[len] = '\0';
        int count = cpus_in_list(text, &set);
        if (count > best_count) {
            best = node;
            best_count = count;
        }
    }
    return best;
}

int cuda_choose_gpu(int ngpus, const int *gpu_node, int rank_node, int local_rank, char *why, size_t cap)
{
    if (ngpus <= 0)
        return 0;
    int candidates[64], n = 0;
    for (int g = 0; g < ngpus && n < 64; g++)
        if (rank_node >= 0 && gpu_node[g] == rank_node)
            candidates[n++] = g;
    int lr = local_rank > 0 ? local_rank : 0;
    if (n > 0) {
        int g = candidates[lr % n];
        snprintf(why, cap, "on the rank's NUMA node %d (%d GPU%s there; local rank %d mod %d)", rank_node, n,
                 n == 1 ? "" : "s", lr, n);
        return g;
    }
    int g = lr % ngpus;
    if (rank_node < 0)
        snprintf(why, cap, "the rank's NUMA node is unknown: local rank %d mod %d GPUs", lr, ngpus);
    else
        snprintf(why, cap, "no GPU on the rank's NUMA node %d: local rank %d mod %d GPUs", rank_node, lr, ngpus);
    return g;
}

void cuda_print_gpus(FILE *out, bool emulate, int local_rank)
{
    int count = emulate ? cuda_emulated_count() : cuda_driver_count(NULL);
    if (count <= 0) {
        fprintf(out, "cuda: no GPU\n");
        return;
    }
    fprintf(out, "cuda: %d GPU%s%s, NUMA nodes from %s/bus/pci/devices/*/numa_node; this rank's cores on node %d\n",
            count, count == 1 ? "" : "s", emulate ? " (emulated: TSSA_CUDA_EMULATE_PCI)" : "", sysfs_root(),
            cuda_rank_numa_node());
    for (int g = 0; g < count && g < 64; g++) {
        char bus[32];
        if (emulate)
            cuda_emulated_bus_id(g, bus, sizeof bus);
        else if (!cuda_driver_bus_id(g, bus, sizeof bus))
            snprintf(bus, sizeof bus, "bus id unknown");
        fprintf(out, "  GPU %d: %s, NUMA node %d\n", g, bus, cuda_gpu_numa_node(bus));
    }
    char why[256];
    cuda_gpu_for_rank(emulate, local_rank, why, sizeof why);
    fprintf(out, "  local rank %d takes %s\n", local_rank, why);
}

int cuda_gpu_for_rank(bool emulate, int local_rank, char *why, size_t cap)
{
    int count = emulate ? cuda_emulated_count() : cuda_driver_count(NULL);
    if (count <= 0) {
        snprintf(why, cap, "no GPU");
        return 0;
    }
    if (count > 64)
        count = 64;
    int node[64];
    char bus[64][32];
    for (int g = 0; g < count; g++) {
        if (emulate)
            cuda_emulated_bus_id(g, bus[g], sizeof bus[g]);
        else if (!cuda_driver_bus_id(g, bus[g], sizeof bus[g]))
            bus[g][0] = '\0';
        node[g] = cuda_gpu_numa_node(bus[g]);
    }
    int rank_node = cuda_rank_numa_node();
    char reason[200];
    int g = cuda_choose_gpu(count, node, rank_node, local_rank, reason, sizeof reason);
    char where[48] = "NUMA node unknown";
    if (node[g] >= 0)
        snprintf(where, sizeof where, "NUMA node %d", node[g]);
    snprintf(why, cap, "GPU %d of %d (%s, %s): %s", g, count, bus[g][0] ? bus[g] : "bus id unknown", where, reason);
    return g;
}
