# Stream graphs (streamit/): the .str text and the lowering of TorchScript
# programs to stream graphs. Their results on the cpu backend are the
# cpu.* tests (tests/backends/tests.cmake).
#   stream_golden      --emit=stream/schedule/dot text of .str graphs against
#                      hand-written goldens (golden/*.schedule, *.dot, *.stream)
#   lower_skip         values carried past many layers skip them: the stream
#                      text and cpu-versus-interpreter results (test_lower_skip.c)
#   lower_tool         prints a model's lowering statistics (lower_tool.c)
#   lower.golden.*     --emit=stream of small programs, reviewed by hand
#                      (golden/*.expected)
#   lower.roundtrip.*  every lowered corpus program's .str text reads back
#   lower.loopplan.*   the loop plan (parallel split-join, unrolled steps or
#                      one filter) of loops that must and must not be taken
#                      apart (cases/); their results are cpu.cases.* against
#                      PyTorch
#   lower.noderuns.*   IR node runs of a lowered program against the
#                      interpreter's, counts derived by hand below
tssa_unit_test(stream_golden ${TSSA_TESTS_DIR}/streamit/test_stream_golden.c ${TSSA_TESTS_DIR}/test_util.c)
tssa_unit_test(lower_skip ${TSSA_TESTS_DIR}/streamit/test_lower_skip.c ${TSSA_TESTS_DIR}/test_util.c)

add_executable(lower_tool ${TSSA_TESTS_DIR}/streamit/lower_tool.c)
target_link_libraries(lower_tool PRIVATE tssa)

tssa_case_dirs(TSSA_LOWER_LOOP_CASES ${TSSA_TESTS_DIR}/streamit/cases)
foreach(case_dir ${TSSA_CORPUS_CASES} ${TSSA_LOWER_LOOP_CASES})
  if(NOT EXISTS ${case_dir}/expect_error.txt)
    tssa_case_id(${case_dir} id)
    add_test(NAME lower.roundtrip.${id}
             COMMAND ${TSSA_TESTS_DIR}/streamit/check_roundtrip.sh $<TARGET_FILE:tssa-stream> ${case_dir})
    set_tests_properties(lower.roundtrip.${id} PROPERTIES LABELS lower)
  endif()
endforeach()

file(GLOB TSSA_LOWER_GOLDENS CONFIGURE_DEPENDS ${TSSA_TESTS_DIR}/streamit/golden/*.expected)
foreach(expected ${TSSA_LOWER_GOLDENS})
  get_filename_component(name ${expected} NAME_WE)
  add_test(NAME lower.golden.${name}
           COMMAND ${TSSA_TESTS_DIR}/streamit/check_golden.sh $<TARGET_FILE:tssa-stream> ${expected})
  set_tests_properties(lower.golden.${name} PROPERTIES LABELS lower)
endforeach()

foreach(case_dir ${TSSA_LOWER_LOOP_CASES})
  get_filename_component(case_name ${case_dir} NAME)
  add_test(NAME lower.loopplan.${case_name}
           COMMAND ${TSSA_TESTS_DIR}/streamit/check_loop_plan.sh $<TARGET_FILE:lower_tool> ${case_dir})
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
         COMMAND ${TSSA_TESTS_DIR}/streamit/check_node_runs.sh $<TARGET_FILE:lower_tool>
                 ${TSSA_TESTS_DIR}/models/rnn_loop 1 51 52 0)
set_tests_properties(lower.noderuns.rnn_loop PROPERTIES LABELS lower)
