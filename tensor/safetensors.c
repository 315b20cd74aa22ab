/* safetensors.c — reading safetensors weight files.
 *
 * The format (https://github.com/huggingface/safetensors):
 *     u64 LE  N            length of the header
 *     N bytes              JSON object, possibly padded with spaces:
 *         {"__metadata__": {"key": "value", ...},
 *          "name": {"dtype": "F32", "shape": [2, 3], "data_offsets": [begin, end]}, ...}
 *     the data section     each tensor's bytes at [begin, end) from its start,
 *                          little-endian, row-major
 *
 * Everything the header says is validated before any tensor is allocated:
 * the header length against the file (and a 100 MB ceiling, as the reference
 * implementation has), the JSON, each entry's dtype, shape and offsets, that
 * end - begin is exactly numel * itemsize, that offsets stay inside the data
 * section, that no two tensors overlap and that no name appears twice. So the
 * memory allocated is bounded by the file's own size. Then every tensor is
 * copied out (from the buffer, or read from the file), so the Safetensors
 * owns its tensors and the file can go away. Gaps between tensors are
 * allowed; the reference writer never leaves any, but they are harmless.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <cjson/cJSON.h>

#include "tssa/diag.h"
#include "tssa/io.h"
#include "tssa/tensor.h"

#if !defined(__BYTE_ORDER__) || __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "safetensors.c copies little-endian data in place: it needs a little-endian host"
#endif

enum { ST_MAX_HEADER = 100000000 };     /* the reference implementation's limit */
#define ST_MAX_EXACT_INT 9007199254740992.0  /* 2^53: JSON numbers beyond it lose digits */

typedef struct StEntry {
    char *name;
    TensorDType dtype;
    int ndim;
    int64_t sizes[TENSOR_MAX_DIMS];
    uint64_t begin, end;         /* within the data section */
    Tensor *tensor;
} StEntry;

typedef struct StName {          /* for sorting names and finding them again */
    const char *name;
    int index;
} StName;

struct Safetensors {
    int count;
    StEntry *entries;            /* in header order */
    StName *by_name;             /* sorted by name */
    int meta_count;
    char **meta_keys, **meta_values;
    StName *meta_by_key;         /* sorted by key */
};

/* ---------------------------------------------------------------- dtypes */

static const struct {
    const char *code;
    TensorDType dtype;
} st_dtypes[] = {
    {"F32", DT_F32}, {"F64", DT_F64}, {"I64", DT_I64}, {"I32", DT_I32},
    {"I16", DT_I16}, {"I8", DT_I8},   {"U8", DT_U8},   {"BOOL", DT_BOOL},
};

/* Dtypes the format defines that tensors here cannot hold. */
static const char *const st_unsupported_dtypes[] = {
    "F16", "BF16", "U16", "U32", "U64", "F8_E4M3", "F8_E5M2", "F8_E8M0", "F4", "F6_E2M3",
    "F6_E3M2", "C64",
};

static bool st_dtype(const char *code, const char *tensor, const char *name, FILE *err,
                     TensorDType *out)
{
    for (size_t i = 0; i < sizeof st_dtypes / sizeof st_dtypes[0]; i++) {
        if (strcmp(code, st_dtypes[i].code) == 0) {
            *out = st_dtypes[i].dtype;
            return true;
        }
    }
    for (size_t i = 0; i < sizeof st_unsupported_dtypes / sizeof st_unsupported_dtypes[0]; i++) {
        if (strcmp(code, st_unsupported_dtypes[i]) == 0) {
            diag_error(err, name, "tensor '%s' has dtype %s, which is not supported "
                                "(supported: F32 F64 I64 I32 I16 I8 U8 BOOL)", tensor, code);
            return false;
        }
    }
    diag_error(err, name, "tensor '%s' has unknown dtype \"%.32s\"", tensor, code);
    return false;
}

/* ---------------------------------------------------------------- freeing */

static void st_free_entries(StEntry *entries, int count)
{
    for (int i = 0; i < count; i++) {
        free(entries[i].name);
        tensor_release(entries[i].tensor);
    }
    free(entries);
}

