/* token_sim.h — an independent check of a schedule (tests only).
 *
 * token_sim_check verifies a Schedule against its stream tree without
 * trusting the scheduler's own simulation:
 *   structure  the flat view's channels are exactly the connections the
 *              tree implies (derived here from the tree, not from
 *              stream_flatten), with the rates read from the nodes;
 *   balance    every channel moves as many items in as out per steady
 *              state, every filter fires, and the repetitions have gcd 1
 *              (so, the graph being connected, they are the least vector);
 *   execution  firing the init phases and then the steady phases, one
 *              batch at a time, never reads an item that is not there
 *              (a batch of k firings needs (k - 1) * pop + peek items),
 *              leaves every peeking filter peek - pop items after the init
 *              phase, returns every channel to its post-init fill after the
 *              steady phase, fires every actor exactly its init firings and
 *              repetitions, and sees the buffer sizes the schedule reports.
 * Failures are written to err; returns true when everything holds.
 */
#ifndef TSSA_TEST_TOKEN_SIM_H
#define TSSA_TEST_TOKEN_SIM_H

#include <stdbool.h>
#include <stdio.h>

#include "tssa/schedule.h"

bool token_sim_check(const Schedule *s, FILE *err);

#endif
