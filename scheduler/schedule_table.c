/* schedule_table.c — the schedule as a readable table (--emit=schedule).
 *
 *   schedule of pipeline Echo: 6 actors, 7 channels
 *   per steady state: 1 item in, 1 item out
 *
 *   actors:
 *     #  actor      kind    pop  peek  push  reps  init  rank  device
 *     0  input      input     -     -     1     1     0     -       -
 *     1  Echo/join  join    1,1     -     2     1     0     -       -
 *   ...
 *   init phase: 0 firings in 0 phases
 *   steady phase: 6 firings in 6 phases
 *     input x1
 *   ...
 *     repeat the last 4 phases 9 more times      (a folded feedback loop)
 *   channels:
 *     #  from        to            push  pop  peek  initial  after init  buffer
 *
 * The kind of a filter is its role (filter, identity, separator). Rates
 * are per firing; a splitter's push and a joiner's pop list one number per
 * port. Placement (rank, device, the estimated milliseconds of work per
 * steady state) is '-' until the partitioner sets it; after the
 * `placement:` line the cost model's lines (its rates, each rank's work and
 * messages, the steady state's latency L and bottleneck B and the time of
 * the run's sets: scheduler/predict.c) follow, and after the channels each
 * work filter's cost per firing and per steady state; a channel's ranks
 * read "0->1" when it crosses ranks. The external input and output are listed only when
 * they carry items. Columns are as wide as their widest cell: every cell is
 * rendered once to measure and once to print.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scheduler/sched_internal.h"
#include "tssa/diag.h"
#include "tssa/schedule.h"
#include "tssa/util.h"

/* A growable string. */
typedef struct Text {
    char *p;
    size_t n, cap;
} Text;

static void text_reserve(Text *t, size_t extra)
{
    if (t->n + extra + 1 <= t->cap)
        return;
    while (t->n + extra + 1 > t->cap)
        t->cap = t->cap ? 2 * t->cap : 128;
    t->p = realloc(t->p, t->cap);
    if (!t->p)
        diag_die("out of memory (schedule table)");
}

static void text_add_n(Text *t, const char *s, size_t len)
{
    text_reserve(t, len);
    memcpy(t->p + t->n, s, len);
    t->n += len;
    t->p[t->n] = '\0';
}

static void text_add(Text *t, const char *s)
{
    text_add_n(t, s, strlen(s));
}

static void text_spaces(Text *t, size_t n)
{
    text_reserve(t, n);
    memset(t->p + t->n, ' ', n);
    t->n += n;
    t->p[t->n] = '\0';
}

/* Decimal digits of v, written backwards from end; returns the first.
 * By hand, not with snprintf: a big graph's table has millions of cells,
 * and formatting them through printf was most of --emit=schedule's time. */
static char *format_int(char *end, int64_t v)
{
    uint64_t u = v < 0 ? 0 - (uint64_t)v : (uint64_t)v;
    char *p = end;
    do {
        *--p = (char)('0' + u % 10);
        u /= 10;
    } while (u);
    if (v < 0)
        *--p = '-';
    return p;
}

static void text_int(Text *t, int64_t v)
{
    char buf[24];
    char *first = format_int(buf + sizeof buf, v);
    text_add_n(t, first, (size_t)(buf + sizeof buf - first));
}



static void text_node_path(Text *t, const StreamNode *n)
{
    if (n->parent) {
        text_node_path(t, n->parent);
        text_add(t, "/");
    }
    text_add(t, n->name);
}

static void text_actor_path(Text *t, const StreamActor *a)
{
    switch (a->kind) {
    case ACTOR_INPUT: text_add(t, "input"); return;
    case ACTOR_OUTPUT: text_add(t, "output"); return;
    case ACTOR_FILTER: text_node_path(t, a->node); return;
    case ACTOR_SPLITTER:
        text_node_path(t, a->node);
        text_add(t, "/split");
        return;
    case ACTOR_JOINER:
        text_node_path(t, a->node);
        text_add(t, "/join");
        return;
    }
}

/* Every actor's path, rendered once: a path is printed in the actor's row,
 * in the rows of its channels and in its phases, each twice (measured,
 * then printed). */
typedef struct Paths {
    Text text;
    size_t *start;      /* actor a's path is text.p[start[a] .. start[a + 1]) */
} Paths;

static void paths_build(Paths *paths, const StreamFlat *f)
{
    paths->text = (Text){0};
    paths->start = xmalloc(((size_t)f->nactors + 1) * sizeof *paths->start);
    for (int a = 0; a < f->nactors; a++) {
        paths->start[a] = paths->text.n;
        text_actor_path(&paths->text, &f->actors[a]);
    }
    paths->start[f->nactors] = paths->text.n;
}

static void text_path(Text *t, const Paths *paths, int a)
{
    text_add_n(t, paths->text.p + paths->start[a], paths->start[a + 1] - paths->start[a]);
}