void safetensors_close(Safetensors *st)
{
    if (!st)
        return;
    st_free_entries(st->entries, st->count);
    free(st->by_name);
    for (int i = 0; i < st->meta_count; i++) {
        free(st->meta_keys[i]);
        free(st->meta_values[i]);
    }
    free(st->meta_keys);
    free(st->meta_values);
    free(st->meta_by_key);
    free(st);
}

/* ---------------------------------------------------------------- header */

/* A JSON number that is a non-negative integer below 2^53 (so exact). */
static bool st_json_count(const cJSON *item, uint64_t *out)
{
    if (!cJSON_IsNumber(item))
        return false;
    double d = item->valuedouble;
    if (!(d >= 0 && d <= ST_MAX_EXACT_INT) || (double)(uint64_t)d != d)
        return false;
    *out = (uint64_t)d;
    return true;
}

static int st_name_compare(const void *a, const void *b)
{
    return strcmp(((const StName *)a)->name, ((const StName *)b)->name);
}

/* Sorts names (filled in by the caller) for lookup with st_find; returns
 * the first name found twice, or NULL. */
static const char *st_sort_names(StName *names, int count)
{
    qsort(names, (size_t)count, sizeof(StName), st_name_compare);
    for (int i = 1; i < count; i++)
        if (strcmp(names[i - 1].name, names[i].name) == 0)
            return names[i].name;
    return NULL;
}

static bool st_parse_metadata(Safetensors *st, const cJSON *meta, const char *name, FILE *err)
{
    if (!cJSON_IsObject(meta)) {
        diag_error(err, name, "\"__metadata__\" must be a JSON object of strings");
        return false;
    }
    int n = cJSON_GetArraySize(meta);
    st->meta_keys = calloc((size_t)(n ? n : 1), sizeof(char *));
    st->meta_values = calloc((size_t)(n ? n : 1), sizeof(char *));
    st->meta_by_key = calloc((size_t)(n ? n : 1), sizeof(StName));
    if (!st->meta_keys || !st->meta_values || !st->meta_by_key) {
        diag_error(err, name, "out of memory reading the header");
        return false;
    }
    for (const cJSON *item = meta->child; item; item = item->next) {
        if (!cJSON_IsString(item)) {
            diag_error(err, name, "\"__metadata__\" must map strings to strings; \"%s\" is not a string",
                       item->string);
            return false;
        }
        int i = st->meta_count++;
        st->meta_keys[i] = strdup(item->string);
        st->meta_values[i] = strdup(item->valuestring);
        if (!st->meta_keys[i] || !st->meta_values[i]) {
            diag_error(err, name, "out of memory reading the header");
            return false;
        }
        st->meta_by_key[i] = (StName){st->meta_keys[i], i};
    }
    const char *duplicate = st_sort_names(st->meta_by_key, st->meta_count);
    if (duplicate) {
        diag_error(err, name, "\"__metadata__\" key \"%s\" appears twice", duplicate);
        return false;
    }
    return true;
}

