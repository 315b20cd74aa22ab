/* str_lexer.c — splits .str text into tokens.
 *
 * Tokens: identifiers [A-Za-z_][A-Za-z0-9_]* (keywords are identifiers the
 * parser recognises by spelling), decimal integers up to STREAM_MAX_RATE,
 * the punctuation { } ( ) ; , and, only when the parser asks for one after
 * `work`, an op name: a run of [A-Za-z0-9_:.] that starts with a letter or
 * '_' (aten::add, my.op). Whitespace and comments (// to the end of the
 * line, and C block comments) separate tokens. Anything else is a located error.
 *
 * The lexer is pulled by the parser one token at a time, so it never looks
 * further ahead than the token being read.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "streamit/str_lexer.h"
#include "streamit/stream_internal.h"
#include "tssa/diag.h"
#include "tssa/stream.h"

void str_lexer_init(StrLexer *lx, const char *src, size_t len, const char *file, FILE *err)
{
    memset(lx, 0, sizeof *lx);
    lx->src = src;
    lx->len = len;
    lx->line = 1;
    lx->file = file;
    lx->err = err;
}

void str_lexer_error_at(StrLexer *lx, int line, int col, const char *fmt, ...)
{
    if (lx->failed)
        return;
    lx->failed = true;
    va_list ap;
    va_start(ap, fmt);
    stream_report_at(lx->err, lx->file, lx->src, lx->len, line, col, fmt, ap);
    va_end(ap);
}

bool str_token_is(const StrToken *t, const char *word)
{
    return t->kind == STR_TOK_IDENT && strlen(word) == t->len && memcmp(t->text, word, t->len) == 0;
}

/* The column of byte pos on the current line, in characters as diag.h
 * counts them. Tokens come in increasing positions, so counting on from the
 * previous token of the same line keeps lexing linear even on one very long
 * line. Token starts are ASCII, hence character boundaries. */
static int column(StrLexer *lx, size_t pos)
{
    if (lx->col_line != lx->line || lx->col_pos > pos || lx->col_pos < lx->line_start) {
        lx->col_line = lx->line;
        lx->col_pos = lx->line_start;
        lx->col_value = 1;
    }
    int line, col;
    DiagSource rest = {.file = lx->file, .text = lx->src + lx->col_pos, .len = pos - lx->col_pos};
    diag_locate(&rest, rest.len, &line, &col);
    lx->col_value += col - 1;
    lx->col_pos = pos;
    return lx->col_value;
}

static bool is_alpha(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

static bool is_digit(char c)
{
    return c >= '0' && c <= '9';
}

/* Skips whitespace and comments; false after reporting an unterminated
 * block comment. */
static bool skip_space(StrLexer *lx)
{
    while (lx->pos < lx->len) {
        char c = lx->src[lx->pos];
        if (c == '\n') {
            lx->pos++;
            lx->line++;
            lx->line_start = lx->pos;
        } else if (c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v') {
            lx->pos++;
        } else if (c == '/' && lx->pos + 1 < lx->len && lx->src[lx->pos + 1] == '/') {
            while (lx->pos < lx->len && lx->src[lx->pos] != '\n')
                lx->pos++;
        } else if (c == '/' && lx->pos + 1 < lx->len && lx->src[lx->pos + 1] == '*') {
            int line = lx->line, col = column(lx, lx->pos);
            lx->pos += 2;
            for (;;) {
                if (lx->pos + 1 >= lx->len) {
                    str_lexer_error_at(lx, line, col, "unterminated comment");
                    return false;
                }
                if (lx->src[lx->pos] == '*' && lx->src[lx->pos + 1] == '/') {
                    lx->pos += 2;
                    break;
                }
                if (lx->src[lx->pos] == '\n') {
                    lx->line++;
                    lx->line_start = lx->pos + 1;
                }
                lx->pos++;
            }
        } else {
            break;
        }
    }
    return true;
}

void str_lexer_next(StrLexer *lx, bool op_name)
{
    StrToken *t = &lx->tok;
    memset(t, 0, sizeof *t);
    t->kind = STR_TOK_EOF;
    if (lx->failed || !skip_space(lx)) {
        t->line = lx->line;
        return;
    }
    t->line = lx->line;
    t->col = column(lx, lx->pos);
    t->text = lx->src + lx->pos;
    if (lx->pos >= lx->len)
        return;
    char c = lx->src[lx->pos];
    size_t start = lx->pos;
    if (is_alpha(c)) {
        while (lx->pos < lx->len) {
            char d = lx->src[lx->pos];
            if (!(is_alpha(d) || is_digit(d) || (op_name && (d == ':' || d == '.'))))
                break;
            lx->pos++;
        }
        t->kind = op_name ? STR_TOK_OP : STR_TOK_IDENT;
        t->len = lx->pos - start;
        return;
    }
    if (op_name) {
        str_lexer_error_at(lx, t->line, t->col, "expected an op name after 'work' (like aten::add)");
        return;
    }
    if (is_digit(c)) {
        int64_t value = 0;
        bool too_large = false;
        while (lx->pos < lx->len && is_digit(lx->src[lx->pos])) {
            if (!too_large) {
                value = value * 10 + (lx->src[lx->pos] - '0');
                too_large = value > STREAM_MAX_RATE;
            }
            lx->pos++;
        }
        if (lx->pos < lx->len && is_alpha(lx->src[lx->pos])) {
            str_lexer_error_at(lx, t->line, column(lx, lx->pos), "a number runs into a name here");
            t->kind = STR_TOK_EOF;
            return;
        }
        if (too_large) {
            str_lexer_error_at(lx, t->line, t->col, "number %.*s is too large (the limit is 2^40)",
                               (int)(lx->pos - start > 40 ? 40 : lx->pos - start), t->text);
            t->kind = STR_TOK_EOF;
            return;
        }
        t->kind = STR_TOK_INT;
        t->value = value;
        t->len = lx->pos - start;
        return;
    }
    static const struct {
        char c;
        StrTokenKind kind;
    } punct[] = {
        {'{', STR_TOK_LBRACE}, {'}', STR_TOK_RBRACE}, {'(', STR_TOK_LPAREN},
        {')', STR_TOK_RPAREN}, {';', STR_TOK_SEMI},   {',', STR_TOK_COMMA},
    };
    for (size_t i = 0; i < sizeof punct / sizeof *punct; i++) {
        if (c == punct[i].c) {
            t->kind = punct[i].kind;
            t->len = 1;
            lx->pos++;
            return;
        }
    }
    unsigned char uc = (unsigned char)c;
    if (uc >= 0x20 && uc < 0x7f)
        str_lexer_error_at(lx, t->line, t->col, "unexpected character '%c'", c);
    else
        str_lexer_error_at(lx, t->line, t->col, "unexpected byte 0x%02x", uc);
}
