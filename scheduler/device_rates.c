/* device_rates.c — how fast this process computes, moves memory and
 * dispatches a firing: the numbers a cost model weighs a schedule with (the
 * interface is in include/tssa/machine.h).
 *
 * Rates come from a file the user names, else from the cache, else from a
 * short calibration whose result is cached per host and thread count:
 *   bandwidth  a STREAM triad (a = b + s*c) over three arrays of 8 Mi floats
 *              (96 MiB in all, more than a last-level cache holds), counting
 *              the 12 bytes each element reads and writes: the probe's
 *              (compiled as the kernels are) when the caller gives one,
 *              else this file's loop;
 *   math       the probe's rate of exp/tanh calls, else the default;
 *   compute    a float32 product the way the runtime runs a data-parallel
 *              loop's: 256-row panels (tensor/linalg.c), one per thread,
 *              shared out by OpenMP, each a single-threaded OpenBLAS call
 *              of 256 x 256 x 256; the rate is the sum of each thread's
 *              best (measure_gemm_flops_per_s says why). A 384^3 product
 *              in OpenBLAS's own threads, as before, ran 10-45% faster
 *              than the products the scaling study times (512 x 256 x 256
 *              panels, 16384 x 128 x 128). Without BLAS a 192^3 triple
 *              loop, the way the generated kernels would run it;
 * each the best of 10 runs with `threads` threads, about 0.2 s in all (on a
 * shared machine three runs could all land beside another process's work:
 * the 1-thread rates cached on this 2-core host by worktrees calibrated
 * with 3 ranged from 11 to 88 GFLOP/s and from 2.5 to 15 GB/s; the best of
 * more runs finds a quiet moment). The
 * dispatch cost is not measured: it is the default unless a file gives it.
 * The cache is written to a temporary name and renamed, so ranks of one host
 * calibrating at once each leave a whole file; it is read only from a
 * folder and file nobody else could have written (util/cache_trust.c).
 */
#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "tssa/diag.h"
#include "tssa/machine.h"
#include "tssa/tensor.h"
#include "tssa/util.h"

#ifdef TSSA_USE_BLAS
#include <cblas.h>
#endif
/* The loop after it runs on the variable `threads`'s count of threads. */
#ifdef TSSA_USE_OPENMP
#define PARALLEL_FOR_THREADS _Pragma("omp parallel for num_threads(threads)")
#else
#define PARALLEL_FOR_THREADS
#endif

/* A rates file is three numbers; anything this large is not one. */
enum { RATES_FILE_LIMIT = 1 << 16 };

enum {
    TRIAD_FLOATS = 8 << 20,
    CALIBRATION_RUNS = 10,
#ifdef TSSA_USE_BLAS
    GEMM_N = 256,       /* K and N of the calibration's product */
    GEMM_PANEL = 256,   /* its rows per thread: tensor/linalg.c's GEMM_PANEL_ROWS */
#else
    GEMM_N = 192,   /* plain loops are slower: keep the calibration short */
#endif
};

/* The keys of a rates file, in the order they are written. */
static const struct {
    const char *key;
    size_t offset;
    bool may_be_zero;       /* a firing may be taken as free; a rate may not */
    bool link;              /* the link's: pinned by a file, never cached */
} RATE_KEYS[] = {
    { "flops_per_s", offsetof(DeviceRates, flops_per_s), false, false },
    { "bytes_per_s", offsetof(DeviceRates, bytes_per_s), false, false },
    { "math_per_s", offsetof(DeviceRates, math_per_s), false, false },
    { "firing_s", offsetof(DeviceRates, firing_s), true, false },
    { "link_latency_s", offsetof(DeviceRates, link_latency_s), true, true },
    { "link_bytes_per_s", offsetof(DeviceRates, link_bytes_per_s), false, true },
};
enum { NRATE_KEYS = sizeof RATE_KEYS / sizeof RATE_KEYS[0] };

