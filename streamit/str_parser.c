/* str_parser.c — reads the .str text form of a stream graph.
 *
 * A recursive-descent parser over the tokens of str_lexer.c that builds the
 * graph with the builder API. The grammar (also in tests/streamit/FORMAT.md):
 *
 *   file         = stream EOF
 *   stream       = filter | identity | separator
 *                | pipeline | splitjoin | feedbackloop
 *   filter       = "filter" NAME clause* ( ";" | "{" stream "}" ";"? )
 *   clause       = "pop" INT | "peek" INT | "push" INT      (each at most once)
 *                | "stateful" | "work" OP
 *   identity     = "identity" NAME? ";"                     (pop 1, push 1)
 *   separator    = "separator" NAME? "pop" INT ";"          (push 0)
 *   pipeline     = "pipeline" NAME "{" stream+ "}" ";"?
 *   splitjoin    = "splitjoin" NAME "{" "split" splitter ";" stream+
 *                                       "join" roundrobin ";" "}" ";"?
 *   feedbackloop = "feedbackloop" NAME "{" loopclause+ "}" ";"?
 *   loopclause   = "join" roundrobin ";" | "body" stream | "loop" stream
 *                | "split" splitter ";" | "enqueue" INT ";"
 *                  (each once; join, body, loop and split are required,
 *                   enqueue defaults to 0)
 *   splitter     = "duplicate" | roundrobin
 *   roundrobin   = "roundrobin" ( "(" INT ( "," INT )* ")" )?
 *
 * A filter with a stream in braces is hierarchical (StreamFilter.inner: one
 * firing runs that stream's steady state as often as its work decides); the
 * inner stream's nodes go to an inner graph of their own.
 *
 * Rates default to 0, peek to pop; peek must not be below pop, and a filter
 * that pops nothing cannot peek. A round-robin without weights gives every
 * port weight 1, one weight gives every port that weight, otherwise there is
 * one weight per branch (split-join) or exactly two (feedback loop: outside
 * and loop path, in that order). NAME is an identifier that is not a
 * keyword; names need not be unique. Nesting is limited to STREAM_MAX_DEPTH.
 *
 * Every error is reported once, located, and the partial graph is freed.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "streamit/str_lexer.h"
#include "streamit/stream_internal.h"
#include "tssa/stream.h"
#include "tssa/util.h"

typedef struct Parser {
    StrLexer lx;
    StreamGraph *g;
    int depth;
} Parser;

/* Weights as written: count 0 means no list was given. */
typedef struct Weights {
    int count, cap;
    int64_t *w;
    int line, col;      /* of the "roundrobin" or "duplicate" word */
    bool duplicate;
} Weights;

static StreamNode *parse_stream(Parser *p);

static StrToken *cur(Parser *p)
{
    return &p->lx.tok;
}

static void advance(Parser *p)
{
    str_lexer_next(&p->lx, false);
}

#define error_here(p, ...) str_lexer_error_at(&(p)->lx, cur(p)->line, cur(p)->col, __VA_ARGS__)

static const char *token_desc(const StrToken *t, char *buf, size_t size)
{
    switch (t->kind) {
    case STR_TOK_EOF: return "the end of the input";
    case STR_TOK_INT:
    case STR_TOK_IDENT:
    case STR_TOK_OP:
        snprintf(buf, size, "'%.*s'", (int)(t->len > 40 ? 40 : t->len), t->text);
        return buf;
    case STR_TOK_LBRACE: return "'{'";
    case STR_TOK_RBRACE: return "'}'";
    case STR_TOK_LPAREN: return "'('";
    case STR_TOK_RPAREN: return "')'";
    case STR_TOK_SEMI: return "';'";
    case STR_TOK_COMMA: return "','";
    }
    return "?";
}

static bool expect(Parser *p, StrTokenKind kind, const char *what)
{
    if (p->lx.failed)
        return false;
    if (cur(p)->kind != kind) {
        char buf[64];
        error_here(p, "expected %s, found %s", what, token_desc(cur(p), buf, sizeof buf));
        return false;
    }
    advance(p);
    return true;
}