static bool channel_shown(const StreamFlat *f, int c)
{
    return sched_actor_shown(f, f->channels[c].src) && sched_actor_shown(f, f->channels[c].dst);
}

enum { ACTOR_COLUMNS = 11, CHANNEL_COLUMNS = 10 };

static const char *const actor_headers[ACTOR_COLUMNS] = {"#", "actor", "kind", "pop", "peek", "push",
                                                          "reps", "init", "rank", "device", "est ms"};
static const bool actor_left[ACTOR_COLUMNS] = {false, true, true};
static const char *const channel_headers[CHANNEL_COLUMNS] = {"#", "from", "to", "push", "pop",
                                                              "peek", "initial", "after init", "buffer",
                                                              "ranks"};
static const bool channel_left[CHANNEL_COLUMNS] = {false, true, true};

/* Rates of one side of an actor: "-" without ports, else one number per
 * port (pops of the inputs, pushes of the outputs). */
static void text_rates(Text *t, const StreamFlat *f, const int *ports, int n, bool pops)
{
    if (n == 0) {
        text_add(t, "-");
        return;
    }
    for (int p = 0; p < n; p++) {
        if (p)
            text_add(t, ",");
        const StreamChannel *c = &f->channels[ports[p]];
        text_int(t, pops ? c->pop : c->push);
    }
}

/* The rank that fires actor a, "-" before placement. */
static void text_rank(Text *t, const Schedule *s, int a)
{
    if (s->actor_rank)
        text_int(t, s->actor_rank[a]);
    else
        text_add(t, "-");
}

/* Whether actor a has an estimate: a work filter once placed. */
static bool has_estimate(const Schedule *s, int a)
{
    const StreamActor *actor = &s->flat->actors[a];
    return s->actor_seconds && actor->kind == ACTOR_FILTER && actor->node->filter.role == FILTER_WORK;
}

/* A work filter's estimated milliseconds per steady state, "-" for data
 * movers and before placement. */
static void text_estimate(Text *t, const Schedule *s, int a)
{
    if (!has_estimate(s, a)) {
        text_add(t, "-");
        return;
    }
    double seconds = s->actor_seconds[a];
    char buf[32];
    snprintf(buf, sizeof buf, "%.3g", seconds * 1e3);
    text_add(t, buf);
}

static void actor_cells(Text *cells, const Schedule *s, const Paths *paths, int a)
{
    const StreamFlat *f = s->flat;
    const StreamActor *actor = &f->actors[a];
    for (int i = 0; i < ACTOR_COLUMNS; i++)
        cells[i].n = 0;
    text_int(&cells[0], a);
    text_path(&cells[1], paths, a);
    text_add(&cells[2], actor->kind == ACTOR_FILTER ? stream_node_keyword(actor->node)
                                                    : stream_actor_kind_name(actor->kind));
    text_rates(&cells[3], f, actor->in, actor->nin, true);
    if (actor->kind == ACTOR_FILTER)
        text_int(&cells[4], actor->node->filter.peek);
    else
        text_add(&cells[4], "-");
    text_rates(&cells[5], f, actor->out, actor->nout, false);
    text_int(&cells[6], s->repetitions[a]);
    text_int(&cells[7], s->init_firings[a]);
    text_rank(&cells[8], s, a);
    char device[32];
    text_add(&cells[9], sched_actor_device(s, a, device, sizeof device));
    text_estimate(&cells[10], s, a);
}

static void text_end(Text *t, const StreamFlat *f, const Paths *paths, int a, int port)
{
    const StreamActor *actor = &f->actors[a];
    text_path(t, paths, a);
    if (actor->kind == ACTOR_SPLITTER || actor->kind == ACTOR_JOINER) {
        text_add(t, "[");
        text_int(t, port);
        text_add(t, "]");
    }
}

static void channel_cells(Text *cells, const Schedule *s, const Paths *paths, int c)
{
    const StreamChannel *ch = &s->flat->channels[c];
    for (int i = 0; i < CHANNEL_COLUMNS; i++)
        cells[i].n = 0;
    text_int(&cells[0], c);
    text_end(&cells[1], s->flat, paths, ch->src, ch->src_port);
    text_end(&cells[2], s->flat, paths, ch->dst, ch->dst_port);
    text_int(&cells[3], ch->push);
    text_int(&cells[4], ch->pop);
    text_int(&cells[5], ch->peek);
    text_int(&cells[6], ch->initial);
    text_int(&cells[7], s->fill_after_init[c]);
    text_int(&cells[8], s->buffer_size[c]);
    if (!s->actor_rank) {
        text_add(&cells[9], "-");
    } else {
        text_int(&cells[9], s->actor_rank[ch->src]);
        if (s->actor_rank[ch->dst] != s->actor_rank[ch->src]) {
            text_add(&cells[9], "->");
            text_int(&cells[9], s->actor_rank[ch->dst]);
        }
    }
}

