/* test_machine.c — the machine model (scheduler/topology.c,
 * scheduler/device_rates.c).
 *
 * Binding plans are checked against blocks worked out by hand from
 * [floor(r*C/L), floor((r+1)*C/L)), and the printed form of a made-up
 * topology against its text. The host's own topology must read (at least
 * one core) and binding the process to all of it must work or warn.
 * Device rates: an override file gives its numbers (the missing key its
 * default), a bad one is refused naming the file, and a calibration into an
 * empty cache folder writes the one file that the next call reads back; a
 * cached file someone else could have written is not read.
 */
#define _GNU_SOURCE             /* nftw */
#include <dirent.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "test_util.h"
#include "tssa/machine.h"

static char root[4096];

/* ---------------------------------------------------------------- topology */

static void check_block(const MachineTopology *t, int rank, int size, int first, int ncores, bool oversubscribed)
{
    RankBinding b = machine_binding_plan(t, rank, size);
    CHECK_MSG(b.local_rank == rank && b.local_size == size && b.first_core == first && b.ncores == ncores &&
                  b.threads == ncores && b.oversubscribed == oversubscribed,
              "C=%d rank %d of %d: got cores %d+%d, %d threads, oversubscribed %d; want %d+%d", t->cores, rank,
              size, b.first_core, b.ncores, b.threads, b.oversubscribed, first, ncores);
}

static void test_binding_plans(void)
{
    MachineTopology two = { .cores = 2, .pus = 4 };
    check_block(&two, 0, 1, 0, 2, false);
    check_block(&two, 0, 2, 0, 1, false);
    check_block(&two, 1, 2, 1, 1, false);
    for (int r = 0; r < 4; r++)
        check_block(&two, r, 4, r % 2, 1, true);

    /* 16 cores, 3 ranks: floor(16/3) = 5, floor(32/3) = 10. */
    MachineTopology sixteen = { .cores = 16, .pus = 32 };
    check_block(&sixteen, 0, 3, 0, 5, false);
    check_block(&sixteen, 1, 3, 5, 5, false);
    check_block(&sixteen, 2, 3, 10, 6, false);
}

static void test_print(void)
{
    MachineTopology t = {
        .host = "node7", .cores = 16, .pus = 32, .numa_nodes = 2, .packages = 1,
        .l1d_bytes = 48 << 10, .l2_bytes = 1280 << 10, .l3_bytes = 32 << 20,
        .ngpus = 1, .gpu_names = { "NVIDIA H100 80GB HBM3" }, .from_hwloc = true,
    };
    RankBinding bindings[] = {
        machine_binding_plan(&t, 0, 3), machine_binding_plan(&t, 1, 3), machine_binding_plan(&t, 2, 3),
    };
    int world_ranks[] = { 3, 4, 5 };
    FILE *out = test_capture_open();
    machine_topology_print(out, &t, bindings, world_ranks, 3);
    char *text = test_capture_close(out, NULL);
    const char *want = "host: node7\n"
                       "cores: 16 physical, 32 hardware threads\n"
                       "NUMA nodes: 2, packages: 1\n"
                       "caches: L1d 48 KiB, L2 1280 KiB, L3 32 MiB\n"
                       "gpus: 1 (NVIDIA H100 80GB HBM3)\n"
                       "rank 3 (local 0 of 3): cores 0-4, 5 threads\n"
                       "rank 4 (local 1 of 3): cores 5-9, 5 threads\n"
                       "rank 5 (local 2 of 3): cores 10-15, 6 threads\n";
    CHECK_MSG(strcmp(text, want) == 0, "got:\n%s", text);
    free(text);

    t = (MachineTopology){ .host = "laptop", .cores = 2, .pus = 2 };
    RankBinding crowded = machine_binding_plan(&t, 3, 4);
    int rank = 3;
    out = test_capture_open();
    machine_topology_print(out, &t, &crowded, &rank, 1);
    text = test_capture_close(out, NULL);
    CHECK_CONTAINS(text, "unknown (built without hwloc)");
    CHECK_CONTAINS(text, "rank 3 (local 3 of 4): cores 1-1, 1 threads, oversubscribed\n");
    free(text);
}

