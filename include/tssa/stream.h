/* stream.h — StreamIt stream graphs: structures, builder, text form, pictures.
 *
 * A stream graph is a tree of hierarchical streams (as in StreamIt):
 *   Filter        the leaf: one actor that pops, peeks and pushes a fixed
 *                 number of items per firing. Identity (pop 1, push 1) and
 *                 Separator (pops items and discards them: dead outputs) are
 *                 filters with a role.
 *   Pipeline      stages in sequence; stage k's output feeds stage k+1.
 *   SplitJoin     a splitter (duplicate, or weighted round-robin) feeds every
 *                 branch; a weighted round-robin joiner collects them.
 *   FeedbackLoop  joiner RR(w_in, w_loop) -> body -> splitter (duplicate or
 *                 RR(w_out, w_loop)); the splitter's loop output runs through
 *                 the loop path back into the joiner's second input, whose
 *                 channel starts with `enqueued` items.
 * Every stream has one input and one output (either may carry no items).
 *
 * An item on a channel is a tensor (or a chunk of one); this layer only
 * counts items. A filter's work is opaque here: hand-written graphs name an
 * op (`work_op`), lowered graphs point at a region of the functional IR
 * (`work`, `nodes`). Placement (`rank`, `device`) is filled by the
 * partitioner of a later issue; -1 means "not placed".
 *
 * Memory: a StreamGraph owns every node made with its builder functions and
 * every string they hold; stream_graph_free releases them all.
 *
 * The flat view (StreamFlat) turns the tree into actors (filters, splitters,
 * joiners, and the graph's external input and output) joined by channels,
 * in a topological order of the tree (feedback channels aside). The
 * scheduler, the dot printer and the executors all work on it.
 */
#ifndef TSSA_STREAM_H
#define TSSA_STREAM_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "tssa/ir.h"
#include "tssa/util.h"

typedef struct StreamGraph StreamGraph;
typedef struct StreamNode StreamNode;

/* Deepest nesting of streams the reader accepts and the scheduler walks. */
#define STREAM_MAX_DEPTH 256
/* Longest name or op name, in characters. */
#define STREAM_MAX_NAME 256
/* Largest rate, weight or enqueue count the reader accepts (2^40). Larger
 * counts of items per firing mean nothing for tensors and only invite
 * overflow; the scheduler still checks every product it forms. */
#define STREAM_MAX_RATE ((int64_t)1 << 40)

typedef enum StreamKind {
    STREAM_FILTER,
    STREAM_PIPELINE,
    STREAM_SPLITJOIN,
    STREAM_FEEDBACKLOOP,
} StreamKind;

typedef enum FilterRole {
    FILTER_WORK,        /* does work: a named op or a region of the IR */
    FILTER_IDENTITY,    /* pop 1, push 1, passes its item on */
    FILTER_SEPARATOR,   /* pops items and discards them (dead values) */
} FilterRole;

typedef enum SplitKind {
    SPLIT_DUPLICATE,    /* one item in, a copy to every output */
    SPLIT_ROUNDROBIN,   /* w[k] items to output k, in turn */
} SplitKind;

typedef struct StreamFilter {
    FilterRole role;
    int64_t pop, peek, push;    /* items per firing; peek >= pop */
    bool stateful;              /* keeps state between firings (no fission) */
    const char *work_op;        /* hand-written graphs: the op's name, or NULL */
    /* Lowered graphs: the region of the functional graph this filter runs.
     * `work` is the lowering's opaque handle (its graph or region record),
     * `nodes[0..nnodes-1]` the IR nodes in execution order. */
    void *work;
    IrNode **nodes;
    int nnodes;
    int rank, device;           /* placement; -1 until placed */
    /* What one firing costs, estimated from the static shapes
     * (kernels_estimate_costs); zeros when unknown (hand-written graphs). */
    double flops;               /* arithmetic */
    double math;                /* elements through exp/log/tanh-class calls */
    double bytes;               /* memory traffic (fused groups: their inputs and outputs) */
    double bytes_in, bytes_out; /* the items it pops and pushes */
    double bytes_in_shared;     /* popped items that are the same every firing */
    /* A hierarchical filter (a loop whose trip count is decided at run
     * time: a while loop, a break, a trip count from tensor data): the root
     * of the stream its body is, in a graph of its own (stream_graph_new_inner).
     * One firing of the filter runs the inner stream's steady state once
     * per iteration, for as many iterations as the loop decides at run time;
     * to the outer schedule the filter is a leaf. NULL for plain filters. */
    StreamNode *inner;
} StreamFilter;