static void measure(size_t *width, const Text *cells, int ncols)
{
    for (int i = 0; i < ncols; i++)
        if (cells[i].n > width[i])
            width[i] = cells[i].n;
}

/* The row is assembled in `line` and written with one call. */
static void print_row(FILE *out, const size_t *width, const bool *left, const Text *cells, int ncols, Text *line)
{
    line->n = 0;
    text_spaces(line, 2);
    for (int i = 0; i < ncols; i++) {
        if (i)
            text_spaces(line, 2);
        size_t len = cells[i].n, pad = width[i] > len ? width[i] - len : 0;
        if (!left[i])
            text_spaces(line, pad);
        text_add_n(line, cells[i].p ? cells[i].p : "", len);
        if (left[i] && i < ncols - 1)
            text_spaces(line, pad);
    }
    text_add_n(line, "\n", 1);
    fwrite(line->p, 1, line->n, out);
}

static void header_cells(Text *cells, const char *const *headers, int ncols)
{
    for (int i = 0; i < ncols; i++) {
        cells[i].n = 0;
        text_add(&cells[i], headers[i]);
    }
}

static const char *plural(int64_t n, const char *one, const char *many)
{
    return n == 1 ? one : many;
}

/* The cost model's lines (scheduler/predict.c): its rates, each rank's
 * work and messages, the steady state's L and B and the run's time. */
static void print_prediction(FILE *out, const SchedPrediction *p)
{
    if (!p->known)
        return;
    fprintf(out, "cost model: %.3g flop/s, %.3g B/s, %.3g math calls/s, %.3g us per firing; link %.3g us per "
                 "message, %.3g B/s\n",
            p->flops_per_s, p->bytes_per_s, p->math_per_s, p->firing_s * 1e6, p->link_latency_s * 1e6, p->link_bytes_per_s);
    for (int r = 0; r < p->nranks; r++)
        fprintf(out, "  rank %d: work %.3g ms, messages in %.3g ms, out %.3g ms, total %.3g ms\n", r,
                p->rank_work_s[r] * 1e3, p->rank_in_s[r] * 1e3, p->rank_out_s[r] * 1e3,
                (p->rank_work_s[r] + p->rank_in_s[r] + p->rank_out_s[r]) * 1e3);
    double total = p->latency_s + (double)(p->sets - 1) * p->bottleneck_s;
    fprintf(out, "steady state: latency L %.3g ms, bottleneck B %.3g ms; %" PRId64 " %s: L + %" PRId64
            " B = %.3g ms (%.3g ms per set)\n", p->latency_s * 1e3, p->bottleneck_s * 1e3, p->sets,
            plural(p->sets, "set", "sets"), p->sets - 1, total * 1e3, total * 1e3 / (double)p->sets);
}

/* The cost model's time of every work filter, per firing and per steady
 * state, with its rank (after the channels: scripts read the actors
 * table's columns from the end of each row). */
static void print_filter_costs(FILE *out, const Schedule *s, const Paths *paths)
{
    if (!s->predicted.known)
        return;
    fputs("\nfilter costs (the cost model's, per firing and per steady state):\n", out);
    fprintf(out, "  %6s  %4s  %8s  %10s  %10s  %s\n", "#", "rank", "firings", "ms/firing", "ms/steady", "filter");
    Text path = {0};
    for (int a = 0; a < s->flat->nactors; a++) {
        if (!has_estimate(s, a))
            continue;
        int64_t reps = s->repetitions[a];
        double seconds = s->actor_seconds[a];
        path.n = 0;
        text_path(&path, paths, a);
        fprintf(out, "  %6d  %4d  %8" PRId64 "  %10.3g  %10.3g  %s%s\n", a, s->actor_rank[a], reps,
                reps > 0 ? seconds * 1e3 / (double)reps : 0.0, seconds * 1e3, path.p,
                s->replicated[a] ? " (every rank makes it: not in the ranks' work)" : "");
    }
    free(path.p);
}

static void print_phases(FILE *out, const Schedule *s, const Paths *paths, const char *name,
                         const SchedPhase *phases, int n, const int64_t *firings_per_actor)
{
    int64_t firings = 0;
    for (int a = 0; a < s->flat->nactors; a++)
        firings += firings_per_actor[a];
    fprintf(out, "%s phase: %" PRId64 " %s in %d %s\n", name, firings, plural(firings, "firing", "firings"), n,
            plural(n, "phase", "phases"));
    Text path = {0};
    for (int i = 0; i < n; i++) {
        if (phases[i].actor == SCHED_REPEAT) {
            fprintf(out, "  repeat the last %d %s %" PRId64 " more %s\n", phases[i].span,
                    plural(phases[i].span, "phase", "phases"), phases[i].firings, plural(phases[i].firings, "time", "times"));
            continue;
        }
        path.n = 0;
        text_spaces(&path, 2);
        text_path(&path, paths, phases[i].actor);
        text_add_n(&path, " x", 2);
        text_int(&path, phases[i].firings);
        text_add_n(&path, "\n", 1);
        fwrite(path.p, 1, path.n, out);
    }
    free(path.p);
}