static bool accept_word(Parser *p, const char *word)
{
    if (str_token_is(cur(p), word)) {
        advance(p);
        return true;
    }
    return false;
}

static bool expect_word(Parser *p, const char *word)
{
    if (p->lx.failed)
        return false;
    if (!str_token_is(cur(p), word)) {
        char buf[64];
        error_here(p, "expected '%s', found %s", word, token_desc(cur(p), buf, sizeof buf));
        return false;
    }
    advance(p);
    return true;
}

/* NAME: an identifier that is not a keyword. Writes it to buf. */
static bool parse_name(Parser *p, const char *what, char *buf, size_t size)
{
    if (p->lx.failed)
        return false;
    StrToken *t = cur(p);
    char desc[64];
    if (t->kind != STR_TOK_IDENT) {
        error_here(p, "expected the name of the %s, found %s", what, token_desc(t, desc, sizeof desc));
        return false;
    }
    if (t->len >= size) {
        error_here(p, "name longer than %zu characters", size - 1);
        return false;
    }
    memcpy(buf, t->text, t->len);
    buf[t->len] = '\0';
    if (stream_name_is_keyword(buf)) {
        error_here(p, "expected the name of the %s, found keyword '%s'", what, buf);
        return false;
    }
    advance(p);
    return true;
}

static bool parse_int(Parser *p, const char *what, int64_t *out)
{
    if (p->lx.failed)
        return false;
    if (cur(p)->kind != STR_TOK_INT) {
        char buf[64];
        error_here(p, "expected %s (a number), found %s", what, token_desc(cur(p), buf, sizeof buf));
        return false;
    }
    *out = cur(p)->value;
    advance(p);
    return true;
}

/* An optional ';' after a closing brace. */
static void skip_optional_semi(Parser *p)
{
    if (cur(p)->kind == STR_TOK_SEMI)
        advance(p);
}

static void set_position(StreamNode *n, int line, int col)
{
    n->line = line;
    n->col = col;
}

enum { NAME_MAX_LEN = STREAM_MAX_NAME };

