/* npy.c — NumPy .npy files: reading (format 1.0, 2.0, 3.0) and writing.
 *
 * A .npy file is a preamble, a header and the raw data:
 *     "\x93NUMPY" major minor  header-length (u16 LE in 1.0, u32 LE in 2.0/3.0)
 *     header: a Python dict literal, e.g.
 *         {'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }
 *     padded with spaces and a final '\n'
 *     data: numel * itemsize bytes
 * The header is parsed as the Python literal it is (a small recursive
 * descent parser over dicts, tuples, lists, strings, ints and names), not by
 * searching for substrings, so keys may come in any order, with any spacing
 * and trailing commas, and malformed headers get a message that says where.
 *
 * Reading checks, in order and before allocating anything sized by the file:
 * magic and version, header length against the file, the dict, the dtype,
 * the shape (dims, overflow), and that exactly numel * itemsize bytes follow.
 * Regular files are read in place (header first, then the data straight into
 * the tensor); pipes and devices are read incrementally up to the size the
 * header announces, so an endless stream cannot make the reader hang.
 *
 * Writing produces the bytes numpy.save (1.24) writes for the same array:
 * version 1.0 (2.0 only if the header would not fit a u16), the same dict
 * text, 21 columns of growth space after it and padding to 64 bytes. The data
 * is written in logical row-major order from any strided view, to a
 * temporary file that is then renamed over the target.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tssa/diag.h"
#include "tssa/io.h"
#include "tssa/tensor.h"
#include "tssa/util.h"

#if !defined(__BYTE_ORDER__) || __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "npy.c reads and writes little-endian data in place: it needs a little-endian host"
#endif

enum {
    NPY_MAGIC_LEN = 6,
    NPY_ALIGN = 64,              /* numpy's ARRAY_ALIGN */
    NPY_GROWTH_DIGITS = 21,      /* numpy's GROWTH_AXIS_MAX_DIGITS */
    NPY_SHORT_STRING = 32,       /* keys and descrs are short; longer ones are no key we know */
    NPY_MAX_NESTING = 32,        /* header literals nest (structured dtypes) but not deeply */
};

static const char npy_magic[NPY_MAGIC_LEN] = {'\x93', 'N', 'U', 'M', 'P', 'Y'};

/* ---------------------------------------------------------------- dtypes */

typedef struct NpyDtype {
    const char *code;       /* descr without its byte-order character */
    const char *canonical;  /* the descr numpy writes */
    TensorDType dtype;
} NpyDtype;

static const NpyDtype npy_dtypes[] = {
    {"b1", "|b1", DT_BOOL}, {"u1", "|u1", DT_U8},  {"i1", "|i1", DT_I8},
    {"i2", "<i2", DT_I16},  {"i4", "<i4", DT_I32}, {"i8", "<i8", DT_I64},
    {"f4", "<f4", DT_F32},  {"f8", "<f8", DT_F64},
};

static const char *npy_descr_of(TensorDType dt)
{
    for (size_t i = 0; i < sizeof npy_dtypes / sizeof npy_dtypes[0]; i++)
        if (npy_dtypes[i].dtype == dt)
            return npy_dtypes[i].canonical;
    return NULL;
}

/* Maps a descr string to a dtype, or explains why it cannot. */
static bool npy_dtype_from_descr(const char *descr, const char *name, FILE *err, TensorDType *out)
{
    char order = '=';
    const char *code = descr;
    if (*code == '<' || *code == '>' || *code == '=' || *code == '|')
        order = *code++;
    for (size_t i = 0; i < sizeof npy_dtypes / sizeof npy_dtypes[0]; i++) {
        if (strcmp(code, npy_dtypes[i].code) != 0)
            continue;
        if (order == '>' && dtype_size(npy_dtypes[i].dtype) > 1) {
            diag_error(err, name,
                       "big-endian data ('%s') is not supported; save it little-endian "
                       "(arr.astype('<%s'))", descr, code);
            return false;
        }
        *out = npy_dtypes[i].dtype;
        return true;
    }
    if (code[0] == 'O')
        diag_error(err, name, "object arrays ('%s') hold pickled Python objects and cannot be read",
                   descr);
    else
        diag_error(err, name,
                   "dtype '%s' is not supported (supported: <f4 <f8 <i8 <i4 <i2 |i1 |u1 |b1)",
                   descr);
    return false;
}

/* ---------------------------------------------------------------- header literal */

/* What the header parser keeps of one Python literal: enough to check the
 * three entries numpy writes and to describe anything else. */
typedef enum PyKind { PY_STR, PY_BOOL, PY_INT, PY_TUPLE, PY_LIST, PY_DICT, PY_OTHER } PyKind;

