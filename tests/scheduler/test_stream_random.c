/* test_stream_random.c — the scheduler on random stream graphs.
 *
 * GRAPHS graphs from the generator of random_graph.h (fixed seed), each
 * consistent by construction, with its items in and out per steady state
 * computed by the generator's own arithmetic.
 * For every graph: sched_build succeeds; the independent token simulator
 * (token_sim.h) accepts the schedule (structure, balance, least vector,
 * no underflow, channels back at their post-init fill after the steady
 * state, buffer sizes); the graph's items in and out per steady state are
 * the generator's; and printing is a fixpoint through the reader.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scheduler/random_graph.h"
#include "scheduler/stream_test_util.h"
#include "scheduler/token_sim.h"
#include "tssa/schedule.h"
#include "tssa/stream.h"

enum { GRAPHS = 500 };

/* The checker must be able to fail: break a good schedule in three ways
 * (a phase out of order, a wrong buffer size, a wrong repetition count). */
static int check_the_checker(void)
{
    const char *text = "pipeline P { filter A pop 1 push 2; filter B pop 3 peek 5 push 1; }";
    StreamGraph *g = str_parse(text, strlen(text), "checker.str", stderr);
    Schedule *s = g ? sched_build(g->root, stderr) : NULL;
    int failures = 0;
    if (!s || !token_sim_check(s, stderr) || s->ninit < 2) {
        fprintf(stderr, "FAIL: the checker's own example does not schedule as expected\n");
        failures++;
    } else {
        FILE *quiet = fopen("/dev/null", "w");
        SchedPhase first = s->init[0];
        s->init[0] = s->init[1];
        s->init[1] = first;
        failures += token_sim_check(s, quiet);      /* consumer before producer: underflow */
        s->init[1] = s->init[0];
        s->init[0] = first;
        s->buffer_size[1]++;
        failures += token_sim_check(s, quiet);
        s->buffer_size[1]--;
        s->repetitions[1] *= 2;
        failures += token_sim_check(s, quiet);
        fclose(quiet);
        if (failures)
            fprintf(stderr, "FAIL: the token simulator accepts a broken schedule\n");
    }
    sched_free(s);
    stream_graph_free(g);
    return failures;
}

int main(void)
{
    uint64_t state = 0x5eed5eed12345ULL;
    int failures = 0, filters = 0, loops = 0, phases = 0;
    for (int i = 0; i < GRAPHS; i++) {
        RandomGraph r = random_graph_next(&state);
        StreamNode *root = r.root;
        int64_t in = r.items_in, out = r.items_out;
        bool ok = true;
        Schedule *s = sched_build(root, stderr);
        if (!s) {
            fprintf(stderr, "FAIL graph %d: does not schedule\n", i);
            ok = false;
        } else {
            if (!token_sim_check(s, stderr)) {
                fprintf(stderr, "FAIL graph %d: the token simulator rejects the schedule\n", i);
                ok = false;
            }
            int64_t items_in = 0, items_out = 0;
            for (int a = 0; a < s->flat->nactors; a++) {
                const StreamActor *actor = &s->flat->actors[a];
                if (actor->kind == ACTOR_INPUT)
                    items_in = s->repetitions[a];
                if (actor->kind == ACTOR_OUTPUT)
                    items_out = s->repetitions[a];
                if (actor->kind == ACTOR_FILTER)
                    filters++;
                if (actor->kind == ACTOR_JOINER && actor->node->kind == STREAM_FEEDBACKLOOP)
                    loops++;
            }
            phases += s->ninit + s->nsteady;
            if (items_in != in || items_out != out) {
                fprintf(stderr, "FAIL graph %d: %lld items in and %lld out per steady state, the generator says %lld and %lld\n",
                        i, (long long)items_in, (long long)items_out, (long long)in, (long long)out);
                ok = false;
            }
        }
        char *once = stream_text(root);
        StreamGraph *again = str_parse(once, strlen(once), "random", stderr);
        char *twice = again ? stream_text(again->root) : NULL;
        if (!twice || strcmp(once, twice) != 0) {
            fprintf(stderr, "FAIL graph %d: printing is not a fixpoint\n", i);
            ok = false;
        }
        if (!ok) {
            fputs(once, stderr);
            failures++;
        }
        free(once);
        free(twice);
        stream_graph_free(again);
        sched_free(s);
        stream_graph_free(r.g);
    }
    failures += check_the_checker();
    printf("%d random graphs: %d filters, %d feedback loops, %d phases in all; %d failures\n", GRAPHS, filters, loops,
           phases, failures);
    return failures ? 1 : 0;
}