/* filter = "filter" NAME clause* ( ";" | "{" stream "}" ";"? ) */
static StreamNode *parse_filter(Parser *p, int line, int col)
{
    char name[NAME_MAX_LEN + 1];
    if (!parse_name(p, "filter", name, sizeof name))
        return NULL;
    int64_t rate[3] = {0, 0, 0};        /* pop, peek, push */
    bool given[3] = {false, false, false};
    int rate_line[3] = {0, 0, 0}, rate_col[3] = {0, 0, 0};
    static const char *const rate_word[3] = {"pop", "peek", "push"};
    bool stateful = false;
    char op[NAME_MAX_LEN + 1] = "";
    while (!p->lx.failed && cur(p)->kind == STR_TOK_IDENT) {
        int which = -1;
        for (int i = 0; i < 3; i++)
            if (str_token_is(cur(p), rate_word[i]))
                which = i;
        if (which >= 0) {
            if (given[which]) {
                error_here(p, "filter %s: '%s' given twice", name, rate_word[which]);
                return NULL;
            }
            rate_line[which] = cur(p)->line;
            rate_col[which] = cur(p)->col;
            advance(p);
            if (!parse_int(p, "a rate", &rate[which]))
                return NULL;
            given[which] = true;
        } else if (str_token_is(cur(p), "stateful")) {
            if (stateful) {
                error_here(p, "filter %s: 'stateful' given twice", name);
                return NULL;
            }
            stateful = true;
            advance(p);
        } else if (str_token_is(cur(p), "work")) {
            if (op[0]) {
                error_here(p, "filter %s: 'work' given twice", name);
                return NULL;
            }
            str_lexer_next(&p->lx, true);
            if (p->lx.failed)
                return NULL;
            if (cur(p)->len > NAME_MAX_LEN) {
                error_here(p, "op name longer than %d characters", NAME_MAX_LEN);
                return NULL;
            }
            memcpy(op, cur(p)->text, cur(p)->len);
            op[cur(p)->len] = '\0';
            advance(p);
        } else {
            char buf[64];
            error_here(p, "filter %s: expected pop, peek, push, stateful, work, ';' or '{', found %s", name,
                       token_desc(cur(p), buf, sizeof buf));
            return NULL;
        }
    }
    bool hierarchical = !p->lx.failed && cur(p)->kind == STR_TOK_LBRACE;
    if (hierarchical)
        advance(p);
    else if (!expect(p, STR_TOK_SEMI, "';' after the filter"))
        return NULL;
    int64_t pop = rate[0], peek = given[1] ? rate[1] : rate[0], push = rate[2];
    if (peek < pop) {
        str_lexer_error_at(&p->lx, rate_line[1], rate_col[1],
                           "filter %s: peek %lld is smaller than pop %lld", name, (long long)peek,
                           (long long)pop);
        return NULL;
    }
    if (pop == 0 && peek > 0) {
        str_lexer_error_at(&p->lx, rate_line[1], rate_col[1],
                           "filter %s: a filter that pops nothing cannot peek", name);
        return NULL;
    }
    StreamNode *n = stream_filter_new(p->g, name, pop, peek, push);
    set_position(n, line, col);
    stream_filter_set_stateful(n, stateful);
    if (op[0])
        stream_filter_set_work_op(n, op);
    if (hierarchical) {
        StreamGraph *outer = p->g;
        p->g = stream_graph_new_inner(outer);
        StreamNode *inner = parse_stream(p);
        p->g = outer;
        if (!inner || !expect(p, STR_TOK_RBRACE, "'}' after the filter's inner stream"))
            return NULL;
        stream_filter_set_inner(n, inner);
        skip_optional_semi(p);
    }
    return n;
}

/* An optional NAME (identity, separator): present when the next token is an
 * identifier that is not a keyword. */
static bool parse_optional_name(Parser *p, char *buf, size_t size)
{
    buf[0] = '\0';
    StrToken *t = cur(p);
    if (t->kind != STR_TOK_IDENT)
        return true;
    if (t->len >= size) {
        error_here(p, "name longer than %zu characters", size - 1);
        return false;
    }
    memcpy(buf, t->text, t->len);
    buf[t->len] = '\0';
    if (stream_name_is_keyword(buf)) {
        buf[0] = '\0';
        return true;
    }
    advance(p);
    return true;
}

/* identity = "identity" NAME? ";" */
static StreamNode *parse_identity(Parser *p, int line, int col)
{
    char name[NAME_MAX_LEN + 1];
    if (!parse_optional_name(p, name, sizeof name) || !expect(p, STR_TOK_SEMI, "';' after identity"))
        return NULL;
    StreamNode *n = stream_identity_new(p->g, name[0] ? name : NULL);
    set_position(n, line, col);
    return n;
}

/* separator = "separator" NAME? "pop" INT ";" */
static StreamNode *parse_separator(Parser *p, int line, int col)
{
    char name[NAME_MAX_LEN + 1];
    if (!parse_optional_name(p, name, sizeof name) || !expect_word(p, "pop"))
        return NULL;
    int pop_line = cur(p)->line, pop_col = cur(p)->col;
    int64_t pop;
    if (!parse_int(p, "the number of items to discard", &pop) || !expect(p, STR_TOK_SEMI, "';' after the separator"))
        return NULL;
    if (pop < 1) {
        str_lexer_error_at(&p->lx, pop_line, pop_col, "a separator pops at least 1 item");
        return NULL;
    }
    StreamNode *n = stream_separator_new(p->g, name[0] ? name : NULL, pop);
    set_position(n, line, col);
    return n;
}