typedef struct PyValue {
    PyKind kind;
    char str[NPY_SHORT_STRING];   /* PY_STR (truncated: str_too_long) */
    bool str_too_long;
    bool boolean;                 /* PY_BOOL */
    bool int_negative;            /* PY_INT, or any tuple item */
    bool int_overflow;            /* PY_INT, or any tuple item: beyond int64 */
    int64_t integer;              /* PY_INT */
    int count;                    /* PY_TUPLE: items (only the first TENSOR_MAX_DIMS kept) */
    bool all_ints;                /* PY_TUPLE: every item is an int */
    int64_t items[TENSOR_MAX_DIMS];
} PyValue;

typedef struct HeaderParser {
    const char *start, *p, *end;
    const char *name;
    FILE *err;
} HeaderParser;

static bool hp_fail(HeaderParser *hp, const char *what)
{
    ptrdiff_t at = hp->p - hp->start;
    if (hp->p == hp->end)
        diag_error(hp->err, hp->name, "bad header: %s at header byte %td (found the end)", what, at);
    else if (*hp->p >= 0x20 && *hp->p < 0x7f)
        diag_error(hp->err, hp->name, "bad header: %s at header byte %td (found '%c')", what, at,
                   *hp->p);
    else
        diag_error(hp->err, hp->name, "bad header: %s at header byte %td (found byte 0x%02x)",
                   what, at, (unsigned char)*hp->p);
    return false;
}

static void hp_skip_space(HeaderParser *hp)
{
    while (hp->p < hp->end && (*hp->p == ' ' || *hp->p == '\t' || *hp->p == '\n' ||
                               *hp->p == '\r' || *hp->p == '\f' || *hp->p == '\v'))
        hp->p++;
}

static bool hp_accept(HeaderParser *hp, char c)
{
    hp_skip_space(hp);
    if (hp->p < hp->end && *hp->p == c) {
        hp->p++;
        return true;
    }
    return false;
}

static bool hp_value(HeaderParser *hp, PyValue *v, int depth);

/* string := "'" chars "'" | '"' chars '"'   (a backslash takes the next char) */
static bool hp_string(HeaderParser *hp, PyValue *v)
{
    char quote = *hp->p++;
    size_t n = 0;
    v->kind = PY_STR;
    v->str_too_long = false;
    while (hp->p < hp->end && *hp->p != quote) {
        if (*hp->p == '\n')
            return hp_fail(hp, "unterminated string");
        if (*hp->p == '\\' && hp->p + 1 < hp->end)
            hp->p++;
        if (n + 1 < sizeof v->str)
            v->str[n++] = *hp->p;
        else
            v->str_too_long = true;
        hp->p++;
    }
    if (hp->p == hp->end)
        return hp_fail(hp, "unterminated string");
    hp->p++;
    v->str[n] = '\0';
    return true;
}