static void test_this_host(void)
{
    MachineTopology t;
    FILE *err = test_capture_open();
    bool ok = machine_topology_read(&t, err);
    char *errors = test_capture_close(err, NULL);
    CHECK_MSG(ok, "%s", errors);
    free(errors);
    if (!ok)
        return;
    CHECK(t.cores >= 1);
    CHECK(t.pus >= t.cores);
    CHECK(t.host[0] != '\0');
#ifdef TSSA_USE_HWLOC
    CHECK(t.from_hwloc);
    CHECK(t.numa_nodes >= 1 && t.packages >= 1);
#else
    CHECK(!t.from_hwloc);
#endif
    RankBinding whole = machine_binding_plan(&t, 0, 1);
    CHECK(whole.first_core == 0 && whole.ncores == t.cores);
    int rank = 0;
    machine_topology_print(stdout, &t, &whole, &rank, 1);

    /* All the host's cores: allowed everywhere, unless binding is forbidden. */
    err = test_capture_open();
    bool bound = machine_bind(&whole, err);
    errors = test_capture_close(err, NULL);
    CHECK_MSG(bound ? errors[0] == '\0' : strstr(errors, "warning: cannot bind") != NULL, "%s", errors);
    free(errors);
}

/* ---------------------------------------------------------------- device rates */

static char *write_temp(const char *name, const char *text)
{
    char *path = malloc(strlen(root) + strlen(name) + 2);
    sprintf(path, "%s/%s", root, name);
    FILE *f = fopen(path, "w");
    CHECK(f != NULL);
    if (f) {
        fputs(text, f);
        fclose(f);
    }
    return path;
}