static bool body_starts_stream(const StrToken *t)
{
    static const char *const starts[] = {"filter", "identity", "separator", "pipeline", "splitjoin", "feedbackloop"};
    for (size_t i = 0; i < sizeof starts / sizeof *starts; i++)
        if (str_token_is(t, starts[i]))
            return true;
    return false;
}

/* pipeline = "pipeline" NAME "{" stream+ "}" ";"? */
static StreamNode *parse_pipeline(Parser *p, int line, int col)
{
    char name[NAME_MAX_LEN + 1];
    if (!parse_name(p, "pipeline", name, sizeof name) || !expect(p, STR_TOK_LBRACE, "'{' after the pipeline's name"))
        return NULL;
    StreamNode *n = stream_pipeline_new(p->g, name);
    set_position(n, line, col);
    while (!p->lx.failed && cur(p)->kind != STR_TOK_RBRACE) {
        StreamNode *stage = parse_stream(p);
        if (!stage)
            return NULL;
        stream_pipeline_add(n, stage);
    }
    if (n->nchildren == 0 && !p->lx.failed) {
        error_here(p, "pipeline %s has no stages", name);
        return NULL;
    }
    if (!expect(p, STR_TOK_RBRACE, "'}'"))
        return NULL;
    skip_optional_semi(p);
    return n;
}

static void weights_push(Weights *w, int64_t v)
{
    if (w->count == w->cap) {
        w->cap = w->cap ? 2 * w->cap : 8;
        int64_t *grown = xrealloc(w->w, (size_t)w->cap * sizeof *grown);
        w->w = grown;
    }
    w->w[w->count++] = v;
}

/* roundrobin = "roundrobin" ( "(" INT ( "," INT )* ")" )?  (also "duplicate"
 * when allow_duplicate). */
static bool parse_distributor(Parser *p, Weights *w, bool allow_duplicate, const char *what)
{
    w->line = cur(p)->line;
    w->col = cur(p)->col;
    if (allow_duplicate && accept_word(p, "duplicate")) {
        w->duplicate = true;
        return true;
    }
    if (!str_token_is(cur(p), "roundrobin")) {
        char buf[64];
        error_here(p, "expected %s for the %s, found %s", allow_duplicate ? "'duplicate' or 'roundrobin'" : "'roundrobin'",
                   what, token_desc(cur(p), buf, sizeof buf));
        return false;
    }
    advance(p);
    if (cur(p)->kind != STR_TOK_LPAREN)
        return true;
    advance(p);
    for (;;) {
        int64_t v;
        if (!parse_int(p, "a weight", &v))
            return false;
        weights_push(w, v);
        if (cur(p)->kind == STR_TOK_COMMA) {
            advance(p);
            continue;
        }
        return expect(p, STR_TOK_RPAREN, "',' or ')' in the weights");
    }
}

/* The weight of port k of n ports: all 1 without a list, the one weight for
 * every port, or the list (whose length the caller has checked). */
static int64_t weight_at(const Weights *w, int k)
{
    if (w->count == 0)
        return 1;
    if (w->count == 1)
        return w->w[0];
    return w->w[k];
}

static bool check_weight_count(Parser *p, const Weights *w, int ports, const char *stream, const char *name,
                               const char *role, const char *ports_word)
{
    if (w->duplicate || w->count <= 1 || w->count == ports)
        return true;
    str_lexer_error_at(&p->lx, w->line, w->col, "%s %s: the %s has %d weights for %d %s", stream, name, role,
                       w->count, ports, ports_word);
    return false;
}

