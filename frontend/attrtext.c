/* attrtext.c — turns the raw text of an attribute value into an IrAttr.
 *
 * The parser cuts an attribute value out of the line as text (everything up
 * to the ',' or ']' that ends it outside brackets and strings) and hands it
 * here. Recognized, in order: an int, a float (17-digit, "2.", inf, -inf,
 * nan), a string literal with Python/C escapes, a list of ints / floats /
 * strings, a tensor constant ({2.5}, <Tensor>, or the multi-element repr
 * torch prints such as " 1  2 [ CPULongType{2} ]"). Anything else is kept
 * as ATTR_RAW text. When printing the decoded value would not give back the
 * exact text (a different float spelling, an unusual escape), the text is
 * kept in `spelling` so printing reproduces the input.
 */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "frontend/frontend_internal.h"
#include "frontend/printer.h"
#include "tssa/ir.h"
#include "tssa/util.h"

static bool is_space(char c)
{
    return c == ' ' || c == '\t' || c == '\r';
}

typedef enum IntParse { INT_NOT, INT_OK, INT_OUT_OF_RANGE } IntParse;

/* -?digits as an int64: INT_OUT_OF_RANGE for an integer literal that does
 * not fit (TorchScript prints only int64 values, so such a literal is an
 * error, not a float). */
static IntParse parse_int(const char *s, size_t n, int64_t *out)
{
    size_t i = 0;
    bool neg = false;
    if (i < n && s[i] == '-') {
        neg = true;
        i++;
    }
    if (i == n)
        return INT_NOT;
    uint64_t mag = 0;
    bool overflow = false;
    for (; i < n; i++) {
        if (s[i] < '0' || s[i] > '9')
            return INT_NOT;
        uint64_t d = (uint64_t)(s[i] - '0');
        if (mag > (UINT64_MAX - d) / 10)
            overflow = true;
        else
            mag = mag * 10 + d;
    }
    if (overflow || (neg ? mag > (uint64_t)INT64_MAX + 1 : mag > (uint64_t)INT64_MAX))
        return INT_OUT_OF_RANGE;
    *out = neg ? (int64_t)(0 - mag) : (int64_t)mag;
    return INT_OK;
}

/* -?digits[.digits*][e[+-]digits] with at least one digit, or inf/-inf/nan. */
static bool parse_float(const char *s, size_t n, double *out)
{
    size_t i = 0;
    if (i < n && s[i] == '-')
        i++;
    if ((n - i == 3 && memcmp(s + i, "inf", 3) == 0) || (n == 3 && memcmp(s, "nan", 3) == 0)) {
        /* fall through to strtod */
    } else {
        size_t digits = 0;
        while (i < n && s[i] >= '0' && s[i] <= '9') {
            i++;
            digits++;
        }
        if (i < n && s[i] == '.') {
            i++;
            while (i < n && s[i] >= '0' && s[i] <= '9') {
                i++;
                digits++;
            }
        }
        if (!digits)
            return false;
        if (i < n && (s[i] == 'e' || s[i] == 'E')) {
            i++;
            if (i < n && (s[i] == '+' || s[i] == '-'))
                i++;
            size_t exp_digits = 0;
            while (i < n && s[i] >= '0' && s[i] <= '9') {
                i++;
                exp_digits++;
            }
            if (!exp_digits)
                return false;
        }
        if (i != n)
            return false;
    }
    char buf[128];
    if (n >= sizeof buf)
        return false;
    memcpy(buf, s, n);
    buf[n] = '\0';
    errno = 0;
    *out = strtod(buf, NULL);
    return true;
}