/* A phased actor (cyclo-static, as in StreamIt's phased scheduling): one
 * firing of it in the SDF sense, over `trips` iterations of a loop, runs as
 * ceil(trips / chunk) phases, phase j covering the iterations [j*chunk,
 * min(trips, (j+1)*chunk)). Its aggregate rates (the filter's pop and push,
 * the joiner's weights) stay what the balance equations see; per phase an
 * input port p takes in_per[p] items per iteration of the phase plus, in
 * phase 0, the rest of its rate, and the output gives out_per per
 * iteration plus the rest in phase 0 (or in the last phase with
 * emit_last). Set on a loop's Unstack and Stack filters, on the splitjoin
 * whose joiner is phased, and on the loop's pipeline (the region whose
 * phased actors advance together; streamit/lower_loop.c), for loops with
 * state and data-parallel ones alike. Splitting a filter of the region
 * (fission, --devices, the rank partitioner: sched_fission_split) clears
 * the phasing of the whole region first: the split-join's weights cover
 * all the filter's firings per steady state, not one phase's. */
typedef struct StreamPhasing {
    int64_t trips, chunk;       /* trips > chunk >= 1 */
    int64_t in_per[2];
    int64_t out_per;
    bool emit_last;
} StreamPhasing;

struct StreamNode {
    StreamKind kind;
    int id;                     /* dense per graph, in creation order */
    const char *name;           /* an identifier (see stream_name_sanitize) */
    StreamNode *parent;         /* NULL for a root */
    int index_in_parent;        /* stage, branch; 0 body / 1 loop path */
    int line, col;              /* where the .str text declares it; 0 if built */
    /* Text printed as "// " lines before the node (why the lowering built
     * it so, its source line); NULL for none. The reader skips comments, so
     * a graph read back has none. */
    const char *comment;
    const StreamPhasing *phasing;   /* NULL: not phased (see StreamPhasing) */
    StreamGraph *graph;
    union {
        StreamFilter filter;    /* STREAM_FILTER */
        struct {                /* containers */
            StreamNode **children;  /* stages; branches; {body, loop} */
            int nchildren, cap_children;
            /* SplitJoin: split_weights[k] (RR) and join_weights[k] per
             * branch. FeedbackLoop: join_weights {in, loop}, split_weights
             * {out, loop} (RR). Duplicate splitters have no weights. */
            int64_t *split_weights;
            int64_t *join_weights;
            SplitKind split;
            int64_t enqueued;       /* FeedbackLoop: items on the loop path at start */
        };
    };
};

struct StreamGraph {
    StreamNode *root;
    const char *file;           /* the .str path for messages, or NULL */
    const char *source;         /* its text (for carets), or NULL */
    size_t source_len;
    int nnodes;
    StreamNode **nodes;         /* every node, by id */
    int cap_nodes;
    Arena *arena;               /* node and string storage */
    StreamGraph **inner_graphs; /* graphs of hierarchical filters' inner streams */
    int ninner_graphs;
};

/* ---------------------------------------------------------------- building */

StreamGraph *stream_graph_new(void);
void stream_graph_free(StreamGraph *g);
void stream_graph_set_root(StreamGraph *g, StreamNode *root);
/* A graph for the inner stream of a hierarchical filter of `outer`
 * (StreamFilter.inner): its node ids are its own, so passes over the outer
 * graph's nodes never see it; freed with the outer graph. */
StreamGraph *stream_graph_new_inner(StreamGraph *outer);

