/* topology.c — the host's topology, and which of its cores each rank on the
 * host runs on (the interface is in include/tssa/machine.h).
 *
 * hwloc gives the counts (physical cores, hardware threads, NUMA nodes,
 * packages), the size of one L1d, L2 and L3 cache, and the GPUs. A GPU shows
 * as several OS devices (the DRM "card0", NVML "nvml0", CUDA "cuda0"), all
 * children of one PCI device, so GPUs are counted by PCI device. Disallowed
 * cores (outside the cgroup's cpuset) are left out by hwloc itself, so a
 * container sees the cores it may use.
 *
 * The ranks of one host split its cores into contiguous blocks, in hwloc's
 * logical order (which keeps a package's and a NUMA node's cores together):
 * each rank's threads then share caches with each other and not with another
 * rank's. Binding is to whole cores (every hardware thread of each), with
 * one thread per core: the kernels are bandwidth- and FMA-bound, and two
 * hyperthreads on one core share both.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tssa/machine.h"

#ifdef TSSA_USE_HWLOC
#include <hwloc.h>
#endif
#ifdef TSSA_USE_OPENMP
#include <omp.h>
#endif

/* How many GPUs a MachineTopology names. */
static int gpu_name_slots(const MachineTopology *t)
{
    return (int)(sizeof t->gpu_names / sizeof t->gpu_names[0]);
}

/* ---------------------------------------------------------------- reading */

#ifdef TSSA_USE_HWLOC
/* The type that stands for a physical core: some virtual machines give
 * hwloc no core objects, and then each hardware thread counts as one. */
static hwloc_obj_type_t core_type(hwloc_topology_t topo)
{
    return hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_CORE) > 0 ? HWLOC_OBJ_CORE : HWLOC_OBJ_PU;
}

static int64_t first_cache_size(hwloc_topology_t topo, hwloc_obj_type_t type)
{
    hwloc_obj_t cache = hwloc_get_obj_by_type(topo, type, 0);
    return cache ? (int64_t)cache->attr->cache.size : 0;
}

static bool is_gpu_osdev(hwloc_obj_t dev)
{
    if (dev->attr->osdev.type == HWLOC_OBJ_OSDEV_GPU)
        return true;
    return dev->attr->osdev.type == HWLOC_OBJ_OSDEV_COPROC && dev->subtype && strcmp(dev->subtype, "CUDA") == 0;
}

/* The model name of the GPU under PCI device `pci` (or of the lone OS device
 * `dev` when it has no PCI parent): an OS device's GPUModel (NVML, CUDA,
 * OpenCL), else the PCI database's name, else the OS device's own name. */
static void gpu_name(hwloc_obj_t pci, hwloc_obj_t dev, char *name, size_t cap)
{
    const char *model = NULL;
    if (pci)
        for (hwloc_obj_t child = pci->io_first_child; child && !model; child = child->next_sibling)
            if (child->type == HWLOC_OBJ_OS_DEVICE)
                model = hwloc_obj_get_info_by_name(child, "GPUModel");
    if (!model)
        model = hwloc_obj_get_info_by_name(dev, "GPUModel");
    if (!model && pci)
        model = hwloc_obj_get_info_by_name(pci, "PCIDevice");
    snprintf(name, cap, "%s", model ? model : dev->name);
}

/* A GPU shows as several OS devices under one PCI device: the first counts. */
static bool first_gpu_of_its_pci_device(hwloc_obj_t dev)
{
    if (!dev->parent || dev->parent->type != HWLOC_OBJ_PCI_DEVICE)
        return true;
    for (hwloc_obj_t before = dev->parent->io_first_child; before != dev; before = before->next_sibling)
        if (before->type == HWLOC_OBJ_OS_DEVICE && is_gpu_osdev(before))
            return false;
    return true;
}

