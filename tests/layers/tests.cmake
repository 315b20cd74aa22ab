# The layer order of layers.txt, checked by scripts/check-layers.sh:
#   layers          on this build's object files and the source tree
#   layers_fixture  on a small fixture tree, where each kind of arrow against
#                   the order (an upward call or include, a private header of
#                   another folder, a call between siblings) must be caught
add_test(NAME layers
         COMMAND ${PROJECT_SOURCE_DIR}/scripts/check-layers.sh --root ${PROJECT_SOURCE_DIR}
                 --objects ${CMAKE_BINARY_DIR})
add_test(NAME layers_fixture
         COMMAND ${TSSA_TESTS_DIR}/layers/test_check_layers.sh ${PROJECT_SOURCE_DIR}/scripts/check-layers.sh
                 ${CMAKE_C_COMPILER})
set_tests_properties(layers layers_fixture PROPERTIES LABELS layers)
