/* textbuf.c — growable byte buffer; see include/tssa/util.h. */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "tssa/diag.h"
#include "tssa/util.h"

void textbuf_init(TextBuf *sb, FILE *out)
{
    sb->data = NULL;
    sb->len = sb->cap = 0;
    sb->out = out;
}

void textbuf_flush(TextBuf *sb)
{
    if (sb->out && sb->len) {
        fwrite(sb->data, 1, sb->len, sb->out);
        sb->len = 0;
    }
}

void textbuf_release(TextBuf *sb)
{
    textbuf_flush(sb);
    free(sb->data);
    textbuf_init(sb, NULL);
}

void textbuf_reserve(TextBuf *sb, size_t extra)
{
    if (sb->out && sb->len >= TEXTBUF_FLUSH)
        textbuf_flush(sb);
    if (sb->len + extra + 1 <= sb->cap)
        return;
    size_t cap = sb->cap ? sb->cap : 256;
    while (cap < sb->len + extra + 1)
        cap *= 2;
    char *p = realloc(sb->data, cap);
    if (!p)
        diag_die("out of memory growing a text buffer to %zu bytes", cap);
    sb->data = p;
    sb->cap = cap;
}

void textbuf_putn(TextBuf *sb, const char *s, size_t n)
{
    if (n == 0)
        return;     /* s may be an empty buffer's NULL */
    textbuf_reserve(sb, n);
    memcpy(sb->data + sb->len, s, n);
    sb->len += n;
}

void textbuf_puts(TextBuf *sb, const char *s)
{
    textbuf_putn(sb, s, strlen(s));
}

void textbuf_vprintf(TextBuf *sb, const char *fmt, va_list ap)
{
    va_list again;
    va_copy(again, ap);
    char small[128];
    int n = vsnprintf(small, sizeof small, fmt, ap);
    if (n >= 0 && (size_t)n < sizeof small) {
        textbuf_putn(sb, small, (size_t)n);
    } else if (n >= 0) {
        textbuf_reserve(sb, (size_t)n);
        vsnprintf(sb->data + sb->len, (size_t)n + 1, fmt, again);
        sb->len += (size_t)n;
    }
    va_end(again);
}

void textbuf_printf(TextBuf *sb, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    textbuf_vprintf(sb, fmt, ap);
    va_end(ap);
}

void textbuf_int(TextBuf *sb, int64_t v)
{
    char digits[24];
    int n = 0;
    /* Work on the magnitude as unsigned so INT64_MIN is fine. */
    uint64_t m = v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
    do {
        digits[n++] = (char)('0' + m % 10);
        m /= 10;
    } while (m);
    if (v < 0)
        digits[n++] = '-';
    textbuf_reserve(sb, (size_t)n);
    while (n)
        sb->data[sb->len++] = digits[--n];
}

void textbuf_spaces(TextBuf *sb, int n)
{
    if (n <= 0)
        return;
    textbuf_reserve(sb, (size_t)n);
    memset(sb->data + sb->len, ' ', (size_t)n);
    sb->len += (size_t)n;
}

const char *textbuf_cstr(TextBuf *sb)
{
    textbuf_reserve(sb, 0);
    sb->data[sb->len] = '\0';
    return sb->data;
}