/* Validates one tensor entry against a data section of data_len bytes. */
static bool st_parse_entry(StEntry *e, const cJSON *item, uint64_t data_len, const char *name,
                           FILE *err)
{
    const char *tensor = e->name;
    if (!cJSON_IsObject(item)) {
        diag_error(err, name, "tensor '%s': entry must be a JSON object", tensor);
        return false;
    }
    const cJSON *dtype = cJSON_GetObjectItemCaseSensitive(item, "dtype");
    const cJSON *shape = cJSON_GetObjectItemCaseSensitive(item, "shape");
    const cJSON *offsets = cJSON_GetObjectItemCaseSensitive(item, "data_offsets");
    if (!cJSON_IsString(dtype) || !cJSON_IsArray(shape) || !cJSON_IsArray(offsets)) {
        diag_error(err, name, "tensor '%s': entry needs \"dtype\" (a string), \"shape\" and "
                            "\"data_offsets\" (arrays)", tensor);
        return false;
    }
    if (!st_dtype(dtype->valuestring, tensor, name, err, &e->dtype))
        return false;

    int ndim = cJSON_GetArraySize(shape);
    if (ndim > TENSOR_MAX_DIMS) {
        diag_error(err, name, "tensor '%s' has %d dimensions; at most %d are supported", tensor,
                   ndim, TENSOR_MAX_DIMS);
        return false;
    }
    e->ndim = 0;
    /* Strides are products of later dims, so the product runs over max(dim, 1). */
    uint64_t span = 1, numel = 1;
    for (const cJSON *dim = shape->child; dim; dim = dim->next) {
        uint64_t d;
        if (!st_json_count(dim, &d)) {
            diag_error(err, name, "tensor '%s': shape must be a list of non-negative integers",
                       tensor);
            return false;
        }
        if (__builtin_mul_overflow(span, d ? d : 1, &span) || span > INT64_MAX) {
            diag_error(err, name, "tensor '%s': shape is too large (its element count overflows)",
                       tensor);
            return false;
        }
        numel *= d;
        e->sizes[e->ndim++] = (int64_t)d;
    }
    uint64_t nbytes;
    if (__builtin_mul_overflow(numel, (uint64_t)dtype_size(e->dtype), &nbytes)) {
        diag_error(err, name, "tensor '%s': shape is too large (its byte count overflows)", tensor);
        return false;
    }

    if (cJSON_GetArraySize(offsets) != 2 || !st_json_count(offsets->child, &e->begin) ||
        !st_json_count(offsets->child->next, &e->end) || e->begin > e->end) {
        diag_error(err, name, "tensor '%s': data_offsets must be [begin, end] with "
                            "0 <= begin <= end", tensor);
        return false;
    }
    if (e->end > data_len) {
        diag_error(err, name, "tensor '%s': data_offsets [%" PRIu64 ", %" PRIu64 "] run past the "
                            "end of the data section (%" PRIu64 " bytes)",
                   tensor, e->begin, e->end, data_len);
        return false;
    }
    if (e->end - e->begin != nbytes) {
        diag_error(err, name, "tensor '%s': data_offsets [%" PRIu64 ", %" PRIu64 "] hold %" PRIu64
                            " bytes, but its shape and dtype %s need %" PRIu64,
                   tensor, e->begin, e->end, e->end - e->begin, dtype->valuestring, nbytes);
        return false;
    }
    return true;
}

static int st_begin_compare(const void *a, const void *b)
{
    const StEntry *x = *(const StEntry *const *)a, *y = *(const StEntry *const *)b;
    if (x->begin != y->begin)
        return x->begin < y->begin ? -1 : 1;
    return (x->end > y->end) - (x->end < y->end);
}

/* The format requires tensors not to share bytes; empty tensors hold none. */
static bool st_check_overlaps(const Safetensors *st, const char *name, FILE *err)
{
    StEntry **order = malloc(sizeof(StEntry *) * (size_t)(st->count ? st->count : 1));
    if (!order) {
        diag_error(err, name, "out of memory reading the header");
        return false;
    }
    int n = 0;
    for (int i = 0; i < st->count; i++)
        if (st->entries[i].end > st->entries[i].begin)
            order[n++] = &st->entries[i];
    qsort(order, (size_t)n, sizeof(StEntry *), st_begin_compare);
    bool ok = true;
    for (int i = 1; i < n && ok; i++) {
        if (order[i]->begin < order[i - 1]->end) {
            diag_error(err, name, "tensors '%s' [%" PRIu64 ", %" PRIu64 ") and '%s' [%" PRIu64
                                ", %" PRIu64 ") overlap", order[i - 1]->name, order[i - 1]->begin,
                       order[i - 1]->end, order[i]->name, order[i]->begin, order[i]->end);
            ok = false;
        }
    }
    free(order);
    return ok;
}

/* Parses and validates the JSON header (header_len bytes at `header`) for a
 * data section of data_len bytes. On success st holds every entry (without
 * tensors yet) and its metadata. */