static double *rate_field(DeviceRates *r, int k)
{
    return (double *)((char *)r + RATE_KEYS[k].offset);
}

void device_rates_default(DeviceRates *r)
{
    r->flops_per_s = 20e9;
    r->bytes_per_s = 10e9;
    r->math_per_s = 2e9;
    r->firing_s = 2e-6;
    r->link_latency_s = 5e-6;
    r->link_bytes_per_s = 5e9;
    r->link_pinned = false;
    snprintf(r->source, sizeof r->source, "default");
}

/* ---------------------------------------------------------------- rates files */

static int rate_key_index(const char *key)
{
    for (int k = 0; k < NRATE_KEYS; k++)
        if (strcmp(RATE_KEYS[k].key, key) == 0)
            return k;
    return -1;
}

/* Sets the rates that the JSON file at path gives, keeping the others; on a
 * bad file leaves r alone and returns false after "PATH: error: WHAT" to err
 * (which may be NULL). */
static bool parse_rates(DeviceRates *r, const char *path, char *text, size_t len, FILE *err);

static bool read_rates_file(DeviceRates *r, const char *path, FILE *err)
{
    char *text;
    size_t len;
    if (!file_read_all(path, RATES_FILE_LIMIT, &text, &len, err))
        return false;
    return parse_rates(r, path, text, len, err);
}

/* The rates cached at path, a trusted entry (util/cache_trust.c: a file
 * someone else could have written is reported and not read). */
static bool read_rates_cache(DeviceRates *r, const char *path, FILE *err)
{
    char *text;
    size_t len;
    if (cache_entry_read(path, RATES_FILE_LIMIT, &text, &len, err, "calibrating again") != CACHE_OK)
        return false;
    return parse_rates(r, path, text, len, NULL);
}

/* read_rates_file's reading of text[0..len) (freed here). */
static bool parse_rates(DeviceRates *r, const char *path, char *text, size_t len, FILE *err)
{
    const char *end = NULL;
    cJSON *root = cJSON_ParseWithLengthOpts(text, len, &end, false);
    DeviceRates read = *r;
    bool ok = root != NULL;
    if (!root)
        diag_error(err, path, "not valid JSON (at byte %td)", end ? end - text : (ptrdiff_t)0);
    else if (!cJSON_IsObject(root)) {
        diag_error(err, path, "expected a JSON object of rates");
        ok = false;
    }
    for (const cJSON *item = ok ? root->child : NULL; item && ok; item = item->next) {
        int k = rate_key_index(item->string);
        if (k < 0) {
            diag_error(err, path, "unknown key \"%s\" (the keys are flops_per_s, bytes_per_s, math_per_s, "
                       "firing_s, link_latency_s and link_bytes_per_s)", item->string);
            ok = false;
        } else if (!cJSON_IsNumber(item) || !isfinite(item->valuedouble) || item->valuedouble < 0 ||
                   (item->valuedouble == 0 && !RATE_KEYS[k].may_be_zero)) {
            diag_error(err, path, "\"%s\" must be a %s number", item->string,
                       RATE_KEYS[k].may_be_zero ? "finite non-negative" : "finite positive");
            ok = false;
        } else {
            *rate_field(&read, k) = item->valuedouble;
            read.link_pinned |= RATE_KEYS[k].link;
        }
    }
    cJSON_Delete(root);
    free(text);
    if (ok)
        *r = read;
    return ok;
}

/* Writes r to path through a temporary file and rename(); false with errno
 * set when any step fails. */
static bool write_rates_file(DeviceRates r, const char *path)
{
    cJSON *root = cJSON_CreateObject();
    for (int k = 0; k < NRATE_KEYS; k++)
        if (!RATE_KEYS[k].link)
            cJSON_AddNumberToObject(root, RATE_KEYS[k].key, *rate_field(&r, k));
    char *json = cJSON_Print(root);
    cJSON_Delete(root);
    char *text = xprintf("%s\n", json);
    bool ok = file_write_atomic(path, text, strlen(text));
    free(text);
    cJSON_free(json);
    return ok;
}

