# The util layer: checked arithmetic, xprintf, file_read_all's bounds
# (expected values derived by hand in the test).
tssa_unit_test(util_lib ${TSSA_TESTS_DIR}/util/test_util_lib.c ${TSSA_TESTS_DIR}/test_util.c)
# The --trace recorder's bounds (util/trace_log.c): fed more runs or bytes
# than its limits it keeps a bounded size and reports what it dropped.
tssa_unit_test(util_trace_log ${TSSA_TESTS_DIR}/util/test_trace_log.c ${TSSA_TESTS_DIR}/test_util.c)