static int hex_digit(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

/* Decodes a whole string literal "..." (s[0] and s[n-1] are the quotes, no
 * unescaped quote between them); NULL when s is not exactly one literal. */
static const char *decode_string(IrGraph *g, const char *s, size_t n)
{
    if (n < 2 || s[0] != '"' || s[n - 1] != '"')
        return NULL;
    char *out = arena_alloc(g->arena, n);
    size_t o = 0;
    for (size_t i = 1; i < n - 1; i++) {
        char c = s[i];
        if (c == '"')
            return NULL;
        if (c != '\\') {
            out[o++] = c;
            continue;
        }
        if (++i >= n - 1)
            return NULL;    /* the closing quote was escaped */
        c = s[i];
        switch (c) {
        case 'n': out[o++] = '\n'; break;
        case 't': out[o++] = '\t'; break;
        case 'r': out[o++] = '\r'; break;
        case 'a': out[o++] = '\a'; break;
        case 'b': out[o++] = '\b'; break;
        case 'f': out[o++] = '\f'; break;
        case 'v': out[o++] = '\v'; break;
        case 'x': {
            int v = 0, k = 0;
            while (k < 2 && i + 1 < n - 1 && hex_digit(s[i + 1]) >= 0) {
                v = v * 16 + hex_digit(s[++i]);
                k++;
            }
            out[o++] = k ? (char)v : 'x';
            break;
        }
        default:
            if (c >= '0' && c <= '7') {
                int v = c - '0', k = 1;
                while (k < 3 && i + 1 < n - 1 && s[i + 1] >= '0' && s[i + 1] <= '7') {
                    v = v * 8 + (s[++i] - '0');
                    k++;
                }
                out[o++] = (char)(v & 0xff);
            } else {
                out[o++] = c;   /* \\ \" \' and anything unknown: the char */
            }
        }
    }
    out[o] = '\0';
    return out;
}

/* Splits the inside of "[...]" at commas outside strings and brackets.
 * Returns the number of elements (0 for "[]"), or -1 when malformed; fills
 * at most `max` (start, length) pairs, trimmed. */
static int split_list(const char *s, size_t n, size_t *starts, size_t *lens, int max)
{
    size_t b = 1, e = n - 1;    /* inside the brackets */
    while (b < e && is_space(s[b]))
        b++;
    if (b == e)
        return 0;
    int count = 0, depth = 0;
    size_t item = b;
    for (size_t i = b; i <= e; i++) {
        char c = i < e ? s[i] : ',';
        if (i < e && c == '"') {
            for (i++; i < e && s[i] != '"'; i++)
                if (s[i] == '\\')
                    i++;
            if (i >= e)
                return -1;
            continue;
        }
        if (c == '[' || c == '(' || c == '{')
            depth++;
        else if (c == ']' || c == ')' || c == '}')
            depth--;
        if (depth < 0)
            return -1;
        if (c == ',' && depth == 0) {
            size_t ib = item, ie = i;
            while (ib < ie && is_space(s[ib]))
                ib++;
            while (ie > ib && is_space(s[ie - 1]))
                ie--;
            if (ib == ie)
                return -1;
            if (count < max) {
                starts[count] = ib;
                lens[count] = ie - ib;
            }
            count++;
            item = i + 1;
        }
    }
    return depth == 0 ? count : -1;
}

/* A list literal of ints, floats or strings; false for anything else. */
static bool parse_list(IrGraph *g, IrAttr *a, const char *s, size_t n)
{
    int count = split_list(s, n, NULL, NULL, 0);
    if (count < 0)
        return false;
    size_t *starts = malloc(sizeof *starts * (size_t)(count + 1));
    size_t *lens = malloc(sizeof *lens * (size_t)(count + 1));
    if (!starts || !lens) {
        free(starts);
        free(lens);
        return false;
    }
    split_list(s, n, starts, lens, count);
    bool all_int = true, all_num = true, all_str = true;
    for (int i = 0; i < count && (all_num || all_str); i++) {
        int64_t iv;
        double fv;
        const char *e = s + starts[i];
        bool is_int = parse_int(e, lens[i], &iv) == INT_OK;
        bool is_num = is_int || parse_float(e, lens[i], &fv);
        all_int = all_int && is_int;
        all_num = all_num && is_num;
        all_str = all_str && lens[i] >= 2 && e[0] == '"';
    }
    bool ok = true;
    a->n = count;
    if (all_int) {
        a->kind = ATTR_INTS;
        a->u.is = arena_alloc(g->arena, sizeof *a->u.is * (size_t)(count + 1));
        for (int i = 0; i < count; i++)
            parse_int(s + starts[i], lens[i], &a->u.is[i]);
    } else if (all_num) {
        a->kind = ATTR_FLOATS;
        a->u.fs = arena_alloc(g->arena, sizeof *a->u.fs * (size_t)(count + 1));
        for (int i = 0; i < count; i++) {
            int64_t iv;
            if (parse_int(s + starts[i], lens[i], &iv) == INT_OK)
                a->u.fs[i] = (double)iv;
            else
                parse_float(s + starts[i], lens[i], &a->u.fs[i]);
        }
    } else if (all_str) {
        a->kind = ATTR_STRS;
        a->u.ss = arena_alloc(g->arena, sizeof *a->u.ss * (size_t)(count + 1));
        for (int i = 0; i < count && ok; i++) {
            a->u.ss[i] = decode_string(g, s + starts[i], lens[i]);
            ok = a->u.ss[i] != NULL;
        }
    } else {
        ok = false;
    }
    free(starts);
    free(lens);
    if (!ok) {
        a->n = 0;
        memset(&a->u, 0, sizeof a->u);
    }
    return ok;
}

static bool looks_like_tensor_repr(const char *s, size_t n)
{
    /* torch's repr of a small tensor ends with "[ CPUFloatType{2,2} ]". */
    if (n < 2 || s[n - 1] != ']' || s[0] == '[')
        return false;
    for (size_t i = 0; i + 5 <= n; i++)
        if (memcmp(s + i, "Type{", 5) == 0)
            return true;
    return false;
}

/* Index of the quote closing the string literal that opens at s[i] (or n):
 * the scanners below step over strings, whose brackets do not count. */
static size_t string_end(const char *s, size_t n, size_t i)
{
    for (i++; i < n && s[i] != '"'; i++)
        if (s[i] == '\\')
            i++;
    return i;
}

/* Index of the bracket closing s[0], or n when it does not close inside s. */
static size_t matching_close(const char *s, size_t n)
{
    int depth = 0;
    for (size_t i = 0; i < n; i++) {
        if (s[i] == '"') {
            i = string_end(s, n, i);
            continue;
        }
        if (s[i] == '[' || s[i] == '{' || s[i] == '(')
            depth++;
        else if ((s[i] == ']' || s[i] == '}' || s[i] == ')') && --depth == 0)
            return i;
    }
    return n;
}

/* The deepest bracket nesting in s[0..n) outside string literals. */
static int nesting_depth(const char *s, size_t n)
{
    int depth = 0, most = 0;
    for (size_t i = 0; i < n; i++) {
        if (s[i] == '"') {
            i = string_end(s, n, i);
            continue;
        }
        if (s[i] == '[' || s[i] == '{' || s[i] == '(')
            most = ++depth > most ? depth : most;
        else if (s[i] == ']' || s[i] == '}' || s[i] == ')')
            depth--;
    }
    return most;
}

/* Any integer literal in a list or tuple literal that does not fit int64. */
static bool has_out_of_range_int(const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (s[i] == '"') {
            i = string_end(s, n, i);
            continue;
        }
        bool starts = (s[i] >= '0' && s[i] <= '9') || (s[i] == '-' && i + 1 < n && s[i + 1] >= '0' && s[i + 1] <= '9');
        if (!starts || (i > 0 && (isalnum((unsigned char)s[i - 1]) || s[i - 1] == '.' || s[i - 1] == '_')))
            continue;
        size_t j = i + (s[i] == '-');
        while (j < n && s[j] >= '0' && s[j] <= '9')
            j++;
        bool whole = j == n || !(isalnum((unsigned char)s[j]) || s[j] == '.' || s[j] == '_');
        int64_t v;
        if (whole && parse_int(s + i, j - i, &v) == INT_OUT_OF_RANGE)
            return true;
        i = j;
    }
    return false;
}