static bool hp_is_word_char(char c)
{
    return c == '_' || c == '.' || (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') ||
           (c >= 'A' && c <= 'Z');
}

/* int := ['+'|'-'] digits ['L']   (Python 2 wrote long dims as 3L)
 * Any other number (3.0, 1e5, 0x10) is kept as PY_OTHER. */
static bool hp_number(HeaderParser *hp, PyValue *v)
{
    bool negative = false;
    if (*hp->p == '+' || *hp->p == '-')
        negative = *hp->p++ == '-';
    if (hp->p == hp->end || *hp->p < '0' || *hp->p > '9')
        return hp_fail(hp, "expected a digit");
    uint64_t value = 0;
    bool overflow = false;
    while (hp->p < hp->end && *hp->p >= '0' && *hp->p <= '9') {
        unsigned digit = (unsigned)(*hp->p++ - '0');
        if (value > (UINT64_MAX - digit) / 10)
            overflow = true;
        else
            value = value * 10 + digit;
    }
    if (hp->p < hp->end && (*hp->p == 'L' || *hp->p == 'l') &&
        (hp->p + 1 == hp->end || !hp_is_word_char(hp->p[1])))
        hp->p++;
    if (hp->p < hp->end && hp_is_word_char(*hp->p)) {
        /* A float, hex or other literal: skip it (with an exponent's sign). */
        while (hp->p < hp->end && (hp_is_word_char(*hp->p) ||
                                   ((*hp->p == '+' || *hp->p == '-') &&
                                    (hp->p[-1] == 'e' || hp->p[-1] == 'E'))))
            hp->p++;
        v->kind = PY_OTHER;
        return true;
    }
    v->kind = PY_INT;
    v->int_negative = negative && value != 0;
    v->int_overflow = overflow || value > INT64_MAX;
    v->integer = v->int_overflow ? 0 : negative ? -(int64_t)value : (int64_t)value;
    return true;
}

/* name := True | False | None | any other identifier or number-like word */
static bool hp_word(HeaderParser *hp, PyValue *v)
{
    const char *word = hp->p;
    while (hp->p < hp->end && hp_is_word_char(*hp->p))
        hp->p++;
    size_t len = (size_t)(hp->p - word);
    if (len == 0)
        return hp_fail(hp, "expected a value");
    if ((len == 4 && memcmp(word, "True", 4) == 0) || (len == 5 && memcmp(word, "False", 5) == 0)) {
        v->kind = PY_BOOL;
        v->boolean = len == 4;
    } else {
        v->kind = PY_OTHER;
    }
    return true;
}

/* tuple := '(' [value (',' value)* [',']] ')'   -- '(' value ')' is just the value
 * list  := '[' [value (',' value)* [',']] ']' */
static bool hp_sequence(HeaderParser *hp, PyValue *v, int depth)
{
    char close = *hp->p == '(' ? ')' : ']';
    bool is_tuple = close == ')';
    hp->p++;
    int count = 0;
    bool saw_comma = false, all_ints = true, negative = false, overflow = false;
    int64_t items[TENSOR_MAX_DIMS];
    PyValue item;
    while (!hp_accept(hp, close)) {
        if (count > 0 && !saw_comma)
            return hp_fail(hp, is_tuple ? "expected ',' or ')'" : "expected ',' or ']'");
        if (!hp_value(hp, &item, depth + 1))
            return false;
        if (item.kind == PY_INT) {
            negative |= item.int_negative;
            overflow |= item.int_overflow;
            if (count < TENSOR_MAX_DIMS)
                items[count] = item.integer;
        } else {
            all_ints = false;
        }
        count++;
        saw_comma = hp_accept(hp, ',');
    }
    if (is_tuple && count == 1 && !saw_comma) {   /* a parenthesized expression */
        *v = item;
        return true;
    }
    v->kind = is_tuple ? PY_TUPLE : PY_LIST;
    v->count = count;
    v->all_ints = all_ints;
    v->int_negative = negative;
    v->int_overflow = overflow;
    memcpy(v->items, items, sizeof(int64_t) * (size_t)(count < TENSOR_MAX_DIMS ? count : TENSOR_MAX_DIMS));
    return true;
}

/* dict := '{' [value ':' value (',' value ':' value)* [',']] '}'  (nested dicts are skipped) */
static bool hp_skip_dict(HeaderParser *hp, PyValue *v, int depth)
{
    hp->p++;
    bool first = true;
    PyValue item;
    while (!hp_accept(hp, '}')) {
        if (!first && !hp_accept(hp, ','))
            return hp_fail(hp, "expected ',' or '}'");
        if (hp_accept(hp, '}'))
            break;
        if (!hp_value(hp, &item, depth + 1))
            return false;
        if (!hp_accept(hp, ':'))
            return hp_fail(hp, "expected ':'");
        if (!hp_value(hp, &item, depth + 1))
            return false;
        first = false;
    }
    v->kind = PY_DICT;
    return true;
}

static bool hp_value(HeaderParser *hp, PyValue *v, int depth)
{
    if (depth > NPY_MAX_NESTING)
        return hp_fail(hp, "values nested too deeply");
    hp_skip_space(hp);
    if (hp->p == hp->end)
        return hp_fail(hp, "expected a value");
    char c = *hp->p;
    if (c == '\'' || c == '"')
        return hp_string(hp, v);
    if (c == '(' || c == '[')
        return hp_sequence(hp, v, depth);
    if (c == '{')
        return hp_skip_dict(hp, v, depth);
    if (c == '+' || c == '-' || (c >= '0' && c <= '9'))
        return hp_number(hp, v);
    return hp_word(hp, v);
}

/* ---------------------------------------------------------------- header */

typedef struct NpyHeader {
    TensorDType dtype;
    int ndim;
    int64_t sizes[TENSOR_MAX_DIMS];
    size_t nbytes;              /* of the data that must follow the header */
} NpyHeader;

/* Formats a shape as Python prints a tuple, for messages. */
static const char *npy_shape_text(char *buf, size_t cap, int ndim, const int64_t *sizes)
{
    size_t n = (size_t)snprintf(buf, cap, "(");
    for (int i = 0; i < ndim && n < cap; i++)
        n += (size_t)snprintf(buf + n, cap - n, "%s%" PRId64, i ? ", " : "", sizes[i]);
    if (n < cap)
        snprintf(buf + n, cap - n, ndim == 1 ? ",)" : ")");
    return buf;
}

/* Checks the 'shape' entry and computes the data size it implies. */
static bool npy_check_shape(const PyValue *shape, TensorDType dtype, const char *name, FILE *err,
                            NpyHeader *h)
{
    if (shape->kind == PY_INT) {
        diag_error(err, name, "bad header: 'shape' must be a tuple, not the integer %" PRId64
                   " (a 1-tuple is written (%" PRId64 ",))", shape->integer, shape->integer);
        return false;
    }
    if (shape->kind != PY_TUPLE || !shape->all_ints) {
        diag_error(err, name, "bad header: 'shape' must be a tuple of integers");
        return false;
    }
    if (shape->int_negative) {
        diag_error(err, name, "bad header: 'shape' has a negative dimension");
        return false;
    }
    if (shape->int_overflow) {
        diag_error(err, name, "bad header: 'shape' has a dimension that does not fit in 64 bits");
        return false;
    }
    if (shape->count > TENSOR_MAX_DIMS) {
        diag_error(err, name, "array has %d dimensions; at most %d are supported", shape->count,
                   TENSOR_MAX_DIMS);
        return false;
    }
    /* Every stride (a product of later dims, counting 0 as 1) must fit as
     * well as numel, so the product runs over max(dim, 1). */
    int64_t span = 1, numel = 1;
    for (int i = 0; i < shape->count; i++) {
        int64_t d = shape->items[i];
        if (!ckd_mul_i64(&span, span, d > 0 ? d : 1)) {
            char text[512];
            diag_error(err, name, "shape %s is too large (its element count overflows 64 bits)",
                       npy_shape_text(text, sizeof text, shape->count, shape->items));
            return false;
        }
        numel *= d;   /* <= span, cannot overflow */
    }
    int64_t nbytes;
    if (!ckd_mul_i64(&nbytes, numel, (int64_t)dtype_size(dtype)) ||
        (uint64_t)nbytes > SIZE_MAX) {
        char text[512];
        diag_error(err, name, "shape %s is too large (its byte count overflows)",
                   npy_shape_text(text, sizeof text, shape->count, shape->items));
        return false;
    }
    h->ndim = shape->count;
    memcpy(h->sizes, shape->items, sizeof(int64_t) * (size_t)shape->count);
    h->nbytes = (size_t)nbytes;
    return true;
}

/* Fortran and C order store the same bytes when at most one dim exceeds 1. */
static bool npy_order_is_irrelevant(const PyValue *shape)
{
    int long_dims = 0;
    for (int i = 0; i < shape->count && i < TENSOR_MAX_DIMS; i++) {
        if (shape->items[i] == 0)
            return true;
        long_dims += shape->items[i] > 1;
    }
    return long_dims <= 1;
}

/* header := dict whitespace*   with exactly the keys descr, fortran_order, shape */
static bool npy_decode_header(const char *text, size_t len, const char *name, FILE *err,
                              NpyHeader *h)
{
    HeaderParser hp = {.start = text, .p = text, .end = text + len, .name = name, .err = err};
    PyValue key, value, descr = {0}, fortran = {0}, shape = {0};
    bool have_descr = false, have_fortran = false, have_shape = false;

    if (!hp_accept(&hp, '{'))
        return hp_fail(&hp, "expected '{'");
    bool first = true;
    while (!hp_accept(&hp, '}')) {
        if (!first && !hp_accept(&hp, ','))
            return hp_fail(&hp, "expected ',' or '}'");
        if (hp_accept(&hp, '}'))
            break;
        first = false;
        const char *key_at = hp.p;
        if (!hp_value(&hp, &key, 0))
            return false;
        if (!hp_accept(&hp, ':'))
            return hp_fail(&hp, "expected ':'");
        if (!hp_value(&hp, &value, 0))
            return false;
        bool *have;
        PyValue *slot;
        if (key.kind == PY_STR && !key.str_too_long && strcmp(key.str, "descr") == 0)
            have = &have_descr, slot = &descr;
        else if (key.kind == PY_STR && !key.str_too_long && strcmp(key.str, "fortran_order") == 0)
            have = &have_fortran, slot = &fortran;
        else if (key.kind == PY_STR && !key.str_too_long && strcmp(key.str, "shape") == 0)
            have = &have_shape, slot = &shape;
        else if (key.kind == PY_STR && !key.str_too_long) {
            diag_error(err, name, "bad header: unexpected key '%s' (a .npy header has 'descr', "
                                  "'fortran_order' and 'shape')", key.str);
            return false;
        } else {
            hp.p = key_at;
            hp_skip_space(&hp);
            return hp_fail(&hp, "expected a key ('descr', 'fortran_order' or 'shape')");
        }
        if (*have) {
            diag_error(err, name, "bad header: key '%s' appears twice", key.str);
            return false;
        }
        *have = true;
        *slot = value;
    }
    hp_skip_space(&hp);
    if (hp.p != hp.end)
        return hp_fail(&hp, "unexpected text after the header dict");
    if (!have_descr || !have_fortran || !have_shape) {
        diag_error(err, name, "bad header: missing key '%s'",
                   !have_descr ? "descr" : !have_fortran ? "fortran_order" : "shape");
        return false;
    }

    if (descr.kind == PY_LIST) {
        diag_error(err, name, "structured arrays (a list 'descr') are not supported");
        return false;
    }
    if (descr.kind != PY_STR || descr.str_too_long) {
        diag_error(err, name, "bad header: 'descr' must be a short dtype string like '<f4'");
        return false;
    }
    if (!npy_dtype_from_descr(descr.str, name, err, &h->dtype))
        return false;
    if (fortran.kind != PY_BOOL) {
        diag_error(err, name, "bad header: 'fortran_order' must be True or False");
        return false;
    }
    if (!npy_check_shape(&shape, h->dtype, name, err, h))
        return false;
    if (fortran.boolean && !npy_order_is_irrelevant(&shape)) {
        diag_error(err, name, "Fortran-order arrays are not supported; save "
                             "np.ascontiguousarray(arr) instead");
        return false;
    }
    return true;
}

/* ---------------------------------------------------------------- preamble */

typedef struct NpyPreamble {
    size_t header_start;    /* 10 (1.0) or 12 (2.0, 3.0) */
    size_t header_len;
} NpyPreamble;

/* Decodes magic, version and header length from the first `avail` bytes of
 * a file of `total` bytes (avail >= min(total, 12)). */
static bool npy_decode_preamble(const unsigned char *b, size_t avail, size_t total,
                                const char *name, FILE *err, NpyPreamble *pre)
{
    if (avail == 0) {
        diag_error(err, name, "file is empty, not a .npy file");
        return false;
    }
    size_t magic_seen = avail < NPY_MAGIC_LEN ? avail : NPY_MAGIC_LEN;
    if (memcmp(b, npy_magic, magic_seen) != 0) {
        diag_error(err, name, "not a .npy file (it does not start with \"\\x93NUMPY\")");
        return false;
    }
    if (avail < NPY_MAGIC_LEN + 2) {
        diag_error(err, name, "file is truncated: %zu bytes, too short for a .npy preamble", total);
        return false;
    }
    unsigned major = b[6], minor = b[7];
    if (major < 1 || major > 3 || minor != 0) {
        diag_error(err, name, "unsupported .npy format version %u.%u (1.0, 2.0 and 3.0 are)",
                   major, minor);
        return false;
    }
    pre->header_start = major == 1 ? 10 : 12;
    if (avail < pre->header_start) {
        diag_error(err, name, "file is truncated: %zu bytes, too short for a .npy preamble", total);
        return false;
    }
    pre->header_len = major == 1 ? (size_t)b[8] | (size_t)b[9] << 8
                                 : (size_t)b[8] | (size_t)b[9] << 8 | (size_t)b[10] << 16 |
                                       (size_t)b[11] << 24;
    if (pre->header_len > total - pre->header_start) {
        diag_error(err, name, "file is truncated: the header length is %zu bytes but only %zu "
                             "follow the preamble", pre->header_len, total - pre->header_start);
        return false;
    }
    return true;
}

static bool npy_check_data_len(const NpyHeader *h, size_t data_len, const char *name, FILE *err)
{
    if (data_len == h->nbytes)
        return true;
    char text[512];
    diag_error(err, name, "data is %s than the header says: shape %s of %s needs %zu bytes, "
               "but %zu follow the header", data_len < h->nbytes ? "shorter" : "longer",
               npy_shape_text(text, sizeof text, h->ndim, h->sizes), dtype_name(h->dtype),
               h->nbytes, data_len);
    return false;
}

static Tensor *npy_new_tensor(const NpyHeader *h, const char *name, FILE *err)
{
    Tensor *t = tensor_empty(h->dtype, h->ndim, h->sizes);
    if (!t)
        diag_error(err, name, "out of memory reading %zu bytes of data", h->nbytes);
    return t;
}

/* A C bool holding anything but 0 or 1 is undefined behaviour to load, and
 * numpy treats any nonzero byte as True: normalize. */
static void npy_normalize_bools(Tensor *t, size_t nbytes)
{
    if (t->dtype != DT_BOOL)
        return;
    unsigned char *bytes = tensor_data(t);
    for (size_t i = 0; i < nbytes; i++)
        bytes[i] = bytes[i] != 0;
}

/* ---------------------------------------------------------------- reading */

Tensor *npy_parse(const void *bytes, size_t len, const char *name, FILE *err)
{
    const unsigned char *b = bytes;
    NpyPreamble pre;
    NpyHeader h;
    if (!npy_decode_preamble(b, len, len, name, err, &pre) ||
        !npy_decode_header((const char *)b + pre.header_start, pre.header_len, name, err, &h))
        return NULL;
    size_t data_at = pre.header_start + pre.header_len;
    if (!npy_check_data_len(&h, len - data_at, name, err))
        return NULL;
    Tensor *t = npy_new_tensor(&h, name, err);
    if (!t)
        return NULL;
    if (h.nbytes > 0)
        memcpy(tensor_data(t), b + data_at, h.nbytes);
    npy_normalize_bools(t, h.nbytes);
    return t;
}

/* Regular file of known size: header first, then the data straight into the tensor. */
static Tensor *npy_read_regular(FILE *fp, size_t size, const char *path, FILE *err)
{
    unsigned char pre_bytes[12];
    size_t avail = fread(pre_bytes, 1, size < sizeof pre_bytes ? size : sizeof pre_bytes, fp);
    NpyPreamble pre;
    if (!npy_decode_preamble(pre_bytes, avail, size, path, err, &pre))
        return NULL;
    char *header = malloc(pre.header_len ? pre.header_len : 1);
    if (!header) {
        diag_error(err, path, "out of memory reading a %zu-byte header", pre.header_len);
        return NULL;
    }
    NpyHeader h;
    bool ok = fseek(fp, (long)pre.header_start, SEEK_SET) == 0 &&
              fread(header, 1, pre.header_len, fp) == pre.header_len;
    if (!ok)
        diag_error(err, path, "cannot read the header: %s", ferror(fp) ? strerror(errno) : "file shrank");
    ok = ok && npy_decode_header(header, pre.header_len, path, err, &h);
    free(header);
    if (!ok || !npy_check_data_len(&h, size - pre.header_start - pre.header_len, path, err))
        return NULL;
    Tensor *t = npy_new_tensor(&h, path, err);
    if (!t)
        return NULL;
    if (h.nbytes > 0 && fread(tensor_data(t), 1, h.nbytes, fp) != h.nbytes) {
        diag_error(err, path, "cannot read the data: %s", ferror(fp) ? strerror(errno) : "file shrank");
        tensor_release(t);
        return NULL;
    }
    npy_normalize_bools(t, h.nbytes);
    return t;
}

/* Appends up to `want` more bytes from fp to *buf (growing it as data
 * arrives, so memory follows what the stream really holds). Returns false
 * on a read error or out of memory; a short stream is not an error here. */
static bool npy_stream_append(FILE *fp, unsigned char **buf, size_t *len, size_t *cap, size_t want,
                              const char *path, FILE *err)
{
    while (want > 0) {
        if (*len == *cap) {
            size_t new_cap = 65536;
            if (*cap >= new_cap && !ckd_mul_size(&new_cap, *cap, 2))
                new_cap = SIZE_MAX;
            unsigned char *grown = new_cap > *cap ? realloc(*buf, new_cap) : NULL;
            if (!grown) {
                diag_error(err, path, "out of memory reading the stream");
                return false;
            }
            *buf = grown;
            *cap = new_cap;
        }
        size_t chunk = *cap - *len < want ? *cap - *len : want;
        size_t got = fread(*buf + *len, 1, chunk, fp);
        *len += got;
        want -= got;
        if (got < chunk) {
            if (ferror(fp)) {
                diag_error(err, path, "read error: %s", strerror(errno));
                return false;
            }
            return true;   /* end of stream */
        }
    }
    return true;
}

/* Pipe or device: read only as far as the header says the file goes (plus
 * one byte to detect extra data), then parse what arrived. */
static Tensor *npy_read_stream(FILE *fp, const char *path, FILE *err)
{
    unsigned char *buf = NULL;
    size_t len = 0, cap = 0;
    Tensor *t = NULL;
    if (!npy_stream_append(fp, &buf, &len, &cap, 12, path, err))
        goto done;
    NpyPreamble pre;
    /* Only the header length is wanted here; npy_parse reports every error. */
    if (npy_decode_preamble(buf, len, SIZE_MAX, path, NULL, &pre)) {
        size_t header_end = pre.header_start + pre.header_len;
        if (header_end > len && !npy_stream_append(fp, &buf, &len, &cap, header_end - len, path, err))
            goto done;
        NpyHeader h;
        if (len >= header_end &&
            npy_decode_header((const char *)buf + pre.header_start, pre.header_len, path, NULL, &h) &&
            h.nbytes < SIZE_MAX - header_end) {
            /* A stream has no size to check the header against: its
             * declared data must at least fit in this machine's memory. */
            if (h.nbytes > physical_memory_bytes()) {
                diag_error(err, path, "the header's shape needs %zu bytes of data, more than "
                                      "this machine's memory", h.nbytes);
                goto done;
            }
            size_t file_end = header_end + h.nbytes + 1;   /* one byte more reveals extra data */
            if (file_end > len && !npy_stream_append(fp, &buf, &len, &cap, file_end - len, path, err))
                goto done;
        }
    }
    t = npy_parse(buf, len, path, err);
done:
    free(buf);
    return t;
}

Tensor *npy_read(const char *path, FILE *err)
{
    FILE *fp = fopen(path, "rb");
    if (!fp) {
        diag_error(err, path, "cannot open: %s", strerror(errno));
        return NULL;
    }
    struct stat st;
    Tensor *t = NULL;
    if (fstat(fileno(fp), &st) != 0)
        diag_error(err, path, "cannot stat: %s", strerror(errno));
    else if (S_ISDIR(st.st_mode))
        diag_error(err, path, "is a directory, not a .npy file");
    else if (S_ISREG(st.st_mode) && (uintmax_t)st.st_size <= SIZE_MAX && st.st_size <= LONG_MAX)
        t = npy_read_regular(fp, (size_t)st.st_size, path, err);
    else
        t = npy_read_stream(fp, path, err);
    fclose(fp);
    return t;
}

/* ---------------------------------------------------------------- writing */

/* The header numpy.save writes: dict, growth space, padding, '\n'. Returns
 * the preamble + header length written into out, or 0 if it does not fit. */
static size_t npy_format_header(const Tensor *t, unsigned char *out, size_t cap)
{
    char dict[1024];
    char shape[512];
    int n = snprintf(dict, sizeof dict, "{'descr': '%s', 'fortran_order': False, 'shape': %s, }",
                     npy_descr_of(t->dtype), npy_shape_text(shape, sizeof shape, t->ndim, t->sizes));
    if (n < 0 || (size_t)n >= sizeof dict)
        return 0;
    size_t dict_len = (size_t)n;
    if (t->ndim > 0) {
        /* numpy leaves room for the first dim to grow to 21 digits. */
        int digits = snprintf(NULL, 0, "%" PRId64, t->sizes[0]);
        for (int i = digits; i < NPY_GROWTH_DIGITS && dict_len + 1 < sizeof dict; i++)
            dict[dict_len++] = ' ';
    }
    /* Version 1.0 unless its u16 length field cannot hold the header (only
     * possible with more dims than numpy allows; kept for completeness). */
    size_t start = 10;
    size_t pad = NPY_ALIGN - (start + dict_len + 1) % NPY_ALIGN;
    if (dict_len + pad + 1 > 0xffff) {
        start = 12;
        pad = NPY_ALIGN - (start + dict_len + 1) % NPY_ALIGN;
    }
    size_t header_len = dict_len + pad + 1;
    if (start + header_len > cap)
        return 0;
    memcpy(out, npy_magic, NPY_MAGIC_LEN);
    out[6] = start == 10 ? 1 : 2;
    out[7] = 0;
    out[8] = (unsigned char)(header_len & 0xff);
    out[9] = (unsigned char)(header_len >> 8 & 0xff);
    if (start == 12) {
        out[10] = (unsigned char)(header_len >> 16 & 0xff);
        out[11] = (unsigned char)(header_len >> 24 & 0xff);
    }
    memcpy(out + start, dict, dict_len);
    memset(out + start + dict_len, ' ', pad);
    out[start + header_len - 1] = '\n';
    return start + header_len;
}

/* Checks that every element of the view lies inside its storage, so a
 * malformed tensor is an error rather than a wild read. */
static bool npy_view_in_storage(const Tensor *t)
{
    if (tensor_numel(t) == 0)
        return true;
    if (!t->storage || !t->storage->data || t->offset < 0)
        return false;
    int64_t lo = t->offset, hi = t->offset;
    for (int i = 0; i < t->ndim; i++) {
        int64_t reach;
        if (!ckd_mul_i64(&reach, t->sizes[i] - 1, t->strides[i]))
            return false;
        if (!ckd_add_i64(reach < 0 ? &lo : &hi, reach < 0 ? lo : hi, reach))
            return false;
    }
    size_t item = dtype_size(t->dtype);
    return lo >= 0 && (uint64_t)hi < t->storage->nbytes / item;
}

/* Writes the elements in logical row-major order: an odometer over all dims
 * but the last, one row per step (a single fwrite when the row is dense). */
static bool npy_write_data(FILE *fp, const Tensor *t)
{
    int64_t numel = tensor_numel(t);
    if (numel == 0)
        return true;
    size_t item = dtype_size(t->dtype);
    const char *base = tensor_data(t);
    if (t->ndim == 0)
        return fwrite(base, item, 1, fp) == 1;
    int last = t->ndim - 1;
    int64_t row_len = t->sizes[last], row_stride = t->strides[last];
    int64_t index[TENSOR_MAX_DIMS] = {0};
    int64_t offset = 0;   /* elements from base to the current row's start */
    char gather[4096];
    for (;;) {
        const char *row = base + offset * (int64_t)item;
        if (row_stride == 1 || row_len == 1) {
            if (fwrite(row, item, (size_t)row_len, fp) != (size_t)row_len)
                return false;
        } else {
            size_t per_chunk = sizeof gather / item;
            for (int64_t j = 0; j < row_len;) {
                size_t n = 0;
                for (; n < per_chunk && j < row_len; n++, j++)
                    memcpy(gather + n * item, row + j * row_stride * (int64_t)item, item);
                if (fwrite(gather, item, n, fp) != n)
                    return false;
            }
        }
        int d = last - 1;
        for (; d >= 0; d--) {
            offset += t->strides[d];
            if (++index[d] < t->sizes[d])
                break;
            offset -= t->strides[d] * t->sizes[d];
            index[d] = 0;
        }
        if (d < 0)
            return true;
    }
}

static bool npy_write_stream(FILE *fp, const Tensor *t, const unsigned char *header, size_t header_len)
{
    return fwrite(header, 1, header_len, fp) == header_len && npy_write_data(fp, t);
}

/* Creates a fresh temporary file beside `path` (same directory, so the
 * rename is atomic); O_EXCL with a pid and counter makes the name unique. */
static int npy_create_temp(const char *path, char **temp_path)
{
    static atomic_uint counter;
    size_t cap = strlen(path) + 64;
    char *name = malloc(cap);
    if (!name)
        return -1;
    for (int attempt = 0; attempt < 100; attempt++) {
        snprintf(name, cap, "%s.tmp.%ld.%u", path, (long)getpid(), atomic_fetch_add(&counter, 1));
        int fd = open(name, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
        if (fd >= 0) {
            *temp_path = name;
            return fd;
        }
        if (errno != EEXIST)
            break;
    }
    int saved = errno;
    free(name);
    errno = saved;
    return -1;
}

bool npy_write(const char *path, const Tensor *t, FILE *err)
{
    if (!t || (unsigned)t->dtype >= DT_COUNT || t->ndim < 0 || t->ndim > TENSOR_MAX_DIMS ||
        !npy_descr_of(t->dtype)) {
        diag_error(err, path, "cannot write: not a valid tensor");
        return false;
    }
    for (int i = 0; i < t->ndim; i++) {
        if (t->sizes[i] < 0) {
            diag_error(err, path, "cannot write: tensor has a negative size");
            return false;
        }
    }
    if (!npy_view_in_storage(t)) {
        diag_error(err, path, "cannot write: the tensor's view lies outside its storage");
        return false;
    }
    unsigned char header[2048];
    size_t header_len = npy_format_header(t, header, sizeof header);
    if (header_len == 0) {
        diag_error(err, path, "cannot write: header too long");
        return false;
    }

    /* A device or pipe (/dev/stdout, a FIFO) cannot be replaced by rename:
     * write into it directly. */
    struct stat st;
    if (stat(path, &st) == 0 && !S_ISREG(st.st_mode)) {
        if (S_ISDIR(st.st_mode)) {
            diag_error(err, path, "cannot write: is a directory");
            return false;
        }
        FILE *fp = fopen(path, "wb");
        if (!fp) {
            diag_error(err, path, "cannot open for writing: %s", strerror(errno));
            return false;
        }
        bool ok = npy_write_stream(fp, t, header, header_len);
        ok = (fclose(fp) == 0) && ok;
        if (!ok)
            diag_error(err, path, "write failed: %s", strerror(errno));
        return ok;
    }

    char *temp_path = NULL;
    int fd = npy_create_temp(path, &temp_path);
    if (fd < 0) {
        diag_error(err, path, "cannot create: %s", strerror(errno));
        return false;
    }
    FILE *fp = fdopen(fd, "wb");
    if (!fp) {
        int saved = errno;
        close(fd);
        unlink(temp_path);
        free(temp_path);
        diag_error(err, path, "cannot create: %s", strerror(saved));
        return false;
    }
    /* No fsync: the rename already keeps readers from seeing a partial
     * file; surviving power loss is not worth an fsync per output. */
    bool ok = npy_write_stream(fp, t, header, header_len);
    int saved = errno;
    if (fclose(fp) != 0 && ok) {
        ok = false;
        saved = errno;
    }
    if (ok && rename(temp_path, path) != 0) {
        ok = false;
        saved = errno;
    }
    if (!ok) {
        unlink(temp_path);
        diag_error(err, path, "write failed: %s", strerror(saved));
    }
    free(temp_path);
    return ok;
}