/* Names are identifiers ([A-Za-z_][A-Za-z0-9_]*) that are not keywords of
 * the text form; the constructors copy the name and make it one: other
 * characters become '_', a leading digit or a keyword gets a '_' prefix,
 * and names are cut at STREAM_MAX_NAME characters. NULL gives the default
 * ("Identity", "Separator", or the kind). */
StreamNode *stream_filter_new(StreamGraph *g, const char *name,
                              int64_t pop, int64_t peek, int64_t push);
StreamNode *stream_identity_new(StreamGraph *g, const char *name);
StreamNode *stream_separator_new(StreamGraph *g, const char *name, int64_t pop);
void stream_filter_set_work_op(StreamNode *filter, const char *op);
void stream_filter_set_stateful(StreamNode *filter, bool stateful);
/* Makes filter hierarchical: inner, the root of a graph made with
 * stream_graph_new_inner(filter->graph), is the stream one of its steady
 * states runs (see StreamFilter.inner). */
void stream_filter_set_inner(StreamNode *filter, StreamNode *inner);
/* Sets n's comment (copied; newlines split it into several lines). */
void stream_node_set_comment(StreamNode *n, const char *text);

StreamNode *stream_pipeline_new(StreamGraph *g, const char *name);
void stream_pipeline_add(StreamNode *pipeline, StreamNode *stage);

/* A split-join; its branches come with stream_splitjoin_add, each with the
 * splitter's weight for it (ignored by a duplicate splitter) and the
 * joiner's weight. */
StreamNode *stream_splitjoin_new(StreamGraph *g, const char *name, SplitKind split);
void stream_splitjoin_add(StreamNode *splitjoin, StreamNode *branch,
                          int64_t split_weight, int64_t join_weight);

/* A feedback loop with joiner RR(1, 1) and a duplicate splitter; change
 * them with the setters below. */
StreamNode *stream_feedbackloop_new(StreamGraph *g, const char *name, StreamNode *body,
                                    StreamNode *loop, int64_t enqueued);
void stream_feedbackloop_set_joiner(StreamNode *loop, int64_t in_weight, int64_t loop_weight);
void stream_feedbackloop_set_splitter(StreamNode *loop, SplitKind split, int64_t out_weight,
                                      int64_t loop_weight);

/* Rewriting a built graph (graph transformations such as fission).
 * stream_filter_copy makes a new filter of the same graph, unattached, with
 * the original's role, rates, statefulness, work (work_op, work, nodes
 * shared, not copied), placement, source position and comment; NULL name
 * keeps the original's. stream_replace puts `replacement` (unattached) where `old` is:
 * the same stage, branch (its weights stay) or feedback-loop slot, or the
 * graph's root; `old` is left unattached (still owned by the graph). */
StreamNode *stream_filter_copy(const StreamNode *filter, const char *name);
void stream_replace(StreamNode *old, StreamNode *replacement);

/* The builder's preconditions (rates >= 0, peek >= pop, peek 0 when pop is
 * 0, a child added to one parent only) are checked; breaking one is a bug in
 * the caller and aborts with a message. Input from outside goes through the
 * reader, which reports the same conditions as located errors. */

/* Writes name made into an identifier (rules above) to buf. */
void stream_name_sanitize(const char *name, char *buf, size_t size);
bool stream_name_is_keyword(const char *name);

/* ---------------------------------------------------------------- queries */

const char *stream_kind_name(StreamKind k);     /* "filter", "pipeline", ... */
/* "filter", "identity", "separator" for filters, else the kind's name. */
const char *stream_node_keyword(const StreamNode *n);
/* Writes the node's path from its root, names joined by '/':
 * "FMRadio/Equalizer/Band1". */
void stream_node_print_path(FILE *out, const StreamNode *n);
int stream_node_depth(const StreamNode *n);     /* a root has depth 0 */

/* Writes "FILE:LINE:COL: error: " (or "error: " for built nodes), the
 * message, a newline, and the source line with a caret when the graph came
 * from text. */
