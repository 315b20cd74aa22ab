# Static schedules of stream graphs (scheduler/), on graphs built with the
# builder API or read from .str text (the shared .str graphs are in
# tests/streamit/graphs).
#   stream_api      builder API, flat view, exact rationals, JSON output and
#                   placement columns, overflow as an error, folded phases
#   stream_graphs   the StreamIt benchmark graphs of tests/streamit/graphs (FM
#                   radio, filter bank, bitonic sort, FFT and small ones):
#                   repetition vectors and init firings derived by hand in
#                   each file, printing a fixpoint, the token simulator
#   stream_random   hundreds of random graphs (fixed seed) through the
#                   scheduler and the independent token simulator
#   stream_errors   malformed and unschedulable graphs give one located error
#   fission         filters split into data-parallel copies (fission.c): hand-
#                   derived graphs, and random graphs whose items an item
#                   simulator shows unchanged by fission
#   machine         the machine model (topology.c, device_rates.c): binding
#                   plans derived by hand, the printed topology, this host's
#                   topology and binding, rates files and the calibration cache
tssa_unit_test(stream_api ${TSSA_TESTS_DIR}/scheduler/test_stream_api.c ${TSSA_TESTS_DIR}/test_util.c)
tssa_unit_test(stream_graphs ${TSSA_TESTS_DIR}/scheduler/test_stream_graphs.c ${TSSA_TESTS_DIR}/scheduler/token_sim.c ${TSSA_TESTS_DIR}/test_util.c)
tssa_unit_test(stream_random ${TSSA_TESTS_DIR}/scheduler/test_stream_random.c ${TSSA_TESTS_DIR}/scheduler/random_graph.c ${TSSA_TESTS_DIR}/scheduler/token_sim.c ${TSSA_TESTS_DIR}/test_util.c)
tssa_unit_test(stream_errors ${TSSA_TESTS_DIR}/scheduler/test_stream_errors.c ${TSSA_TESTS_DIR}/test_util.c)
tssa_unit_test(fission ${TSSA_TESTS_DIR}/scheduler/test_fission.c ${TSSA_TESTS_DIR}/scheduler/random_graph.c ${TSSA_TESTS_DIR}/scheduler/token_sim.c ${TSSA_TESTS_DIR}/test_util.c)
tssa_unit_test(machine ${TSSA_TESTS_DIR}/scheduler/test_machine.c ${TSSA_TESTS_DIR}/test_util.c)
