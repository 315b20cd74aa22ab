/* kernels_internal.h — what the kernels layer's files share: building
 * kernel IR from fused groups (kir_build.c), printing it (kir_print.c),
 * forming the groups (fuse.c) and running them (kernel_program.c). */
#ifndef TSSA_KERNELS_INTERNAL_H
#define TSSA_KERNELS_INTERNAL_H

#include "kernels/kir.h"
#include "tssa/kernels.h"
#include "tssa/lower.h"

/* Below this much work (elements times expression nodes) an output's loop
 * nest runs on one thread: the OpenMP fork and join (a few microseconds)
 * would cost more than it saves. */
#define KIR_PARALLEL_MIN 200000

typedef enum KirTarget { KIR_TARGET_C, KIR_TARGET_CUDA } KirTarget;

/* The compile-time value of v, where v may be a param of group's block
 * (it then stands for the group's input), or NULL. group may be NULL. */
const RtValue *kir_static(const LowerProgram *p, const IrNode *group, const IrValue *v);
/* Whether node n (not yet in a group) can be computed inside a kernel: an
 * op with a kernel rule, static shapes, compile-time arguments where the
 * rule needs them. */
bool kir_fusable(const LowerProgram *p, const IrNode *n);
/* The kernel of a tssa::FusionGroup node, named `name`, or NULL with *why. */
KKernel *kir_build_kernel(KirBuilder *b, const LowerProgram *p, const IrNode *group,
                          const char *name, const char **why);

void kir_print_prelude(TextBuf *t, KirTarget target);
void kir_print_kernel(TextBuf *t, const KKernel *k, KirTarget target);

#endif