void stream_node_error(FILE *err, const StreamNode *n, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Checks what the builder cannot check while a graph is being built: every
 * pipeline has a stage and every split-join a branch, and nesting is at most
 * STREAM_MAX_DEPTH. On failure writes a message naming the stream to err and
 * returns false. The flat view, the scheduler and the dot printer need it. */
bool stream_check(const StreamNode *root, FILE *err);

/* ---------------------------------------------------------------- text form */

/* Reads the .str text form (grammar: streamit/str_parser.c and
 * tests/streamit/FORMAT.md). On error writes "FILE:LINE:COL: error: WHAT",
 * the line and a caret to err and returns NULL. `file` names the input in
 * messages. */
StreamGraph *str_parse(const char *text, size_t len, const char *file, FILE *err);
StreamGraph *str_parse_file(const char *path, FILE *err);
/* Prints a stream in the syntax str_parse reads; print(parse(print(g))) is
 * print(g). */
void str_print(FILE *out, const StreamNode *root);

/* Graphviz: pipelines, split-joins and feedback loops as clusters, filters,
 * splitters and joiners as nodes, channels as edges labelled with rates. */
void stream_print_dot(FILE *out, const StreamNode *root);

/* ---------------------------------------------------------------- flat view */

typedef enum StreamActorKind {
    ACTOR_INPUT,        /* the graph's external input: pushes 1 item per firing */
    ACTOR_FILTER,
    ACTOR_SPLITTER,
    ACTOR_JOINER,
    ACTOR_OUTPUT,       /* the graph's external output: pops 1 item per firing */
} StreamActorKind;

typedef struct StreamActor {
    StreamActorKind kind;
    /* The filter; the split-join or feedback loop that owns a splitter or
     * joiner; the root for the input and output. */
    const StreamNode *node;
    int nin, nout;
    int *in, *out;      /* channel indices by port */
} StreamActor;

typedef struct StreamChannel {
    int src, src_port;  /* producing actor and its output port */
    int dst, dst_port;  /* consuming actor and its input port */
    int64_t push;       /* items per firing of src */
    int64_t pop, peek;  /* items per firing of dst (peek >= pop) */
    int64_t initial;    /* items on the channel before anything fires */
    bool feedback;      /* a feedback loop's loop path -> joiner channel */
} StreamChannel;

/* Actors are in a topological order of the graph without its feedback
 * channels: input first, then pipelines stage by stage, split-joins as
 * splitter, branches, joiner, feedback loops as joiner, body, splitter, loop
 * path; output last. A channel whose push and pop are both 0 carries no
 * items (the input of a graph that starts with a source; a branch ending in
 * a separator under joiner weight 0). The input pushes 1 item per firing
 * when its consumer pops any, else 0; likewise the output. */
typedef struct StreamFlat {
    const StreamNode *root;
    int nactors, nchannels;
    StreamActor *actors;
    StreamChannel *channels;
    int *ports;         /* storage behind every actor's in/out */
    int64_t nports;
    /* The actors of node id i are first_actor[i] .. last_actor[i], a
     * contiguous range (-1 for nodes outside root); a feedback loop's range
     * starts with its joiner. Sized by the graph's node count. */
    int *first_actor, *last_actor;
} StreamFlat;

StreamFlat *stream_flatten(const StreamNode *root);
/* Phases (streamit/stream_flat.c): the phases of one firing of a phased
 * actor (1 when it is not), its iterations in phase j, and the items a
 * channel takes from its producer's phase j / gives its consumer's phase j
 * (the channel's push and pop when that end is not phased). */
const StreamPhasing *stream_actor_phasing(const StreamActor *a);
int64_t stream_actor_phases(const StreamActor *a);
int64_t stream_phasing_iterations(const StreamPhasing *ph, int64_t j);
int64_t stream_channel_push_at(const StreamFlat *f, int c, int64_t j);
int64_t stream_channel_pop_at(const StreamFlat *f, int c, int64_t j);
void stream_flat_free(StreamFlat *f);
const char *stream_actor_kind_name(StreamActorKind k);  /* "filter", "split", ... */
/* The actor's path: a filter's path, "PATH/split" or "PATH/join" for a
 * splitter or joiner, "input" and "output". */
void stream_actor_print_path(FILE *out, const StreamActor *a);

#endif
