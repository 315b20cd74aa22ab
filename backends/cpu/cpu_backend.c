/* cpu_backend.c — backend_cpu_run: compile, plan, execute.
 *
 *   lower_compile   functionalize and specialize the graph to the inputs,
 *                   lower it to a stream graph (streamit/lower*.c)
 *   sched_build     the static schedule and channel buffer sizes
 *   cpu_execute     the schedule, run in order on this CPU (cpu_exec.c)
 * The stream's output items and the program's compile-time outputs are then
 * put back in the order of the graph's outputs.
 */
#include <stdlib.h>

#include "backends/cpu/cpu.h"

int backend_cpu_run(IrGraph *g, RtValue **inputs, int ninputs, const Safetensors *weights,
                    RtValue ***outputs, int *noutputs, FILE *err)
{
    *outputs = NULL;
    *noutputs = 0;
    int status = 0;
    CpuPlan plan = {0};
    plan.program = lower_compile(g, inputs, ninputs, weights, err, &status);
    if (!plan.program)
        return 1;
    plan.schedule = sched_build(lower_stream_graph(plan.program)->root, err);
    if (!plan.schedule) {
        lower_program_free(plan.program);
        return 1;
    }

    int nin = 0;
    const int *in_map = lower_input_map(plan.program, &nin);
    RtValue **stream_inputs = calloc((size_t)nin + 1, sizeof *stream_inputs);
    if (!stream_inputs)
        abort();
    for (int k = 0; k < nin; k++)
        stream_inputs[k] = inputs[in_map[k]];

    RtValue **items = NULL;
    int nitems = 0;
    bool ok = cpu_execute(&plan, stream_inputs, nin, &items, &nitems, err);
    free(stream_inputs);
    if (ok) {
        IrGraph *lowered = lower_ir_graph(plan.program);
        int nret = ir_block_nreturns(lowered->top);
        const int *out_map = lower_output_map(plan.program);
        RtValue **out = calloc((size_t)nret + 1, sizeof *out);
        if (!out)
            abort();
        for (int k = 0; k < nret && ok; k++) {
            if (out_map[k] < 0)
                out[k] = rt_retain(lower_static_value(plan.program, ir_block_return(lowered->top, k)));
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
    sched_free(plan.schedule);
    lower_program_free(plan.program);
    return ok ? 0 : 1;
}