void sched_print_table(FILE *out, const Schedule *s)
{
    const StreamFlat *f = s->flat;
    int shown_actors = 0, shown_channels = 0;
    for (int a = 0; a < f->nactors; a++)
        shown_actors += sched_actor_shown(f, a);
    for (int c = 0; c < f->nchannels; c++)
        shown_channels += channel_shown(f, c);
    int64_t in_items, out_items;
    sched_external_items(s, &in_items, &out_items);
    fprintf(out, "schedule of %s %s: %d %s, %d %s\n", stream_node_keyword(s->root), s->root->name, shown_actors,
            plural(shown_actors, "actor", "actors"), shown_channels, plural(shown_channels, "channel", "channels"));
    fprintf(out, "per steady state: %" PRId64 " %s in, %" PRId64 " %s out\n", in_items,
            plural(in_items, "item", "items"), out_items, plural(out_items, "item", "items"));
    if (s->actor_rank) {
        double total = 0;
        for (int a = 0; s->actor_seconds && a < f->nactors; a++)
            total += s->actor_seconds[a];
        fprintf(out, "placement: %d %s, estimated %.3g ms of work per steady state%s%s\n", s->nranks,
                plural(s->nranks, "rank", "ranks"), total * 1e3, s->placement_note ? "; " : "",
                s->placement_note ? s->placement_note : "");
        print_prediction(out, &s->predicted);
    }
    if (s->device_note)
        fprintf(out, "%s\n", s->device_note);

    Paths paths;
    paths_build(&paths, f);
    Text line = {0};
    Text cells[ACTOR_COLUMNS] = {{0}};
    size_t width[ACTOR_COLUMNS] = {0};
    header_cells(cells, actor_headers, ACTOR_COLUMNS);
    measure(width, cells, ACTOR_COLUMNS);
    for (int a = 0; a < f->nactors; a++) {
        if (!sched_actor_shown(f, a))
            continue;
        actor_cells(cells, s, &paths, a);
        measure(width, cells, ACTOR_COLUMNS);
    }
    fputs("\nactors:\n", out);
    header_cells(cells, actor_headers, ACTOR_COLUMNS);
    print_row(out, width, actor_left, cells, ACTOR_COLUMNS, &line);
    for (int a = 0; a < f->nactors; a++) {
        if (!sched_actor_shown(f, a))
            continue;
        actor_cells(cells, s, &paths, a);
        print_row(out, width, actor_left, cells, ACTOR_COLUMNS, &line);
    }
    for (int i = 0; i < ACTOR_COLUMNS; i++)
        free(cells[i].p);

    fputc('\n', out);
    print_phases(out, s, &paths, "init", s->init, s->ninit, s->init_firings);
    print_phases(out, s, &paths, "steady", s->steady, s->nsteady, s->repetitions);

    Text ccells[CHANNEL_COLUMNS] = {{0}};
    size_t cwidth[CHANNEL_COLUMNS] = {0};
    header_cells(ccells, channel_headers, CHANNEL_COLUMNS);
    measure(cwidth, ccells, CHANNEL_COLUMNS);
    for (int c = 0; c < f->nchannels; c++) {
        if (!channel_shown(f, c))
            continue;
        channel_cells(ccells, s, &paths, c);
        measure(cwidth, ccells, CHANNEL_COLUMNS);
    }
    fputs("\nchannels:\n", out);
    header_cells(ccells, channel_headers, CHANNEL_COLUMNS);
    print_row(out, cwidth, channel_left, ccells, CHANNEL_COLUMNS, &line);
    for (int c = 0; c < f->nchannels; c++) {
        if (!channel_shown(f, c))
            continue;
        channel_cells(ccells, s, &paths, c);
        print_row(out, cwidth, channel_left, ccells, CHANNEL_COLUMNS, &line);
    }
    for (int i = 0; i < CHANNEL_COLUMNS; i++)
        free(ccells[i].p);
    print_filter_costs(out, s, &paths);
    free(line.p);
    free(paths.text.p);
    free(paths.start);
    for (int i = 0; i < s->ninner; i++) {
        fputs("\ninner schedule of ", out);
        stream_node_print_path(out, f->actors[s->inner_actor[i]].node);
        fputs(" (a hierarchical filter: one steady state per iteration of its loop)\n", out);
        sched_print_table(out, s->inner[i]);
    }
}