/* splitjoin = "splitjoin" NAME "{" "split" splitter ";" stream+ "join" roundrobin ";" "}" ";"? */
static StreamNode *parse_splitjoin(Parser *p, int line, int col)
{
    char name[NAME_MAX_LEN + 1];
    if (!parse_name(p, "splitjoin", name, sizeof name) || !expect(p, STR_TOK_LBRACE, "'{' after the splitjoin's name") ||
        !expect_word(p, "split"))
        return NULL;
    Weights split = {0}, join = {0};
    StreamNode *n = NULL, *result = NULL;
    if (!parse_distributor(p, &split, true, "splitter") || !expect(p, STR_TOK_SEMI, "';' after the splitter"))
        goto done;
    n = stream_splitjoin_new(p->g, name, split.duplicate ? SPLIT_DUPLICATE : SPLIT_ROUNDROBIN);
    set_position(n, line, col);
    while (!p->lx.failed && body_starts_stream(cur(p))) {
        StreamNode *branch = parse_stream(p);
        if (!branch)
            goto done;
        stream_splitjoin_add(n, branch, 1, 1);
    }
    if (p->lx.failed)
        goto done;
    if (n->nchildren == 0) {
        char buf[64];
        error_here(p, "splitjoin %s: expected a branch (a stream) after the splitter, found %s", name,
                   token_desc(cur(p), buf, sizeof buf));
        goto done;
    }
    if (!expect_word(p, "join") || !parse_distributor(p, &join, false, "joiner") ||
        !expect(p, STR_TOK_SEMI, "';' after the joiner") || !expect(p, STR_TOK_RBRACE, "'}' after the joiner"))
        goto done;
    if (!check_weight_count(p, &split, n->nchildren, "splitjoin", name, "splitter", "branches") ||
        !check_weight_count(p, &join, n->nchildren, "splitjoin", name, "joiner", "branches"))
        goto done;
    for (int k = 0; k < n->nchildren; k++) {
        n->split_weights[k] = split.duplicate ? 1 : weight_at(&split, k);
        n->join_weights[k] = weight_at(&join, k);
    }
    skip_optional_semi(p);
    result = n;
done:
    free(split.w);
    free(join.w);
    return result;
}

/* feedbackloop = "feedbackloop" NAME "{" loopclause+ "}" ";"? */
static StreamNode *parse_feedbackloop(Parser *p, int line, int col)
{
    char name[NAME_MAX_LEN + 1];
    if (!parse_name(p, "feedbackloop", name, sizeof name) ||
        !expect(p, STR_TOK_LBRACE, "'{' after the feedbackloop's name"))
        return NULL;
    Weights split = {0}, join = {0};
    bool have_split = false, have_join = false, have_enqueue = false;
    StreamNode *body = NULL, *loop = NULL, *result = NULL;
    int64_t enqueued = 0;
    while (!p->lx.failed && cur(p)->kind != STR_TOK_RBRACE) {
        StrToken *t = cur(p);
        const char *clause = NULL;
        bool repeated = false;
        if (str_token_is(t, "join")) {
            clause = "join", repeated = have_join;
        } else if (str_token_is(t, "split")) {
            clause = "split", repeated = have_split;
        } else if (str_token_is(t, "body")) {
            clause = "body", repeated = body != NULL;
        } else if (str_token_is(t, "loop")) {
            clause = "loop", repeated = loop != NULL;
        } else if (str_token_is(t, "enqueue")) {
            clause = "enqueue", repeated = have_enqueue;
        } else {
            char buf[64];
            error_here(p, "feedbackloop %s: expected join, body, loop, split, enqueue or '}', found %s", name,
                       token_desc(t, buf, sizeof buf));
            goto done;
        }
        if (repeated) {
            error_here(p, "feedbackloop %s: '%s' given twice", name, clause);
            goto done;
        }
        advance(p);
        if (strcmp(clause, "join") == 0) {
            have_join = parse_distributor(p, &join, false, "joiner") && expect(p, STR_TOK_SEMI, "';' after the joiner");
        } else if (strcmp(clause, "split") == 0) {
            have_split = parse_distributor(p, &split, true, "splitter") &&
                         expect(p, STR_TOK_SEMI, "';' after the splitter");
        } else if (strcmp(clause, "body") == 0) {
            body = parse_stream(p);
        } else if (strcmp(clause, "loop") == 0) {
            loop = parse_stream(p);
        } else {
            have_enqueue = parse_int(p, "the number of enqueued items", &enqueued) &&
                           expect(p, STR_TOK_SEMI, "';' after enqueue");
        }
    }
    if (p->lx.failed)
        goto done;
    const char *missing = !have_join ? "join" : !body ? "body" : !loop ? "loop" : !have_split ? "split" : NULL;
    if (missing) {
        error_here(p, "feedbackloop %s has no '%s' clause", name, missing);
        goto done;
    }
    advance(p);     /* the '}' */
    if (!check_weight_count(p, &join, 2, "feedbackloop", name, "joiner", "ports (outside, loop path)") ||
        !check_weight_count(p, &split, 2, "feedbackloop", name, "splitter", "ports (outside, loop path)"))
        goto done;
    StreamNode *n = stream_feedbackloop_new(p->g, name, body, loop, enqueued);
    set_position(n, line, col);
    stream_feedbackloop_set_joiner(n, weight_at(&join, 0), weight_at(&join, 1));
    stream_feedbackloop_set_splitter(n, split.duplicate ? SPLIT_DUPLICATE : SPLIT_ROUNDROBIN, weight_at(&split, 0),
                                     weight_at(&split, 1));
    skip_optional_semi(p);
    result = n;
done:
    free(split.w);
    free(join.w);
    return result;
}