static Safetensors *st_parse_header(const char *header, size_t header_len, uint64_t data_len,
                                    const char *name, FILE *err)
{
    const char *parse_end = NULL;
    cJSON *root = cJSON_ParseWithLengthOpts(header, header_len, &parse_end, false);
    if (!root) {
        size_t at = parse_end && parse_end >= header ? (size_t)(parse_end - header) : 0;
        diag_error(err, name, "the header is not valid JSON (near header byte %zu)", at);
        return NULL;
    }
    Safetensors *st = calloc(1, sizeof *st);
    bool ok = st != NULL;
    if (!ok)
        diag_error(err, name, "out of memory reading the header");
    for (const char *p = parse_end; ok && p < header + header_len; p++) {
        if (*p != ' ' && *p != '\t' && *p != '\n' && *p != '\r') {
            diag_error(err, name, "unexpected bytes after the JSON header (at header byte %td)",
                       p - header);
            ok = false;
        }
    }
    if (ok && !cJSON_IsObject(root)) {
        diag_error(err, name, "the header must be a JSON object");
        ok = false;
    }
    int n = ok ? cJSON_GetArraySize(root) : 0;
    if (ok && !(st->entries = calloc((size_t)(n ? n : 1), sizeof(StEntry)))) {
        diag_error(err, name, "out of memory reading the header");
        ok = false;
    }
    bool have_metadata = false;
    for (const cJSON *item = ok ? root->child : NULL; item && ok; item = item->next) {
        if (strcmp(item->string, "__metadata__") == 0) {
            if (have_metadata) {
                diag_error(err, name, "\"__metadata__\" appears twice");
                ok = false;
            } else {
                ok = st_parse_metadata(st, item, name, err);
            }
            have_metadata = true;
            continue;
        }
        StEntry *e = &st->entries[st->count];
        if (!(e->name = strdup(item->string))) {
            diag_error(err, name, "out of memory reading the header");
            ok = false;
            break;
        }
        st->count++;
        ok = st_parse_entry(e, item, data_len, name, err);
    }
    /* bsearch needs a real array even when it is empty. */
    if (ok && !have_metadata && !(st->meta_by_key = malloc(sizeof(StName)))) {
        diag_error(err, name, "out of memory reading the header");
        ok = false;
    }
    if (ok && !(st->by_name = malloc(sizeof(StName) * (size_t)(st->count ? st->count : 1)))) {
        diag_error(err, name, "out of memory reading the header");
        ok = false;
    }
    for (int i = 0; ok && i < st->count; i++)
        st->by_name[i] = (StName){st->entries[i].name, i};
    const char *duplicate = ok ? st_sort_names(st->by_name, st->count) : NULL;
    if (duplicate) {
        diag_error(err, name, "tensor '%s' appears twice in the header", duplicate);
        ok = false;
    }
    ok = ok && st_check_overlaps(st, name, err);
    cJSON_Delete(root);
    if (!ok) {
        safetensors_close(st);
        return NULL;
    }
    return st;
}

/* ---------------------------------------------------------------- loading */

/* Where tensor bytes come from: a buffer, or a file at an offset. */
typedef struct StSource {
    const unsigned char *data;   /* the data section in memory, or NULL */
    FILE *fp;                    /* otherwise the file ... */
    uint64_t data_start;         /* ... and where its data section starts */
} StSource;

static bool st_load_tensors(Safetensors *st, const StSource *src, const char *name, FILE *err)
{
    for (int i = 0; i < st->count; i++) {
        StEntry *e = &st->entries[i];
        size_t nbytes = (size_t)(e->end - e->begin);
        e->tensor = tensor_empty(e->dtype, e->ndim, e->sizes);
        if (!e->tensor) {
            diag_error(err, name, "out of memory loading tensor '%s' (%zu bytes)", e->name, nbytes);
            return false;
        }
        unsigned char *dst = tensor_data(e->tensor);
        if (nbytes == 0)
            continue;
        if (src->data) {
            memcpy(dst, src->data + e->begin, nbytes);
        } else if (fseeko(src->fp, (off_t)(src->data_start + e->begin), SEEK_SET) != 0 ||
                   fread(dst, 1, nbytes, src->fp) != nbytes) {
            diag_error(err, name, "cannot read tensor '%s': %s", e->name,
                       ferror(src->fp) ? strerror(errno) : "the file shrank");
            return false;
        }
        /* Loading a C bool that is not 0 or 1 is undefined: normalize. */
        if (e->dtype == DT_BOOL)
            for (size_t j = 0; j < nbytes; j++)
                dst[j] = dst[j] != 0;
    }
    return true;
}

