/* cpu_backend.c — backend_cpu_run: run a scheduled plan on this CPU.
 *
 *   node_exec_clone  the program's compile-time values, in this run's own
 *                    evaluation context (the plan itself is never written)
 *   cpu_execute      the schedule, run in order (cpu_exec.c), each work
 *                    filter fired on that context (fire.c)
 * The stream's output items and the program's compile-time outputs are then
 * put back in the order of the graph's outputs, on rank 0 (a placed plan's
 * output actor is there; the other ranks' runs return no outputs).
 */
#include <malloc.h>
#include <pthread.h>
#include <stdlib.h>

#include "backends/cpu/cpu.h"

/* Every firing makes tensors and drops them again, the same sizes run after
 * run. glibc serves blocks above its mmap threshold (128 KiB at first) with
 * fresh mappings, so each such tensor would cost its page faults again;
 * keeping blocks up to 256 MiB on the heap, and not trimming it, makes a
 * freed buffer the next allocation of its size (warm pages). */
static void keep_buffers(void)
{
    mallopt(M_MMAP_THRESHOLD, 256 << 20);
    mallopt(M_TRIM_THRESHOLD, 512 << 20);
}

int backend_cpu_run(const ExecPlan *plan, RtValue **inputs, int ninputs, RtValue ***outputs,
                    int *noutputs, FILE *err)
{
    static pthread_once_t buffers_once = PTHREAD_ONCE_INIT;
    pthread_once(&buffers_once, keep_buffers);
    *outputs = NULL;
    *noutputs = 0;
    const LowerProgram *program = plan->program;
    int nin = 0;
    const int *in_map = lower_input_map(program, &nin);
    RtValue **stream_inputs = xcalloc((size_t)nin + 1, sizeof *stream_inputs);
    for (int k = 0; k < nin; k++) {
        if (in_map[k] >= ninputs) {
            fprintf(err, "error: internal: the plan reads graph input %d of %d\n", in_map[k], ninputs);
            free(stream_inputs);
            return 1;
        }
        stream_inputs[k] = inputs[in_map[k]];
    }

    NodeExec *values = node_exec_clone(lower_static_values(program));
    kernels_install(plan->kernels, values);
    node_exec_set_backend(values, "cpu");
    RtValue **items = NULL;
    int nitems = 0;
    bool ok = cpu_execute(plan, values, stream_inputs, nin, &items, &nitems, err);
    free(stream_inputs);
    if (ok && plan->rank == 0) {    /* the outputs are rank 0's (other ranks return none) */
        IrGraph *lowered = lower_ir_graph(program);
        int nret = ir_block_nreturns(lowered->top);
        const int *out_map = lower_output_map(program);
        RtValue **out = xcalloc((size_t)nret + 1, sizeof *out);
        for (int k = 0; k < nret && ok; k++) {
            if (out_map[k] < 0)
                out[k] = rt_retain(lower_static_value(program, ir_block_return(lowered->top, k)));
            else if (out_map[k] < nitems)
                out[k] = rt_retain(items[out_map[k]]);
            if (!out[k]) {
                fprintf(err, "error: internal: graph output %d has no value\n", k);
                ok = false;
            }
        }
        if (ok) {
            *outputs = out;
            *noutputs = nret;
        } else {
            for (int k = 0; k < nret; k++)
                rt_release(out[k]);
            free(out);
        }
    }
    for (int i = 0; i < nitems; i++)
        rt_release(items[i]);
    free(items);
    node_exec_free(values);
    return ok ? 0 : 1;
}
