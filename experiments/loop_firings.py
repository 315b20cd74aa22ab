#!/usr/bin/python3
"""loop_firings.py — actor firings one run of a program dispatches, from its
static schedule (`tssa-stream --emit=schedule --json`), for the model
corpus's programs with loops.

    experiments/loop_firings.py TSSA_STREAM [CASE ...]   (default: the loop cases)

Per case it prints the stream graph's actors, the firings of one steady
state (the sum of the repetitions, the external input and output left
out), the work-filter firings among them (the filters that run IR), and the
dispatches: the (actor, firings) runs the executor is handed once the
schedule's repeats are expanded (each is one call that fires the actor that
many times in a row). Run it with two binaries to compare lowerings (the
numbers in experiments/README.md).
"""
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
MODELS = os.path.join(os.path.dirname(HERE), "tests", "models")
LOOP_CASES = ["batch_loop", "attention_heads", "rnn_loop", "lstm_loop", "gru_loop", "nasrnn",
              "masked_fill_loop", "recurrence_rows", "seq2seq_greedy", "kv_cache_decode",
              "nested_loop_if", "size_driven_loop", "while_loop", "fastrnns_lstm",
              "mamba_selective_scan", "yolov5_detect", "crf_viterbi", "ctc_greedy_decoder",
              "long_rnn", "long_batch_map", "scalar_steps", "nested_heads"]


def count_runs(entries):
    """Number of dispatches without materializing huge expansions."""
    # Each entry's weight: 1 for an actor run; a repeat's weight is
    # repeat * (sum of the weights of the `span` entries before it).
    weights = []
    for e in entries:
        if "repeat" in e:
            weights.append(e["repeat"] * sum(weights[-e["span"]:]))
        else:
            weights.append(1)
    return sum(weights)


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    tool = os.path.abspath(sys.argv[1])
    cases = sys.argv[2:] or LOOP_CASES
    print(f"{'case':22} {'actors':>7} {'firings':>9} {'work firings':>12} {'dispatches':>10}")
    for case in cases:
        d = os.path.join(MODELS, case)
        if not os.path.isdir(d):
            continue
        with open(os.path.join(d, "args.txt")) as f:
            args = f.read().split()
        r = subprocess.run([tool, "--emit=schedule", "--json", "model.ir"] + args, cwd=d,
                           capture_output=True, text=True)
        if r.returncode != 0:
            print(f"{case:22} (no schedule: {r.stderr.strip().splitlines()[-1] if r.stderr else ''})")
            continue
        s = json.loads(r.stdout)
        inner = [a for a in s["actors"] if a["kind"] not in ("input", "output")]
        firings = sum(a["repetitions"] for a in inner)
        work = sum(a["repetitions"] for a in inner if a["kind"] == "filter")
        print(f"{case:22} {len(inner):>7} {firings:>9} {work:>12} {count_runs(s['steady']):>10}")


if __name__ == "__main__":
    main()
