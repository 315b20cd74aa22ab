# The command line of tssa-stream: statuses, messages, option order, -o.
add_test(NAME driver_cli COMMAND ${TSSA_TESTS_DIR}/driver/test_cli.sh $<TARGET_FILE:tssa-stream>)
