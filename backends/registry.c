/* registry.c — the table of backends: the one place a build's backends are
 * listed. Each is one BackendIface defined in its own folder (ref, cpu,
 * cuda); adding a backend is a folder and a line here.
 *
 * The order is the preference of a run without --backend: a GPU when there
 * is one, else this CPU; ref, the oracle, is only ever asked for. Backends a
 * build can leave out (cuda: the CUDA toolkit) are listed only where it has
 * them; elsewhere their name is still known, so that --backend=cuda says
 * why it is missing instead of "unknown backend".
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tssa/registry.h"

const BackendIface *const tssa_backends[] = {
#ifdef TSSA_USE_CUDA
    &backend_cuda,
#endif
    &backend_cpu,
    &backend_ref,
    NULL,
};

/* The backends a build may lack, and why this one does. */
static const struct {
    const char *name;
    const char *device_kind;    /* as BackendIface.device_kind */
    const char *why;
} absent[] = {
#ifndef TSSA_USE_CUDA
    {"cuda", "CUDA", "this tssa-stream was built without the cuda backend (the CUDA toolkit was not found; "
                   "install it at /usr/local/cuda and rebuild)"},
#endif
    {NULL, NULL, NULL},
};

const BackendIface *backend_find(const char *name, const char **why)
{
    *why = NULL;
    for (int i = 0; tssa_backends[i]; i++)
        if (strcmp(tssa_backends[i]->name, name) == 0)
            return tssa_backends[i];
    for (int i = 0; absent[i].name; i++)
        if (strcmp(absent[i].name, name) == 0)
            *why = absent[i].why;
    return NULL;
}

const BackendIface *backend_default(void)
{
    const BackendIface *last = NULL;
    for (int i = 0; tssa_backends[i]; i++) {
        const BackendIface *b = tssa_backends[i];
        const char *why = NULL;
        if (b->runs_plan && b->available(&why) && (!b->preferred || b->preferred()))
            return b;
        last = b;
    }
    return last;
}

int backend_index(const BackendIface *b)
{
    for (int i = 0; b && tssa_backends[i]; i++)
        if (tssa_backends[i] == b)
            return i;
    return -1;
}

static int compare_names(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

const char *backend_all_names(void)
{
    static char text[256];
    const char *names[32];
    int n = 0;
    for (int i = 0; tssa_backends[i] && n < 32; i++)
        names[n++] = tssa_backends[i]->name;
    for (int i = 0; absent[i].name && n < 32; i++)
        names[n++] = absent[i].name;
    qsort(names, (size_t)n, sizeof *names, compare_names);
    text[0] = '\0';
    for (int i = 0; i < n; i++) {
        size_t len = strlen(text);
        snprintf(text + len, sizeof text - len, "%s%s", i ? ", " : "", names[i]);
    }
    return text;
}

const BackendIface *backend_with_devices(const char **absent_name, const char **absent_kind)
{
    *absent_name = *absent_kind = NULL;
    for (int i = 0; tssa_backends[i]; i++)
        if (tssa_backends[i]->device_kind)
            return tssa_backends[i];
    for (int i = 0; absent[i].name; i++)
        if (absent[i].device_kind) {
            *absent_name = absent[i].name;
            *absent_kind = absent[i].device_kind;
        }
    return NULL;
}
