# The scripts a user runs first: scripts/demo.sh, end to end (the export,
# the stream graph, the schedule over 2 ranks, an mpirun -np 2 run with a
# trace, the check against PyTorch), and the demo's committed case
# (examples/stream_demo/) through the conformance runner's modes.
# Label release: the demo runs mpirun and Python (CI's release pass).
add_test(NAME demo
         COMMAND ${TSSA_TESTS_DIR}/scripts/test_demo.sh $<TARGET_FILE:tssa-stream>
                 $<TARGET_FILE:npy_compare> ${CMAKE_CURRENT_BINARY_DIR}/demo)
set_tests_properties(demo PROPERTIES LABELS "mpi;release" SKIP_RETURN_CODE 77 TIMEOUT 300)
tssa_conform(examples 1 2 "corpus;cpu" --mode=ref,cpu,tssa,roundtrip,fission2
             ${PROJECT_SOURCE_DIR}/examples)