/* The host name with anything but [A-Za-z0-9._-] made '_', for a file name. */
static void host_file_name(char *name, size_t cap)
{
    if (gethostname(name, cap - 1) != 0)
        snprintf(name, cap, "unknown");
    name[cap - 1] = '\0';
    for (char *c = name; *c; c++)
        if (!((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9') || strchr("._-", *c)))
            *c = '_';
}

/* ---------------------------------------------------------------- calibration */

/* Stores the results the timed loops leave, so the compiler keeps the loops. */
static volatile float calibration_sink;

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static double measure_triad_bytes_per_s(int threads)
{
    float *a = xmallocn(TRIAD_FLOATS, sizeof *a);
    float *b = xmallocn(TRIAD_FLOATS, sizeof *b);
    float *c = xmallocn(TRIAD_FLOATS, sizeof *c);
    /* Touched first by the threads that time them, so pages sit on their NUMA nodes. */
    PARALLEL_FOR_THREADS
    for (int i = 0; i < TRIAD_FLOATS; i++) {
        a[i] = 0.0f;
        b[i] = 1.0f;
        c[i] = 2.0f;
    }
    double best = INFINITY;
    for (int run = 0; run < CALIBRATION_RUNS; run++) {
        float scale = (float)(run + 1);
        double start = now_s();
        PARALLEL_FOR_THREADS
        for (int i = 0; i < TRIAD_FLOATS; i++)
            a[i] = b[i] + scale * c[i];
        best = fmin(best, now_s() - start);
        calibration_sink += a[TRIAD_FLOATS / 2];
    }
    free(a);
    free(b);
    free(c);
    return 3.0 * sizeof(float) * TRIAD_FLOATS / best;
}

#ifndef TSSA_USE_BLAS
/* c = a b, all GEMM_N square and row-major, in the i-k-j order that vectorizes. */
static void gemm_loops(const float *a, const float *b, float *c, int threads)
{
    PARALLEL_FOR_THREADS
    for (int i = 0; i < GEMM_N; i++) {
        float *restrict row = c + (size_t)i * GEMM_N;
        for (int j = 0; j < GEMM_N; j++)
            row[j] = 0.0f;
        for (int k = 0; k < GEMM_N; k++) {
            float aik = a[(size_t)i * GEMM_N + k];
            const float *restrict brow = b + (size_t)k * GEMM_N;
            for (int j = 0; j < GEMM_N; j++)
                row[j] += aik * brow[j];
        }
    }
}
#endif

static double measure_gemm_flops_per_s(int threads)
{
#ifdef TSSA_USE_BLAS
    /* The product the runtime makes of a data-parallel loop's rows: row
     * panels of GEMM_PANEL rows (tensor/linalg.c's panels), one per thread,
     * shared out by OpenMP, each a single-threaded OpenBLAS call. */
    int m = GEMM_PANEL * (threads > 1 ? threads : 1), k = GEMM_N, n = GEMM_N;
#else
    int m = GEMM_N, k = GEMM_N, n = GEMM_N;
#endif
    int blas_threads = tensor_blas_threads();
    tensor_blas_set_threads(1);
    float *a = xmallocn((size_t)m * (size_t)k, sizeof *a), *b = xmallocn((size_t)k * (size_t)n, sizeof *b);
    float *c = xmallocn((size_t)m * (size_t)n, sizeof *c);
    for (size_t i = 0; i < (size_t)m * (size_t)k; i++)
        a[i] = (float)(i % 7) * 0.25f;
    for (size_t i = 0; i < (size_t)k * (size_t)n; i++)
        b[i] = (float)(i % 5) * 0.5f;
    double rate = 0;
#ifdef TSSA_USE_BLAS
    /* Each thread's best time for its own panel over the runs: the threads
     * run at once (they share the caches and the memory as the runtime's
     * do), but each is timed alone, so one thread's slice taken by another
     * process does not count against the others (on this shared 2-core
     * host the whole product's best of 10 gave 2 threads 1.46x one
     * thread's rate, where two-thread products ran 1.9-2.0x faster). */
    int panels = m / GEMM_PANEL;
    double *panel_best = xmallocn((size_t)panels, sizeof *panel_best);
    for (int p = 0; p < panels; p++)
        panel_best[p] = INFINITY;
    for (int run = 0; run < CALIBRATION_RUNS; run++) {
        PARALLEL_FOR_THREADS
        for (int panel = 0; panel < panels; panel++) {
            double start = now_s();
            cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, GEMM_PANEL, n, k, 1.0f,
                        a + (size_t)panel * GEMM_PANEL * (size_t)k, k, b, n, 0.0f,
                        c + (size_t)panel * GEMM_PANEL * (size_t)n, n);
            panel_best[panel] = fmin(panel_best[panel], now_s() - start);
        }
        calibration_sink += c[(size_t)m * (size_t)n / 2];
    }
    for (int p = 0; p < panels; p++)
        rate += 2.0 * GEMM_PANEL * (double)k * n / panel_best[p];
    free(panel_best);
#else
    double best = INFINITY;
    for (int run = 0; run < CALIBRATION_RUNS; run++) {
        double start = now_s();
        gemm_loops(a, b, c, threads);
        best = fmin(best, now_s() - start);
        calibration_sink += c[(size_t)m * (size_t)n / 2];
    }
    rate = 2.0 * m * (double)k * n / best;
#endif
    free(a);
    free(b);
    free(c);
    tensor_blas_set_threads(blas_threads);
    return rate;
}

/* ---------------------------------------------------------------- the rates */

bool device_rates_get(DeviceRates *r, const char *override_path, const char *cache_dir, int threads,
                      const DeviceRatesProbe *probe, FILE *err)
{
    device_rates_default(r);
    if (override_path) {
        if (!read_rates_file(r, override_path, err))
            return false;
        snprintf(r->source, sizeof r->source, "file");
        return true;
    }
    /* the cache folder: only one of ours alone is read or written */
    char *cache_path = NULL, *dir = NULL, why[CACHE_WHY_MAX];
    CacheTrust trust = cache_dir && *cache_dir ? cache_dir_prepare(cache_dir, &dir, why) : CACHE_ABSENT;
    if (trust == CACHE_UNTRUSTED)
        cache_warn_untrusted(err, why, "calibrating the device rates without it");
    else if (trust == CACHE_UNUSABLE)
        fprintf(err, "tssa-stream: warning: cannot write the device rates cache '%s' (%s)\n", cache_dir, why);
    if (dir) {
        char host[64];
        host_file_name(host, sizeof host);
        /* v4: the bandwidth and the math rate measured by the kernels'
         * own code (v3: the best of 10 runs, the panels' product, each
         * thread's best; older figures are not reused) */
        cache_path = xprintf("%s/device-rates-v4-%s-%dt.json", dir, host, threads);
        if (read_rates_cache(r, cache_path, err)) {
            snprintf(r->source, sizeof r->source, "cache");
            r->link_pinned = false;
            free(cache_path);
            free(dir);
            return true;
        }
    }
    if (!probe || !probe->measure(probe->ctx, threads, &r->bytes_per_s, &r->math_per_s))
        r->bytes_per_s = measure_triad_bytes_per_s(threads);
    r->flops_per_s = measure_gemm_flops_per_s(threads);
    snprintf(r->source, sizeof r->source, "calibrated");
    if (cache_path && !write_rates_file(*r, cache_path))
        fprintf(err, "tssa-stream: warning: cannot write the device rates cache '%s' (%s)\n", cache_path,
                strerror(errno));
    free(cache_path);
    free(dir);
    return true;
}
