# The util layer: checked arithmetic, xprintf, file_read_all's bounds
# (expected values derived by hand in the test).
tssa_unit_test(util_lib ${TSSA_TESTS_DIR}/util/test_util_lib.c ${TSSA_TESTS_DIR}/test_util.c)
