# TensorSSA (functionalize/): unit tests, golden files, and the corpus run
# through --emit=tssa and back on the ref backend.
add_executable(tssa_emit_tool ${TSSA_TESTS_DIR}/tssa/tssa_emit_tool.c)
target_link_libraries(tssa_emit_tool PRIVATE tssa)
