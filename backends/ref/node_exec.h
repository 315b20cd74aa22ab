/* node_exec.h — running single IR nodes and regions on the ref interpreter's
 * op bindings, for executors that are not the whole-graph interpreter (the
 * cpu backend fires one filter at a time; the lowering evaluates the scalar
 * slice of a graph at compile time).
 *
 * A NodeExec holds one value slot per IrValue of its graph (by dense id),
 * like a RefRun. The caller puts values into slots (node_exec_set), runs
 * nodes or blocks, reads results (node_exec_get) and clears the slots it no
 * longer needs, so that values reach a node only along the paths the caller
 * chose (the cpu backend: channels). prim::If and prim::Loop run their blocks
 * with the interpreter's semantics; every other op goes through the ref
 * backend's binding table (ref_dispatch), so results are the oracle's.
 *
 * Errors are reported as the interpreter reports them,
 * "FILE:LINE: error: KIND: WHAT", once, where the failing node is.
 */
#ifndef TSSA_NODE_EXEC_H
#define TSSA_NODE_EXEC_H

#include <stdbool.h>
#include <stdio.h>

#include "tssa/backend.h"

typedef struct NodeExec NodeExec;

/* A context for nodes of g. The graph must not get new nodes or values
 * afterwards (slots are sized by g's counts now). */
NodeExec *node_exec_new(IrGraph *g, const Safetensors *weights, FILE *err);
void node_exec_free(NodeExec *x);
/* Where failures and warnings go from now on (NULL: nowhere). */
void node_exec_set_err(NodeExec *x, FILE *err);

/* Stores value (takes the caller's reference) as v's current value. */
void node_exec_set(NodeExec *x, const IrValue *v, RtValue *value);
/* v's current value (borrowed), or NULL. */
RtValue *node_exec_get(const NodeExec *x, const IrValue *v);
/* Drops v's current value. */
void node_exec_clear(NodeExec *x, const IrValue *v);
/* Drops the value of every output of n and of every value defined inside
 * its blocks. */
void node_exec_clear_node(NodeExec *x, const IrNode *n);

/* Runs n (its inputs must have values; values used inside its blocks too)
 * and stores its outputs. False after reporting the failure. */
bool node_exec_node(NodeExec *x, IrNode *n);
/* Runs the nodes of b in order (its params must have values). */
bool node_exec_block(NodeExec *x, IrBlock *b);

#endif