static void read_gpus(hwloc_topology_t topo, MachineTopology *t)
{
    for (hwloc_obj_t dev = hwloc_get_next_osdev(topo, NULL); dev; dev = hwloc_get_next_osdev(topo, dev)) {
        if (!is_gpu_osdev(dev) || !first_gpu_of_its_pci_device(dev))
            continue;
        hwloc_obj_t pci = dev->parent && dev->parent->type == HWLOC_OBJ_PCI_DEVICE ? dev->parent : NULL;
        if (t->ngpus < gpu_name_slots(t))
            gpu_name(pci, dev, t->gpu_names[t->ngpus], sizeof t->gpu_names[0]);
        t->ngpus++;
    }
}

static bool read_with_hwloc(MachineTopology *t, FILE *err)
{
    hwloc_topology_t topo;
    if (hwloc_topology_init(&topo) != 0) {
        fprintf(err, "tssa-stream: error: hwloc cannot start (%s)\n", strerror(errno));
        return false;
    }
    /* I/O objects are dropped by default; the GPUs are OS devices. The
     * OpenCL and GL plugins are left out: they start an OpenCL platform
     * (PoCL here) or an X connection just to name devices, which costs
     * start-up time and leaks what those libraries never free. */
    hwloc_topology_set_io_types_filter(topo, HWLOC_TYPE_FILTER_KEEP_IMPORTANT);
    hwloc_topology_set_components(topo, HWLOC_TOPOLOGY_COMPONENTS_FLAG_BLACKLIST, "opencl");
    hwloc_topology_set_components(topo, HWLOC_TOPOLOGY_COMPONENTS_FLAG_BLACKLIST, "gl");
    if (hwloc_topology_load(topo) != 0) {
        fprintf(err, "tssa-stream: error: hwloc cannot read the topology (%s)\n", strerror(errno));
        hwloc_topology_destroy(topo);
        return false;
    }
    t->cores = hwloc_get_nbobjs_by_type(topo, core_type(topo));
    t->pus = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_PU);
    t->numa_nodes = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_NUMANODE);
    t->packages = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_PACKAGE);
    t->l1d_bytes = first_cache_size(topo, HWLOC_OBJ_L1CACHE);
    t->l2_bytes = first_cache_size(topo, HWLOC_OBJ_L2CACHE);
    t->l3_bytes = first_cache_size(topo, HWLOC_OBJ_L3CACHE);
    read_gpus(topo, t);
    t->from_hwloc = true;
    hwloc_topology_destroy(topo);
    if (t->cores < 1) {
        fprintf(err, "tssa-stream: error: hwloc finds no usable cores\n");
        return false;
    }
    return true;
}
#endif

bool machine_topology_read(MachineTopology *t, FILE *err)
{
    memset(t, 0, sizeof *t);
    if (gethostname(t->host, sizeof t->host - 1) != 0) {
        fprintf(err, "tssa-stream: error: cannot read the host name (%s)\n", strerror(errno));
        return false;
    }
#ifdef TSSA_USE_HWLOC
    return read_with_hwloc(t, err);
#else
    long online = sysconf(_SC_NPROCESSORS_ONLN);
    if (online < 1) {
        fprintf(err, "tssa-stream: error: cannot count the processors (%s)\n", strerror(errno));
        return false;
    }
    t->cores = t->pus = (int)online;
    return true;
#endif
}

/* ---------------------------------------------------------------- binding */

RankBinding machine_binding_plan(const MachineTopology *t, int local_rank, int local_size)
{
    RankBinding b = { .local_rank = local_rank, .local_size = local_size };
    int64_t cores = t->cores;
    if (local_size > cores) {
        b.oversubscribed = true;
        b.first_core = (int)(local_rank % cores);
        b.ncores = 1;
    } else {
        b.first_core = (int)(local_rank * cores / local_size);
        b.ncores = (int)((local_rank + 1) * cores / local_size) - b.first_core;
    }
    b.threads = b.ncores;
    return b;
}

/* OpenMP's threads; OpenBLAS stays single-threaded (tensor/linalg.c runs
 * a product's panels on OpenMP's threads, so results do not depend on the
 * thread count). */
static void set_thread_counts(int threads)
{
#ifdef TSSA_USE_OPENMP
    omp_set_num_threads(threads);
#else
    (void)threads;
#endif
}

