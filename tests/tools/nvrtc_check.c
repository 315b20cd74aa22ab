/* nvrtc_check — compiles CUDA source files with NVRTC (to PTX for
 * compute_90) and reports the compiler's log; the check that the kernels'
 * CUDA printer (kernels/kir_print.c) writes code NVRTC accepts, on a
 * machine without a GPU.
 *
 *   nvrtc_check FILE.cu...
 * exit 0: all compiled; 1: one failed (its log printed, warnings aside); 77: NVRTC is not
 * installed (libnvrtc.so not found: the test is skipped).
 *
 * NVRTC is opened with dlopen, so the project needs no CUDA to build this.
 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

typedef int NvrtcResult;                    /* nvrtcResult; 0 = NVRTC_SUCCESS */
typedef struct NvrtcProgram *NvrtcProgram;  /* nvrtcProgram */

typedef NvrtcResult (*CreateFn)(NvrtcProgram *, const char *, const char *, int,
                                const char *const *, const char *const *);
typedef NvrtcResult (*CompileFn)(NvrtcProgram, int, const char *const *);
typedef NvrtcResult (*LogSizeFn)(NvrtcProgram, size_t *);
typedef NvrtcResult (*LogFn)(NvrtcProgram, char *);
typedef NvrtcResult (*DestroyFn)(NvrtcProgram *);

static char *read_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *s = malloc((size_t)n + 1);
    if (s && fread(s, 1, (size_t)n, f) != (size_t)n) {
        free(s);
        s = NULL;
    }
    if (s)
        s[n] = '\0';
    fclose(f);
    return s;
}

int main(int argc, char **argv)
{
    static const char *const libs[] = {"libnvrtc.so", "/usr/local/cuda/lib64/libnvrtc.so",
                                       "libnvrtc.so.13", "libnvrtc.so.12"};
    void *h = NULL;
    for (size_t i = 0; !h && i < sizeof libs / sizeof *libs; i++)
        h = dlopen(libs[i], RTLD_NOW);
    if (!h) {
        fprintf(stderr, "nvrtc_check: NVRTC not found (skipped)\n");
        return 77;
    }
    CreateFn create = (CreateFn)dlsym(h, "nvrtcCreateProgram");
    CompileFn compile = (CompileFn)dlsym(h, "nvrtcCompileProgram");
    LogSizeFn log_size = (LogSizeFn)dlsym(h, "nvrtcGetProgramLogSize");
    LogFn get_log = (LogFn)dlsym(h, "nvrtcGetProgramLog");
    DestroyFn destroy = (DestroyFn)dlsym(h, "nvrtcDestroyProgram");
    if (!create || !compile || !log_size || !get_log || !destroy) {
        fprintf(stderr, "nvrtc_check: libnvrtc lacks the functions it should have\n");
        return 1;
    }
    int failed = 0;
    for (int i = 1; i < argc; i++) {
        char *src = read_file(argv[i]);
        if (!src) {
            fprintf(stderr, "nvrtc_check: cannot read %s\n", argv[i]);
            failed = 1;
            continue;
        }
        NvrtcProgram prog;
        const char *opts[] = {"--gpu-architecture=compute_90", "--std=c++17"};
        int ok = create(&prog, src, argv[i], 0, NULL, NULL) == 0;
        int rc = ok ? compile(prog, 2, opts) : -1;
        size_t n = 0;
        if (ok && rc != 0 && log_size(prog, &n) == 0 && n > 1) {
            char *log = malloc(n);
            if (log && get_log(prog, log) == 0)
                fprintf(stderr, "%s: NVRTC log:\n%s\n", argv[i], log);
            free(log);
        }
        if (rc != 0) {
            fprintf(stderr, "nvrtc_check: %s does not compile (nvrtc result %d)\n", argv[i], rc);
            failed = 1;
        }
        if (ok)
            destroy(&prog);
        free(src);
    }
    dlclose(h);
    return failed;
}