const char *ir_attr_from_text(IrGraph *g, IrAttr *a, const char *text, size_t len)
{
    size_t b = 0, e = len;
    while (b < e && is_space(text[b]))
        b++;
    while (e > b && is_space(text[e - 1]))
        e--;
    const char *s = text + b;
    size_t n = e - b;
    memset(&a->u, 0, sizeof a->u);
    a->n = 0;
    a->spelling = NULL;
    if (nesting_depth(s, n) > ATTR_MAX_NESTING)
        return "the attribute value nests brackets deeper than " ATTR_MAX_NESTING_TEXT " levels";
    if (has_out_of_range_int(s, n))
        return "integer literal out of the range of int64";
    const char *verbatim = arena_strndup(g->arena, text, len);
    if (parse_int(s, n, &a->u.i) == INT_OK) {
        a->kind = ATTR_INT;
    } else if (parse_float(s, n, &a->u.f)) {
        a->kind = ATTR_FLOAT;
    } else if (n >= 2 && s[0] == '"' && (a->u.s = decode_string(g, s, n)) != NULL) {
        a->kind = ATTR_STR;
    } else if (n >= 2 && s[0] == '[' && matching_close(s, n) == n - 1 && parse_list(g, a, s, n)) {
        /* kind set by parse_list */
    } else if ((n >= 2 && s[0] == '{' && matching_close(s, n) == n - 1) ||
               (n == 8 && memcmp(s, "<Tensor>", 8) == 0) || looks_like_tensor_repr(s, n)) {
        a->kind = ATTR_TENSOR;
        a->u.t.tensor = NULL;
        a->u.t.text = verbatim;
        return NULL;
    } else {
        a->kind = ATTR_RAW;
        a->u.raw = verbatim;
        return NULL;
    }
    /* Keep the source text when the canonical spelling differs from it. */
    TextBuf tb;
    textbuf_init(&tb, NULL);
    ir_format_attr_value(&tb, a);
    if (tb.len != len || memcmp(tb.data, text, len) != 0)
        a->spelling = verbatim;
    textbuf_release(&tb);
    return NULL;
}
