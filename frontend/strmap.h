/* strmap.h — a hash map from byte strings to pointers (private to frontend/).
 *
 * Open addressing with linear probing and backward-shift deletion, so there
 * are no tombstones and a lookup never walks more than the cluster it hashes
 * into. Keys are not copied: the caller keeps each key alive (graph keys live
 * in the graph's arena). Lookups take (pointer, length) so the parser can
 * look a name up straight from the input text.
 */
#ifndef TSSA_FRONTEND_STRMAP_H
#define TSSA_FRONTEND_STRMAP_H

#include <stddef.h>
#include <stdint.h>

/* 24 bytes: large maps (a million names) are bound by cache misses, so
 * slots stay small; the low 32 bits of the hash pick the slot, all 32 are
 * compared before the key is. */
typedef struct StrMapSlot {
    const char *key;        /* NULL: empty slot */
    void *value;
    uint32_t hash;
    uint32_t len;
} StrMapSlot;

typedef struct StrMap {
    StrMapSlot *slots;
    size_t cap;             /* power of two, or 0 */
    size_t count;
} StrMap;

uint64_t strmap_hash(const char *key, size_t len);
/* Keys are at most STRMAP_MAX_KEY bytes (longer ones are a caller bug). */
#define STRMAP_MAX_KEY 0xffffffffu
void strmap_init(StrMap *m);
void strmap_release(StrMap *m);
/* The value stored under key, or NULL. */
void *strmap_get(const StrMap *m, const char *key, size_t len);
/* The key pointer stored under an equal key, or NULL (used for interning). */
const char *strmap_get_key(const StrMap *m, const char *key, size_t len);
/* Inserts or replaces. value must not be NULL. */
void strmap_put(StrMap *m, const char *key, size_t len, void *value);
/* Inserts key -> value unless key is present; returns the value already
 * there, or NULL when it inserted (one probe instead of a get and a put). */
void *strmap_put_if_absent(StrMap *m, const char *key, size_t len, void *value);
/* Removes key if present; returns whether it was. */
int strmap_remove(StrMap *m, const char *key, size_t len);

#endif
