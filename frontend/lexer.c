/* lexer.c — tokenizer for TorchScript graph text; see lexer.h.
 *
 * lex_validate runs first over the whole input, so the tokenizer itself
 * only ever sees tabs, newlines (optionally CRLF) and well-formed UTF-8;
 * non-ASCII characters can then only appear inside strings and comments,
 * anywhere else they are an "unexpected character" error.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "frontend/lexer.h"
#include "tssa/util.h"

void parse_fail_at(ParseFail *pf, size_t offset, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    diag_verror_at(pf->err, &pf->src, offset, fmt, ap);
    va_end(ap);
    longjmp(pf->jump, 1);
}

void lex_validate(ParseFail *pf, const char *text, size_t len)
{
    const unsigned char *t = (const unsigned char *)text;
    for (size_t i = 0; i < len;) {
        /* Fast path: printable ASCII, tabs and newlines. */
        while (i < len && ((t[i] >= 0x20 && t[i] < 0x7f) || t[i] == '\n' || t[i] == '\t'))
            i++;
        if (i == len)
            break;
        unsigned char c = t[i];
        if (c == 0)
            parse_fail_at(pf, i, "NUL byte in graph text (is this a binary file?)");
        if (c == '\r' && !(i + 1 < len && t[i + 1] == '\n'))
            parse_fail_at(pf, i, "carriage return not followed by a newline");
        if ((c < 0x20 && c != '\t' && c != '\n' && c != '\r') || c == 0x7f)
            parse_fail_at(pf, i, "control character 0x%02x in graph text", c);
        size_t n = utf8_sequence_length(t + i, len - i);
        if (n == 0)
            parse_fail_at(pf, i, "invalid UTF-8 byte 0x%02x in graph text", c);
        i += n;
    }
}

void lex_init(Lexer *lx, ParseFail *pf, const char *text, size_t len)
{
    memset(lx, 0, sizeof *lx);
    lx->fail = pf;
    lx->text = text;
    lx->len = len;
    lx->line = 1;
}