/* Checks the 8-byte header length of a file of `total` bytes. */
static bool st_header_length(const unsigned char *b, uint64_t total, const char *name, FILE *err,
                             uint64_t *header_len)
{
    if (total < 8) {
        diag_error(err, name, "file is truncated: %" PRIu64 " bytes, too short for the 8-byte "
                            "header length of a safetensors file", total);
        return false;
    }
    uint64_t n = 0;
    for (int i = 7; i >= 0; i--)
        n = n << 8 | b[i];
    if (n == 0 || n > ST_MAX_HEADER) {
        diag_error(err, name, "header length %" PRIu64 " is not plausible (expected 1 to %d bytes); "
                            "not a safetensors file?", n, ST_MAX_HEADER);
        return false;
    }
    if (n > total - 8) {
        diag_error(err, name, "file is truncated: the header length is %" PRIu64 " bytes but only %"
                            PRIu64 " follow it", n, total - 8);
        return false;
    }
    *header_len = n;
    return true;
}

Safetensors *safetensors_parse(const void *bytes, size_t len, const char *name, FILE *err)
{
    const unsigned char *b = bytes;
    uint64_t header_len;
    if (!st_header_length(b, len, name, err, &header_len))
        return NULL;
    Safetensors *st = st_parse_header((const char *)b + 8, (size_t)header_len,
                                      len - 8 - header_len, name, err);
    StSource src = {.data = b + 8 + header_len};
    if (st && !st_load_tensors(st, &src, name, err)) {
        safetensors_close(st);
        return NULL;
    }
    return st;
}

Safetensors *safetensors_open(const char *path, FILE *err)
{
    FILE *fp = fopen(path, "rb");
    if (!fp) {
        diag_error(err, path, "cannot open: %s", strerror(errno));
        return NULL;
    }
    Safetensors *st = NULL;
    char *header = NULL;
    struct stat info;
    unsigned char length_bytes[8];
    uint64_t header_len;
    if (fstat(fileno(fp), &info) != 0) {
        diag_error(err, path, "cannot stat: %s", strerror(errno));
    } else if (!S_ISREG(info.st_mode)) {
        diag_error(err, path, "not a regular file (safetensors files are read in place)");
    } else if (fread(length_bytes, 1, info.st_size < 8 ? (size_t)info.st_size : 8, fp) !=
                   (info.st_size < 8 ? (size_t)info.st_size : 8)) {
        diag_error(err, path, "cannot read: %s", strerror(errno));
    } else if (st_header_length(length_bytes, (uint64_t)info.st_size, path, err, &header_len)) {
        /* header_len <= ST_MAX_HEADER and <= the file size: safe to allocate. */
        if (!(header = malloc((size_t)header_len)))
            diag_error(err, path, "out of memory reading a %" PRIu64 "-byte header", header_len);
        else if (fread(header, 1, (size_t)header_len, fp) != header_len)
            diag_error(err, path, "cannot read the header: %s",
                       ferror(fp) ? strerror(errno) : "the file shrank");
        else
            st = st_parse_header(header, (size_t)header_len,
                                 (uint64_t)info.st_size - 8 - header_len, path, err);
        StSource src = {.fp = fp, .data_start = 8 + header_len};
        if (st && !st_load_tensors(st, &src, path, err)) {
            safetensors_close(st);
            st = NULL;
        }
    }
    free(header);
    fclose(fp);
    return st;
}

/* ---------------------------------------------------------------- queries */

static int st_find(const StName *sorted, int count, const char *name)
{
    StName key = {name, -1};
    const StName *hit = bsearch(&key, sorted, (size_t)count, sizeof(StName), st_name_compare);
    return hit ? hit->index : -1;
}

Tensor *safetensors_get(const Safetensors *st, const char *name)
{
    int i = st && name ? st_find(st->by_name, st->count, name) : -1;
    return i < 0 ? NULL : tensor_retain(st->entries[i].tensor);
}

const char *safetensors_metadata(const Safetensors *st, const char *key)
{
    int i = st && key ? st_find(st->meta_by_key, st->meta_count, key) : -1;
    return i < 0 ? NULL : st->meta_values[i];
}

int safetensors_count(const Safetensors *st)
{
    return st ? st->count : 0;
}

const char *safetensors_name(const Safetensors *st, int i)
{
    return st && i >= 0 && i < st->count ? st->entries[i].name : NULL;
}
