/* diag.c — located error messages; see include/tssa/diag.h.
 *
 * The offending line is echoed as it is, except that bytes which would
 * garble a terminal (control characters, invalid UTF-8) are shown as '?',
 * one column each, so the caret still lines up. A very long line is shown
 * as a window of at most DIAG_WINDOW characters around the column.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tssa/diag.h"
#include "tssa/util.h"

enum { DIAG_WINDOW = 160 };

/* Bytes making up the character at s: a valid sequence, or one bad byte. */
static size_t char_bytes(const unsigned char *s, size_t n)
{
    size_t len = utf8_sequence_length(s, n);
    return len ? len : 1;
}

void diag_locate(const DiagSource *src, size_t offset, int *line, int *col)
{
    if (offset > src->len)
        offset = src->len;
    const unsigned char *t = (const unsigned char *)src->text;
    int l = 1, c = 1;
    size_t i = 0;
    while (i < offset) {
        if (t[i] == '\n') {
            l++;
            c = 1;
            i++;
        } else {
            i += char_bytes(t + i, src->len - i);
            c++;
        }
    }
    *line = l;
    *col = c;
}

/* Byte offset where line `line` (from 1) starts, or len when past the end. */
static size_t line_start(const DiagSource *src, int line)
{
    size_t i = 0;
    for (int l = 1; l < line && i < src->len; i++)
        if (src->text[i] == '\n')
            l++;
    return i;
}

static void echo_line(FILE *err, const DiagSource *src, int line, int col)
{
    if (!src->text)
        return;     /* the text is gone: the location alone */
    const unsigned char *t = (const unsigned char *)src->text;
    size_t i = line_start(src, line), end = i;
    while (end < src->len && t[end] != '\n')
        end++;
    if (end > i && t[end - 1] == '\r')
        end--;
    /* Show a window of the line that holds the column. */
    int first_col = col > DIAG_WINDOW / 2 ? col - DIAG_WINDOW / 2 : 1;
    char pad[DIAG_WINDOW + 4];      /* what goes under each shown character */
    int npad = 0;
    if (first_col > 1) {
        fputs("...", err);
        npad = 3;
        memset(pad, ' ', 3);
    }
    int c = 1;
    for (; i < end && c < first_col + DIAG_WINDOW; c++) {
        size_t n = utf8_sequence_length(t + i, end - i);
        if (c >= first_col) {
            if (n == 0 || (n == 1 && (t[i] < 0x20 || t[i] == 0x7f) && t[i] != '\t'))
                fputc('?', err);
            else
                fwrite(t + i, 1, n, err);
            /* Tabs are echoed, so the caret line copies them to stay aligned. */
            if (c < col)
                pad[npad++] = t[i] == '\t' ? '\t' : ' ';
        }
        i += n ? n : 1;
    }
    if (i < end)
        fputs("...", err);
    fputc('\n', err);
    /* A column past the end of the line (end of input) goes after it. */
    for (; c < col && npad < (int)sizeof pad; c++)
        pad[npad++] = ' ';
    fwrite(pad, 1, (size_t)npad, err);
    fputs("^\n", err);
}

static void report_line(FILE *err, const DiagSource *src, int line, int col, const char *fmt,
                        va_list ap)
{
    if (!err)
        return;
    if (col <= 0)
        col = 1;
    fprintf(err, "%s:%d:%d: error: ", src->file ? src->file : "<input>", line, col);
    vfprintf(err, fmt, ap);
    fputc('\n', err);
    echo_line(err, src, line, col);
}

void diag_verror_at(FILE *err, const DiagSource *src, size_t offset, const char *fmt, va_list ap)
{
    if (!err)
        return;
    int line, col;
    diag_locate(src, offset, &line, &col);
    report_line(err, src, line, col, fmt, ap);
}

void diag_error_at(FILE *err, const DiagSource *src, size_t offset, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    diag_verror_at(err, src, offset, fmt, ap);
    va_end(ap);
}

void diag_error_line(FILE *err, const DiagSource *src, int line, int col, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    report_line(err, src, line < 1 ? 1 : line, col, fmt, ap);
    va_end(ap);
}

void diag_verror(FILE *err, const char *file, const char *fmt, va_list ap)
{
    if (!err)
        return;
    fprintf(err, "%s: error: ", file ? file : "<input>");
    vfprintf(err, fmt, ap);
    fputc('\n', err);
}

void diag_error(FILE *err, const char *file, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    diag_verror(err, file, fmt, ap);
    va_end(ap);
}

void diag_die(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fflush(stdout);
    fputs("tssa-stream: internal error: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    abort();
}