static void test_override_file(void)
{
    char *path = write_temp("rates.json", "{\"flops_per_s\": 1.5e12, \"bytes_per_s\": 3e11}\n");
    DeviceRates r;
    CHECK(device_rates_get(&r, path, NULL, 4, NULL, stderr));
    CHECK(r.flops_per_s == 1.5e12 && r.bytes_per_s == 3e11 && r.firing_s == 2e-6);
    CHECK(strcmp(r.source, "file") == 0);
    free(path);

    const char *bad[][2] = {
        { "bad-syntax.json", "{\"flops_per_s\": 1e9," },
        { "bad-value.json", "{\"bytes_per_s\": -1}" },
        { "bad-key.json", "{\"flop_per_s\": 1e9}" },
        { "bad-type.json", "[1, 2, 3]" },
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        path = write_temp(bad[i][0], bad[i][1]);
        FILE *err = test_capture_open();
        bool ok = device_rates_get(&r, path, NULL, 4, NULL, err);
        char *errors = test_capture_close(err, NULL);
        CHECK_MSG(!ok, "%s was accepted", bad[i][0]);
        CHECK_CONTAINS(errors, path);
        CHECK_CONTAINS(errors, ": error: ");
        free(errors);
        free(path);
    }
    FILE *err = test_capture_open();
    CHECK(!device_rates_get(&r, "/nonexistent/rates.json", NULL, 4, NULL, err));
    char *errors = test_capture_close(err, NULL);
    CHECK_CONTAINS(errors, "/nonexistent/rates.json: error: ");
    free(errors);
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* The names in dir (a folder made by this test), concatenated with '\n'. */
static char *list_dir(const char *dir)
{
    char *names = calloc(1, 1);
    DIR *d = opendir(dir);
    CHECK(d != NULL);
    for (struct dirent *e; d && (e = readdir(d));) {
        if (e->d_name[0] == '.')
            continue;
        names = realloc(names, strlen(names) + strlen(e->d_name) + 2);
        strcat(strcat(names, e->d_name), "\n");
    }
    if (d)
        closedir(d);
    return names;
}

static void test_calibration_cache(void)
{
    char cache_dir[4200];
    snprintf(cache_dir, sizeof cache_dir, "%s/cache/tssa-stream", root);   /* made by device_rates_get */
    DeviceRates calibrated, cached;
    double start = now_s();
    CHECK(device_rates_get(&calibrated, NULL, cache_dir, 1, NULL, stderr));
    double seconds = now_s() - start;
    printf("calibration: %.3f s: %.3g flop/s, %.3g B/s\n", seconds, calibrated.flops_per_s, calibrated.bytes_per_s);
    CHECK_MSG(seconds < 3.0, "calibration took %.3f s", seconds);   /* 0.3 s meant; loaded machines are slower */
    CHECK(strcmp(calibrated.source, "calibrated") == 0);
    CHECK(calibrated.flops_per_s > 1e6 && calibrated.bytes_per_s > 1e6 && calibrated.firing_s == 2e-6);

    char *names = list_dir(cache_dir);
    size_t len = strlen(names);
    CHECK_MSG(strncmp(names, "device-rates-", 13) == 0 && len > 9 && strcmp(names + len - 9, "-1t.json\n") == 0 &&
                  strchr(names, '\n') == names + len - 1,
              "the cache holds:\n%s", names);
    free(names);

    CHECK(device_rates_get(&cached, NULL, cache_dir, 1, NULL, stderr));
    CHECK(strcmp(cached.source, "cache") == 0);
    /* cJSON writes 15 significant digits when they read back within an epsilon. */
    CHECK(test_near(cached.flops_per_s, calibrated.flops_per_s, 1e-14, 0) &&
          test_near(cached.bytes_per_s, calibrated.bytes_per_s, 1e-14, 0) &&
          test_near(cached.firing_s, calibrated.firing_s, 1e-14, 0));
}

/* Writes rates of 1 flop/s and 1 B/s (no calibration gives them) to path. */
static void write_slow_rates(const char *path)
{
    FILE *f = fopen(path, "w");
    CHECK(f && fputs("{\"flops_per_s\": 1, \"bytes_per_s\": 1}\n", f) >= 0);
    if (f)
        fclose(f);
}

/* A rates file someone else could have written is not used: planted in a
 * folder of another user (mode 1777; root only, it chowns), or in our own
 * folder but writable by others (0666). Calibration runs instead, with one
 * warning naming the path, owner and mode. */
static void test_untrusted_rates_cache(void)
{
    char mine[4200], name[256], path[4600];
    snprintf(mine, sizeof mine, "%s/own-cache", root);
    DeviceRates r;
    CHECK(device_rates_get(&r, NULL, mine, 1, NULL, stderr));    /* the file's name for this host */
    char *names = list_dir(mine);
    snprintf(name, sizeof name, "%.*s", (int)strcspn(names, "\n"), names);
    free(names);

    snprintf(path, sizeof path, "%s/%s", mine, name);
    write_slow_rates(path);
    CHECK(chmod(path, 0666) == 0);
    FILE *err = test_capture_open();
    CHECK(device_rates_get(&r, NULL, mine, 1, NULL, err));
    char *msg = test_capture_close(err, NULL);
    CHECK(strcmp(r.source, "calibrated") == 0 && r.flops_per_s > 1e6 && r.bytes_per_s > 1e6);
    CHECK_CONTAINS(msg, "warning: not using the cache: ");
    CHECK_CONTAINS(msg, path);
    CHECK_CONTAINS(msg, "mode 0666");
    free(msg);
    struct stat st;
    CHECK(stat(path, &st) == 0 && (st.st_mode & 022) == 0);   /* replaced by the calibration's */

    if (geteuid() != 0) {
        printf("skipped: a rates file in another user's folder (needs root to chown)\n");
        return;
    }
    char foreign[4200];
    snprintf(foreign, sizeof foreign, "%s/foreign-cache", root);
    snprintf(path, sizeof path, "%s/%s", foreign, name);
    CHECK(mkdir(foreign, 0755) == 0);
    write_slow_rates(path);
    CHECK(chown(path, 65534, 65534) == 0 && chown(foreign, 65534, 65534) == 0 && chmod(foreign, 01777) == 0);
    err = test_capture_open();
    CHECK(device_rates_get(&r, NULL, foreign, 1, NULL, err));
    msg = test_capture_close(err, NULL);
    CHECK(strcmp(r.source, "calibrated") == 0 && r.flops_per_s > 1e6 && r.bytes_per_s > 1e6);
    CHECK_MSG(msg && !strstr(msg, "warning"), "a second warning in one process:\n%s", msg);
    free(msg);
    size_t len = 0;
    char *kept = test_read_file(path, &len);
    CHECK(kept && strstr(kept, "\"flops_per_s\": 1,"));     /* the foreign file was left alone */
    free(kept);
}

static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    return remove(path);
}

int main(void)
{
    /* hwloc's PCI plugin (libpciaccess) leaks about 1 KiB, which the
     * sanitizer build's LeakSanitizer reports: the topology is read
     * without it here (the plugin only finds GPUs). */
    setenv("HWLOC_COMPONENTS", "-pci", 1);
    const char *tmp = getenv("TMPDIR");
    snprintf(root, sizeof root, "%s/tssa-machine-test-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(root)) {
        perror("mkdtemp");
        return 1;
    }
    test_binding_plans();
    test_print();
    test_this_host();
    test_override_file();
    test_calibration_cache();
    test_untrusted_rates_cache();
    nftw(root, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
    return test_report("machine");
}