static bool is_ident_start(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

static bool is_digit(char c)
{
    return c >= '0' && c <= '9';
}

static bool is_name_char(char c)
{
    return is_ident_start(c) || is_digit(c) || c == '.';
}

void lex_skip_spaces(Lexer *lx)
{
    while (lx->pos < lx->len &&
           (lx->text[lx->pos] == ' ' || lx->text[lx->pos] == '\t' || lx->text[lx->pos] == '\r'))
        lx->pos++;
}

static void new_line(Lexer *lx)
{
    lx->pos++;
    lx->line++;
    lx->line_pos = lx->pos;
    lx->line_has_token = false;
}

static Token make(Lexer *lx, TokKind kind, size_t start, size_t text_start, size_t end)
{
    Token t = {
        .kind = kind,
        .start = start,
        .text = lx->text + text_start,
        .len = end - text_start,
        .line = lx->line,
        .col = (int)(start - lx->line_pos),
        .line_start = !lx->line_has_token,
    };
    lx->line_has_token = true;
    lx->pos = end;
    return t;
}

/* -?digits[.digits*][e[+-]digits] | -?inf | nan */
static size_t scan_number(const Lexer *lx, size_t i)
{
    const char *s = lx->text;
    size_t n = lx->len;
    if (i < n && s[i] == '-')
        i++;
    if (i + 3 <= n && (memcmp(s + i, "inf", 3) == 0 || memcmp(s + i, "nan", 3) == 0))
        return i + 3;
    while (i < n && is_digit(s[i]))
        i++;
    if (i < n && s[i] == '.') {
        i++;
        while (i < n && is_digit(s[i]))
            i++;
    }
    if (i < n && (s[i] == 'e' || s[i] == 'E')) {
        size_t j = i + 1;
        if (j < n && (s[j] == '+' || s[j] == '-'))
            j++;
        if (j < n && is_digit(s[j])) {
            while (j < n && is_digit(s[j]))
                j++;
            i = j;
        }
    }
    return i;
}

static Token lex_token(Lexer *lx)
{
    const char *s = lx->text;
    for (;;) {
        lex_skip_spaces(lx);
        if (lx->pos >= lx->len) {
            /* A last line without '\n' still ends with a NEWLINE token. */
            if (lx->line_has_token) {
                Token t = make(lx, TK_NEWLINE, lx->pos, lx->pos, lx->pos);
                t.line_start = false;
                lx->line_has_token = false;
                return t;
            }
            Token t = make(lx, TK_EOF, lx->pos, lx->pos, lx->pos);
            lx->line_has_token = false;
            return t;
        }
        char c = s[lx->pos];
        if (c == '\n') {
            if (lx->line_has_token) {
                /* len 1 ("\n"); the NEWLINE made at end of input has len 0. */
                Token t = make(lx, TK_NEWLINE, lx->pos, lx->pos, lx->pos + 1);
                t.line_start = false;
                lx->pos--;
                new_line(lx);
                return t;
            }
            new_line(lx);   /* blank line */
            continue;
        }
        if (c == '#') {
            size_t start = lx->pos, end = start;
            while (end < lx->len && s[end] != '\n')
                end++;
            if (!lx->line_has_token) {     /* a whole-line comment */
                lx->pos = end;
                continue;
            }
            size_t text_start = start + 1;
            if (text_start < end && s[text_start] == ' ')
                text_start++;
            size_t text_end = end;
            if (text_end > text_start && s[text_end - 1] == '\r')
                text_end--;
            Token t = make(lx, TK_COMMENT, start, text_start, text_end);
            lx->pos = end;
            return t;
        }
        break;
    }
    size_t start = lx->pos;
    char c = s[start];
    if (c == '%') {
        size_t end = start + 1;
        while (end < lx->len && is_name_char(s[end]))
            end++;
        if (end == start + 1)
            parse_fail_at(lx->fail, start, "expected a value name after '%%'");
        return make(lx, TK_VALUE, start, start + 1, end);
    }
    if (is_ident_start(c)) {
        size_t end = start + 1;
        while (end < lx->len && is_name_char(s[end]))
            end++;
        TokKind kind = TK_IDENT;
        if ((end - start == 3 && (memcmp(s + start, "inf", 3) == 0 ||
                                  memcmp(s + start, "nan", 3) == 0)))
            kind = TK_NUMBER;
        return make(lx, kind, start, start, end);
    }
    if (c == '-' && start + 1 < lx->len && s[start + 1] == '>')
        return make(lx, TK_ARROW, start, start, start + 2);
    if (is_digit(c) || (c == '-' && start + 1 < lx->len &&
                        (is_digit(s[start + 1]) || s[start + 1] == 'i'))) {
        size_t end = scan_number(lx, start);
        if (end == start + 1 && c == '-')
            parse_fail_at(lx->fail, start, "unexpected '-'");
        return make(lx, TK_NUMBER, start, start, end);
    }
    if (c == '"') {
        size_t end = start + 1;
        while (end < lx->len && s[end] != '"' && s[end] != '\n') {
            if (s[end] == '\\' && end + 1 < lx->len && s[end + 1] != '\n')
                end++;
            end++;
        }
        if (end >= lx->len || s[end] != '"')
            parse_fail_at(lx->fail, start, "unterminated string");
        return make(lx, TK_STRING, start, start, end + 1);
    }
    if (c == ':' && start + 1 < lx->len && s[start + 1] == ':')
        return make(lx, TK_COLONCOLON, start, start, start + 2);
    if (strchr("()[]{},:=?*<>", c)) {
        Token t = make(lx, TK_PUNCT, start, start, start + 1);
        t.punct = c;
        return t;
    }
    if (c == '^')
        parse_fail_at(lx->fail, start, "Python ops (^name) are not supported");
    if ((unsigned char)c >= 0x80)
        parse_fail_at(lx->fail, start, "unexpected non-ASCII character");
    parse_fail_at(lx->fail, start, "unexpected character '%c'", c);
}

Token lex_next(Lexer *lx)
{
    if (lx->have_peek) {
        lx->have_peek = false;
        return lx->peeked;
    }
    return lex_token(lx);
}

const Token *lex_peek(Lexer *lx)
{
    if (!lx->have_peek) {
        lx->peeked = lex_token(lx);
        lx->have_peek = true;
    }
    return &lx->peeked;
}

const char *tok_describe(const Token *t, char *buf, size_t size)
{
    switch (t->kind) {
    case TK_EOF: return "end of input";
    case TK_NEWLINE: return t->len ? "end of line" : "end of input";
    case TK_COMMENT: return "a comment";
    case TK_VALUE:
        snprintf(buf, size, "'%%%.*s'", t->len > 40 ? 40 : (int)t->len, t->text);
        return buf;
    default:
        snprintf(buf, size, "'%.*s'", t->len > 40 ? 40 : (int)t->len, t->text);
        return buf;
    }
}

void lex_seek(Lexer *lx, size_t pos)
{
    lx->have_peek = false;
    lx->pos = pos;
}

void lex_scan_attr_value(Lexer *lx, size_t *start, size_t *end)
{
    const char *s = lx->text;
    size_t i = lx->pos;
    int depth = 0;
    *start = i;
    for (; i < lx->len && s[i] != '\n'; i++) {
        char c = s[i];
        if (c == '"') {
            for (i++; i < lx->len && s[i] != '"' && s[i] != '\n'; i++)
                if (s[i] == '\\' && i + 1 < lx->len && s[i + 1] != '\n')
                    i++;
            if (i >= lx->len || s[i] != '"')
                parse_fail_at(lx->fail, *start, "unterminated string in attribute value");
            continue;
        }
        if (c == '(' || c == '[' || c == '{')
            depth++;
        else if ((c == ')' || c == '}' || c == ']') && depth > 0)
            depth--;
        else if ((c == ',' || c == ']') && depth == 0)
            break;
        else if (c == ')' || c == '}')
            parse_fail_at(lx->fail, i, "unbalanced '%c' in attribute value", c);
    }
    if (i >= lx->len || s[i] == '\n')
        parse_fail_at(lx->fail, i, "attribute value does not end with ',' or ']' on its line");
    *end = i;
    lx->pos = i;
}

size_t lex_scan_type_end(Lexer *lx)
{
    const char *s = lx->text;
    size_t i = lx->pos;
    int depth = 0;
    for (; i < lx->len; i++) {
        char c = s[i];
        if (c == '(' || c == '[' || c == '<')
            depth++;
        else if ((c == ')' || c == ']' || c == '>') && depth > 0)
            depth--;
        else if (depth == 0 && strchr(" \t\r\n,)=#", c))
            break;
        else if (c == '\n' || c == '#')
            break;
    }
    return i;
}
