/* frontend.h — what comes in from outside and goes back out: TorchScript
 * graph text (lexer, parser, printer), the command line's NAME=VALUE
 * bindings resolved against a graph's inputs, and the outputs written as
 * .npy files (frontend/). The tensor file formats themselves (.npy,
 * safetensors) are in io.h; the IR the parser builds is in ir.h.
 */
#ifndef TSSA_FRONTEND_H
#define TSSA_FRONTEND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "tssa/io.h"
#include "tssa/ir.h"
#include "tssa/value.h"

/* ---------------------------------------------------------------- graph text */

/* Parses TorchScript graph text. On error writes
 * "FILE:LINE:COL: error: WHAT", the line and a caret to err and returns NULL.
 * `file` names the input in messages. */
IrGraph *ir_parse(const char *text, size_t len, const char *file, FILE *err);
IrGraph *ir_parse_file(const char *path, FILE *err);
/* Prints g in the syntax ir_parse reads (TorchScript's own). */
void ir_print(FILE *out, const IrGraph *g);
void ir_print_node(FILE *out, const IrNode *n, int indent);   /* indent: spaces (2 at top) */
/* Prints a float the way TorchScript does (17 significant digits, "1." for
 * integral values). */
void ir_print_double(FILE *out, double v);
/* Composite ops PyTorch writes in C++ from ops the op table has
 * (aten::_native_multi_head_attention, aten::_transformer_encoder_layer_fwd)
 * replaced in g by their definitions' graphs (frontend/decompose.c). Returns
 * how many nodes it replaced, or -1 (message on err, which may be NULL)
 * when a definition shipped with this build does not parse. */
int ir_expand_decompositions(IrGraph *g, FILE *err);

/* ---------------------------------------------------------------- bindings */

/* Resolves the command-line bindings ("x=in.npy", "n=3", "flag=true") and the
 * weights file against the graph's inputs. Fills inputs[0..ninputs-1] (one per
 * graph input, in order; the caller releases them). On a missing or extra
 * input, an unreadable file, a value that does not fit the input's type
 * (a float for an int, a tensor whose dtype or rank contradicts a refined
 * type) or a module input without --weights: writes a message naming the
 * input to err and returns false (the driver exits 2). */
bool bindings_resolve(IrGraph *g, int nbind, char **bind, const char *weights_path,
                      RtValue ***inputs, int *ninputs, Safetensors **weights, FILE *err);
/* bindings_resolve's check of the weights alone, for a rank that opens its
 * own --weights file (under mpirun): every module attribute the graph reads
 * is in it, as the type the graph declares. False after writing why to err. */
bool bindings_check_weights(IrGraph *g, const Safetensors *weights, FILE *err);

/* ---------------------------------------------------------------- outputs */

/* Writes outputs flattened (tuples and lists in order, recursively) as
 * DIR/out0.npy, DIR/out1.npy, ...; ints as 0-d int64, floats as 0-d float64,
 * bools as 0-d bool. Creates DIR if needed. All or nothing: the files are
 * written into a staging directory inside DIR and renamed into place only
 * when every one was written, so a failure (an output that is a string,
 * None or a module; a full disk) leaves DIR as it was, and removes DIR
 * again if this call made it. A successful write then removes DIR's
 * out<N>.npy files it did not write and dead runs' staging directories
 * (outputs.c's header says which). Returns false after writing a message
 * to err. */
bool outputs_write(const char *dir, RtValue **outputs, int noutputs, FILE *err);
/* Checks, before any work, that dir can hold the outputs: not empty, a
 * writable directory or a path one can be made at (tried: a staging
 * directory is made in it and removed, and directories made for the try
 * are removed again). False after writing why to err (the driver exits 2). */
bool outputs_check_dir(const char *dir, FILE *err);
/* Prints a one-line summary per flattened output (no -o). */
void outputs_summarize(FILE *out, RtValue **outputs, int noutputs);

#endif
