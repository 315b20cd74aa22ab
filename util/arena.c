/* arena.c — bump allocation for everything a graph owns.
 *
 * An arena is a chain of chunks. An allocation takes the next 16-aligned
 * bytes of the current chunk; when they do not fit, a new chunk (the next
 * regular size, or the request itself when larger) is put at the head of
 * the chain. Nothing is freed one by one: arena_free releases every chunk.
 * Chunks come from calloc, so memory is zeroed as the contract promises.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "tssa/diag.h"
#include "tssa/util.h"

enum { ARENA_ALIGN = 16, ARENA_CHUNK = 1 << 20, ARENA_CHUNK_MAX = 32 << 20 };

typedef struct ArenaChunk {
    struct ArenaChunk *next;
    size_t size;            /* usable bytes after the header */
    size_t used;
    _Alignas(16) unsigned char data[];
} ArenaChunk;

struct Arena {
    ArenaChunk *head;
    size_t next_chunk;      /* size of the next regular chunk */
};

Arena *arena_new(void)
{
    Arena *a = calloc(1, sizeof *a);
    if (!a)
        diag_die("out of memory creating an arena");
    a->next_chunk = ARENA_CHUNK;
    return a;
}

void arena_free(Arena *a)
{
    if (!a)
        return;
    ArenaChunk *c = a->head;
    while (c) {
        ArenaChunk *next = c->next;
        free(c);
        c = next;
    }
    free(a);
}

static ArenaChunk *arena_add_chunk(Arena *a, size_t need)
{
    /* Chunks grow with the arena (1 MiB doubling to 32 MiB): small graphs
     * stay small, big ones do not pay for thousands of allocations. */
    size_t size = a->next_chunk;
    bool oversized = need > size;
    if (oversized)
        size = need;
    else if (a->next_chunk < ARENA_CHUNK_MAX)
        a->next_chunk *= 2;
    ArenaChunk *c = calloc(1, sizeof *c + size);
    if (!c)
        diag_die("out of memory (arena chunk of %zu bytes)", size);
    c->size = size;
    /* A chunk made for one large request goes behind the head so the head's
     * free space stays usable for the small allocations that follow. */
    if (oversized && a->head) {
        c->next = a->head->next;
        a->head->next = c;
    } else {
        c->next = a->head;
        a->head = c;
    }
    return c;
}

void *arena_alloc(Arena *a, size_t size)
{
    if (size == 0)
        size = 1;
    if (size > SIZE_MAX - ARENA_ALIGN)
        diag_die("arena request of %zu bytes is too large", size);
    size = (size + ARENA_ALIGN - 1) & ~(size_t)(ARENA_ALIGN - 1);
    ArenaChunk *c = a->head;
    if (!c || c->size - c->used < size)
        c = arena_add_chunk(a, size);
    void *p = c->data + c->used;
    c->used += size;
    return p;
}

char *arena_strndup(Arena *a, const char *s, size_t n)
{
    char *p = arena_alloc(a, n + 1);
    memcpy(p, s, n);
    p[n] = '\0';
    return p;
}

char *arena_strdup(Arena *a, const char *s)
{
    return arena_strndup(a, s, strlen(s));
}
