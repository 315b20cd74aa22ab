# Tensor files: the .npy and safetensors readers and writers, and the
# npy_compare tool the corpus runner uses to check outputs. Test files and
# their expected contents come from numpy/torch (tests/io/gen_files.py).

add_executable(npy_compare ${TSSA_TESTS_DIR}/tools/npy_compare.c ${TSSA_TESTS_DIR}/test_util.c)
target_include_directories(npy_compare PRIVATE ${TSSA_TESTS_DIR})
target_link_libraries(npy_compare PRIVATE tssa)

tssa_unit_test(io_npy ${TSSA_TESTS_DIR}/io/test_npy.c ${TSSA_TESTS_DIR}/io/io_test_util.c
               ${TSSA_TESTS_DIR}/test_util.c)
tssa_unit_test(io_safetensors ${TSSA_TESTS_DIR}/io/test_safetensors.c
               ${TSSA_TESTS_DIR}/io/io_test_util.c
               ${TSSA_TESTS_DIR}/test_util.c)

add_test(NAME io_npy_compare
         COMMAND sh ${TSSA_TESTS_DIR}/io/npy_compare_test.sh $<TARGET_FILE:npy_compare>
         WORKING_DIRECTORY ${TSSA_TESTS_DIR})
