# Lowering (streamit/lower*.c) and the cpu backend (backends/cpu/).
#   lower_tool         prints a model's lowering statistics
#                      (tests/lower/lower_tool.c)
#   cpu.<group>.<case> every corpus case on the cpu backend, against PyTorch
#                      (tests/run_cpu_case.sh runs tssa-stream --backend=cpu)
#   lower.golden.*     --emit=stream of small programs, reviewed by hand
#   lower.roundtrip.*  every lowered corpus program's .str text reads back
#   lower.loopplan.*   the loop plan (parallel split-join, unrolled steps or
#                      one filter) of loops that must and must not be taken
#                      apart; their results are cpu.cases.* against PyTorch
#   lower.noderuns.*   IR node runs of a lowered program against the
#                      interpreter's, counts derived by hand below
add_executable(lower_tool ${TSSA_TESTS_DIR}/lower/lower_tool.c)
target_link_libraries(lower_tool PRIVATE tssa)

file(GLOB TSSA_LOWER_MODEL_CASES CONFIGURE_DEPENDS ${TSSA_TESTS_DIR}/models/*/args.txt)
file(GLOB TSSA_LOWER_OP_CASES CONFIGURE_DEPENDS ${TSSA_TESTS_DIR}/ops/*/args.txt)
file(GLOB TSSA_LOWER_LOOP_CASES CONFIGURE_DEPENDS ${TSSA_TESTS_DIR}/lower/cases/*/args.txt)
foreach(args ${TSSA_LOWER_MODEL_CASES} ${TSSA_LOWER_OP_CASES} ${TSSA_LOWER_LOOP_CASES})
  get_filename_component(case_dir ${args} DIRECTORY)
  get_filename_component(case_name ${case_dir} NAME)
  get_filename_component(group_dir ${case_dir} DIRECTORY)
  get_filename_component(group ${group_dir} NAME)
  add_test(NAME cpu.${group}.${case_name}
           COMMAND ${TSSA_TESTS_DIR}/run_cpu_case.sh $<TARGET_FILE:tssa-stream>
                   $<TARGET_FILE:npy_compare> ${case_dir})
  set_tests_properties(cpu.${group}.${case_name} PROPERTIES LABELS "corpus;cpu")
  if(NOT EXISTS ${case_dir}/expect_error.txt)
    add_test(NAME lower.roundtrip.${group}.${case_name}
             COMMAND ${TSSA_TESTS_DIR}/lower/check_roundtrip.sh $<TARGET_FILE:tssa-stream> ${case_dir})
    set_tests_properties(lower.roundtrip.${group}.${case_name} PROPERTIES LABELS lower)
  endif()
endforeach()

file(GLOB TSSA_LOWER_GOLDENS CONFIGURE_DEPENDS ${TSSA_TESTS_DIR}/lower/golden/*.expected)
foreach(expected ${TSSA_LOWER_GOLDENS})
  get_filename_component(name ${expected} NAME_WE)
  add_test(NAME lower.golden.${name}
           COMMAND ${TSSA_TESTS_DIR}/lower/check_golden.sh $<TARGET_FILE:tssa-stream> ${expected})
  set_tests_properties(lower.golden.${name} PROPERTIES LABELS lower)
endforeach()

foreach(args ${TSSA_LOWER_LOOP_CASES})
  get_filename_component(case_dir ${args} DIRECTORY)
  get_filename_component(case_name ${case_dir} NAME)
  add_test(NAME lower.loopplan.${case_name}
           COMMAND ${TSSA_TESTS_DIR}/lower/check_loop_plan.sh $<TARGET_FILE:lower_tool> ${case_dir})
  set_tests_properties(lower.loopplan.${case_name} PROPERTIES LABELS lower)
endforeach()

# tests/models/rnn_loop (x: 5 steps): the interpreter runs, outside
# constants, aten::size x3, prim::ListConstruct, aten::zeros, prim::Loop and
# prim::TupleConstruct once (7) and the 9 body nodes (select, t, mm, t, mm,
# add, add, tanh, immut::select_rev) 5 times (45): 52. The lowering runs the
# same nodes as often (the sizes and the list at compile time, the body once
# per Step, select_rev once per step in Assemble) but never the prim::Loop
# node itself, which is now the stream's structure: 51, and no node more
# often than the interpreter.
add_test(NAME lower.noderuns.rnn_loop
         COMMAND ${TSSA_TESTS_DIR}/lower/check_node_runs.sh $<TARGET_FILE:lower_tool>
                 ${TSSA_TESTS_DIR}/models/rnn_loop 1 51 52 0)
set_tests_properties(lower.noderuns.rnn_loop PROPERTIES LABELS lower)