#ifdef TSSA_USE_HWLOC
/* Binds the whole process (every thread it has) to the cores; on failure
 * `why` says what went wrong. */
static bool bind_to_cores(int first_core, int ncores, const char **why)
{
    hwloc_topology_t topo;
    if (hwloc_topology_init(&topo) != 0) {
        *why = strerror(errno);
        return false;
    }
    if (hwloc_topology_load(topo) != 0) {
        *why = strerror(errno);
        hwloc_topology_destroy(topo);
        return false;
    }
    hwloc_obj_type_t type = core_type(topo);
    hwloc_bitmap_t cpus = hwloc_bitmap_alloc();
    bool ok = true;
    for (int i = first_core; i < first_core + ncores && ok; i++) {
        hwloc_obj_t core = hwloc_get_obj_by_type(topo, type, (unsigned)i);
        if (core)
            hwloc_bitmap_or(cpus, cpus, core->cpuset);
        else {
            *why = "no such core";
            ok = false;
        }
    }
    if (ok && hwloc_set_cpubind(topo, cpus, HWLOC_CPUBIND_PROCESS) != 0) {
        *why = strerror(errno);
        ok = false;
    }
    hwloc_bitmap_free(cpus);
    hwloc_topology_destroy(topo);
    return ok;
}
#endif

bool machine_bind(const RankBinding *b, FILE *err)
{
    set_thread_counts(b->threads);
#ifdef TSSA_USE_HWLOC
    const char *why = NULL;
    if (!bind_to_cores(b->first_core, b->ncores, &why)) {
        fprintf(err, "tssa-stream: warning: cannot bind local rank %d to cores %d-%d (%s); running unbound\n",
                b->local_rank, b->first_core, b->first_core + b->ncores - 1, why);
        return false;
    }
#endif
    return true;
}

/* ---------------------------------------------------------------- printing */

/* "48 KiB", "2 MiB", "none". */
static void print_cache(FILE *out, const char *level, int64_t bytes)
{
    if (bytes == 0)
        fprintf(out, "%s none", level);
    else if (bytes % (1 << 20) == 0)
        fprintf(out, "%s %lld MiB", level, (long long)(bytes >> 20));
    else
        fprintf(out, "%s %lld KiB", level, (long long)(bytes >> 10));
}

void machine_topology_print(FILE *out, const MachineTopology *t, const RankBinding *bindings, const int *world_ranks,
                            int n)
{
    fprintf(out, "host: %s\n", t->host);
    fprintf(out, "cores: %d physical, %d hardware threads\n", t->cores, t->pus);
    if (t->from_hwloc) {
        fprintf(out, "NUMA nodes: %d, packages: %d\n", t->numa_nodes, t->packages);
        fputs("caches: ", out);
        print_cache(out, "L1d", t->l1d_bytes);
        print_cache(out, ", L2", t->l2_bytes);
        print_cache(out, ", L3", t->l3_bytes);
        fputs("\ngpus: ", out);
        if (t->ngpus == 0)
            fputs("none", out);
        else
            fprintf(out, "%d", t->ngpus);
        int named = t->ngpus < gpu_name_slots(t) ? t->ngpus : gpu_name_slots(t);
        for (int i = 0; i < named; i++)
            fprintf(out, "%s%s", i ? ", " : " (", t->gpu_names[i]);
        fputs(named ? ")\n" : "\n", out);
    } else {
        fputs("NUMA nodes, packages, caches, gpus: unknown (built without hwloc)\n", out);
    }
    for (int i = 0; i < n; i++) {
        const RankBinding *b = &bindings[i];
        fprintf(out, "rank %d (%slocal %d of %d): cores %d-%d, %d threads%s\n", world_ranks[i],
                b->own_host ? "its own simulated host, " : "", b->local_rank, b->local_size, b->first_core,
                b->first_core + b->ncores - 1, b->threads,
                b->oversubscribed ? ", oversubscribed" : "");
    }
}