/* stream = filter | identity | separator | pipeline | splitjoin | feedbackloop */
static StreamNode *parse_stream(Parser *p)
{
    if (p->lx.failed)
        return NULL;
    StrToken *t = cur(p);
    int line = t->line, col = t->col;
    if (p->depth >= STREAM_MAX_DEPTH) {
        error_here(p, "streams nested deeper than %d levels", STREAM_MAX_DEPTH);
        return NULL;
    }
    static const struct {
        const char *word;
        StreamNode *(*parse)(Parser *, int, int);
    } forms[] = {
        {"filter", parse_filter},       {"identity", parse_identity},   {"separator", parse_separator},
        {"pipeline", parse_pipeline},   {"splitjoin", parse_splitjoin}, {"feedbackloop", parse_feedbackloop},
    };
    for (size_t i = 0; i < sizeof forms / sizeof *forms; i++) {
        if (str_token_is(t, forms[i].word)) {
            advance(p);
            p->depth++;
            StreamNode *n = forms[i].parse(p, line, col);
            p->depth--;
            return p->lx.failed ? NULL : n;
        }
    }
    char buf[64];
    error_here(p, "expected a stream (filter, identity, separator, pipeline, splitjoin or feedbackloop), found %s",
               token_desc(t, buf, sizeof buf));
    return NULL;
}

StreamGraph *str_parse(const char *text, size_t len, const char *file, FILE *err)
{
    StreamGraph *g = stream_graph_new();
    const char *name = file ? file : "<input>";
    g->file = arena_strndup(g->arena, name, strlen(name));
    /* Columns and lines are ints; a larger text is not a stream graph anyone wrote. */
    if (len > (size_t)1 << 30) {
        if (err)
            fprintf(err, "%s: error: stream text larger than 1 GiB\n", g->file);
        stream_graph_free(g);
        return NULL;
    }
    g->source = arena_strndup(g->arena, text, len);
    g->source_len = len;
    Parser p = {.g = g};
    str_lexer_init(&p.lx, g->source, len, g->file, err);
    advance(&p);
    StreamNode *root = parse_stream(&p);
    if (root && cur(&p)->kind != STR_TOK_EOF && !p.lx.failed) {
        char buf[64];
        error_here(&p, "expected the end of the input after the top stream, found %s", token_desc(cur(&p), buf, sizeof buf));
    }
    if (!root || p.lx.failed) {
        stream_graph_free(g);
        return NULL;
    }
    stream_graph_set_root(g, root);
    return g;
}

StreamGraph *str_parse_file(const char *path, FILE *err)
{
    char *text;
    size_t len;
    if (!file_read_all(path, TEXT_INPUT_LIMIT, &text, &len, err))
        return NULL;
    StreamGraph *g = str_parse(text, len, path, err);
    free(text);
    return g;
}
