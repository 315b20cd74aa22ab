/* strmap.c — string-keyed hash map; see include/tssa/util.h.
 *
 * The table doubles when it is more than half full. Deletion shifts the rest
 * of the probe cluster back into the freed slot (Knuth's algorithm R), which
 * keeps every cluster contiguous without tombstones.
 */
#include <stdlib.h>
#include <string.h>

#include "tssa/diag.h"
#include "tssa/util.h"

/* FNV-1a, then a final mix so linear probing sees well spread low bits. */
uint64_t strmap_hash(const char *key, size_t len)
{
    uint64_t h = 0xcbf29ce484222325ull;
    for (size_t i = 0; i < len; i++) {
        h ^= (unsigned char)key[i];
        h *= 0x100000001b3ull;
    }
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdull;
    h ^= h >> 33;
    return h;
}

void strmap_init(StrMap *m)
{
    m->slots = NULL;
    m->cap = 0;
    m->count = 0;
}

void strmap_release(StrMap *m)
{
    free(m->slots);
    strmap_init(m);
}

static size_t strmap_find(const StrMap *m, const char *key, size_t len, uint32_t h)
{
    size_t mask = m->cap - 1;
    for (size_t i = h & mask;; i = (i + 1) & mask) {
        const StrMapSlot *s = &m->slots[i];
        if (!s->key)
            return i;
        if (s->hash == h && s->len == len && memcmp(s->key, key, len) == 0)
            return i;
    }
}

void *strmap_get(const StrMap *m, const char *key, size_t len)
{
    if (!m->count)
        return NULL;
    size_t i = strmap_find(m, key, len, (uint32_t)strmap_hash(key, len));
    return m->slots[i].key ? m->slots[i].value : NULL;
}

const char *strmap_get_key(const StrMap *m, const char *key, size_t len)
{
    if (!m->count)
        return NULL;
    size_t i = strmap_find(m, key, len, (uint32_t)strmap_hash(key, len));
    return m->slots[i].key;
}

static void strmap_grow(StrMap *m)
{
    size_t cap = m->cap ? m->cap * 2 : 64;
    StrMapSlot *old = m->slots;
    size_t oldcap = m->cap;
    m->slots = calloc(cap, sizeof *m->slots);
    if (!m->slots)
        diag_die("out of memory growing a hash map to %zu slots", cap);
    m->cap = cap;
    for (size_t i = 0; i < oldcap; i++) {
        if (!old[i].key)
            continue;
        size_t j = strmap_find(m, old[i].key, old[i].len, old[i].hash);
        m->slots[j] = old[i];
    }
    free(old);
}

static void check_key_length(size_t len)
{
    if (len > STRMAP_MAX_KEY)
        diag_die("hash map key of %zu bytes is too long", len);
}

void strmap_put(StrMap *m, const char *key, size_t len, void *value)
{
    check_key_length(len);
    if ((m->count + 1) * 2 > m->cap)
        strmap_grow(m);
    uint32_t h = (uint32_t)strmap_hash(key, len);
    size_t i = strmap_find(m, key, len, h);
    if (!m->slots[i].key) {
        m->slots[i].key = key;
        m->slots[i].len = (uint32_t)len;
        m->slots[i].hash = h;
        m->count++;
    }
    m->slots[i].value = value;
}

void *strmap_put_if_absent(StrMap *m, const char *key, size_t len, void *value)
{
    check_key_length(len);
    if ((m->count + 1) * 2 > m->cap)
        strmap_grow(m);
    uint32_t h = (uint32_t)strmap_hash(key, len);
    size_t i = strmap_find(m, key, len, h);
    if (m->slots[i].key)
        return m->slots[i].value;
    m->slots[i].key = key;
    m->slots[i].len = (uint32_t)len;
    m->slots[i].hash = h;
    m->slots[i].value = value;
    m->count++;
    return NULL;
}

int strmap_remove(StrMap *m, const char *key, size_t len)
{
    if (!m->count || len > STRMAP_MAX_KEY)
        return 0;
    size_t mask = m->cap - 1;
    size_t i = strmap_find(m, key, len, (uint32_t)strmap_hash(key, len));
    if (!m->slots[i].key)
        return 0;
    /* Shift later members of the cluster back when their home slot is not
     * between the hole and their current position (cyclically). */
    size_t hole = i;
    for (size_t j = (i + 1) & mask; m->slots[j].key; j = (j + 1) & mask) {
        size_t home = m->slots[j].hash & mask;
        int between = hole <= j ? (hole < home && home <= j) : (hole < home || home <= j);
        if (!between) {
            m->slots[hole] = m->slots[j];
            hole = j;
        }
    }
    memset(&m->slots[hole], 0, sizeof m->slots[hole]);
    m->count--;
    return 1;
}
