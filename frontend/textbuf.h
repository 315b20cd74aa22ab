/* textbuf.h — a growable byte buffer (private to frontend/).
 *
 * The printer formats a whole graph into one buffer and writes it with a
 * single fwrite per chunk, which is several times faster than a call into
 * stdio per token on million-node graphs. When `out` is set the buffer is
 * flushed to it whenever it passes TEXTBUF_FLUSH bytes.
 */
#ifndef TSSA_FRONTEND_TEXTBUF_H
#define TSSA_FRONTEND_TEXTBUF_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

typedef struct TextBuf {
    char *data;
    size_t len, cap;
    FILE *out;              /* flush target, or NULL to keep everything */
} TextBuf;

enum { TEXTBUF_FLUSH = 1 << 16 };

void textbuf_init(TextBuf *sb, FILE *out);
void textbuf_release(TextBuf *sb);        /* flushes to out (if any) and frees */
void textbuf_flush(TextBuf *sb);
void textbuf_reserve(TextBuf *sb, size_t extra);
void textbuf_putn(TextBuf *sb, const char *s, size_t n);
void textbuf_puts(TextBuf *sb, const char *s);
void textbuf_printf(TextBuf *sb, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void textbuf_int(TextBuf *sb, int64_t v);
void textbuf_spaces(TextBuf *sb, int n);
static inline void textbuf_putc(TextBuf *sb, char c)
{
    if (sb->len + 1 > sb->cap)
        textbuf_reserve(sb, 1);
    sb->data[sb->len++] = c;
}
/* NUL-terminates the contents (not counted in len) and returns them. */
const char *textbuf_cstr(TextBuf *sb);

#endif
