/* random_graph.h — random consistent stream graphs for the scheduler's
 * tests (tests only).
 *
 * The generator builds nested pipelines, split-joins (duplicate or weighted
 * round-robin, sometimes with a separator branch) and feedback loops with
 * random rates, peeks outside feedback loops, some stateful filters, and
 * external input and output or, for half the graphs, a source ("Source",
 * pop 0) and a sink ("Sink", push 0). It keeps them consistent by
 * construction, computing each subtree's items in and out per local steady
 * state with its own small fraction arithmetic (independent of
 * scheduler/rational.c):
 *   split-join   joiner weights proportional to what each live branch
 *                produces per splitter firing
 *   feedback     loop gain g = r_body * (loop share of the splitter) *
 *                r_loop kept below 1; joiner (b - a, a) for g = a / b; the
 *                loop path then returns exactly what the joiner takes;
 *                enqueued items = loop weight * joiner firings per local
 *                steady state * (1..4) (+ 0..2), enough to run local steady
 *                states one after another, so no loop deadlocks.
 * Filter names are unique within a graph. The same seed gives the same
 * graphs.
 */
#ifndef TSSA_TESTS_RANDOM_GRAPH_H
#define TSSA_TESTS_RANDOM_GRAPH_H

#include <stdint.h>

#include "tssa/stream.h"

typedef struct RandomGraph {
    StreamGraph *g;             /* the caller frees it; its root is set */
    StreamNode *root;
    int64_t items_in, items_out;    /* per steady state, by the generator's arithmetic */
} RandomGraph;

/* The next graph of the generator whose state is *state (advanced). */
RandomGraph random_graph_next(uint64_t *state);

/* A number in 0..n-1 from the same generator. */
int random_graph_pick(uint64_t *state, int n);

#endif
