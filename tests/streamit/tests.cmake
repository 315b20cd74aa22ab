# Stream graphs (streamit/): the .str text and the lowering of TorchScript
# programs to stream graphs. Their results on the cpu backend are the
# conform.cpu.* tests, and the round trip of every lowered corpus program is
# conform.roundtrip.* (tests/conformance/tests.cmake).
#   stream_golden      --emit=stream/schedule/dot text of .str graphs against
#                      hand-written goldens (golden/*.schedule, *.dot, *.stream)
#   lower_skip         values carried past many layers skip them: the stream
#                      text and cpu-versus-interpreter results (test_lower_skip.c)
#   lower_tool         prints a model's lowering statistics (lower_tool.c)
#   lower.golden.*     --emit=stream (and --emit=dot: *.dot.expected) of
#                      small programs, reviewed by hand (golden/*.expected)
#   lower.loopplan.*   the loop plan (a data-parallel body filter, a feedback
#                      loop, or one filter) of loops that must and must not
#                      be taken apart (cases/); their results are
#                      conform.cpu.loop_cases against PyTorch
#   lower.noderuns.*   IR node runs of a lowered program against the
#                      interpreter's, counts derived by hand below
#   lower.nested.*     loops decided at run time (while, break, trip counts
#                      from tensor data) are hierarchical filters whose body
#                      is a stream, never one opaque filter (below)
tssa_unit_test(stream_golden ${TSSA_TESTS_DIR}/streamit/test_stream_golden.c ${TSSA_TESTS_DIR}/test_util.c)
tssa_unit_test(lower_skip ${TSSA_TESTS_DIR}/streamit/test_lower_skip.c ${TSSA_TESTS_DIR}/test_util.c)

add_executable(lower_tool ${TSSA_TESTS_DIR}/streamit/lower_tool.c)
target_link_libraries(lower_tool PRIVATE tssa)

tssa_case_dirs(TSSA_LOWER_LOOP_CASES ${TSSA_TESTS_DIR}/streamit/cases)

file(GLOB TSSA_LOWER_GOLDENS CONFIGURE_DEPENDS ${TSSA_TESTS_DIR}/streamit/golden/*.expected)
foreach(expected ${TSSA_LOWER_GOLDENS})
  get_filename_component(name ${expected} NAME_WLE)   # rnn_loop, rnn_loop.dot
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

# Loops of scalars over compile-time values and bound tensors' sizes run
# at compile time (check_folded_loops.sh): the loop case scalar_list_build
# (three nested loops building a list of float lists, as torchvision's SSD
# DBoxGenerator does); an RNN loop over tensors is never folded.
add_test(NAME lower.folded.scalar_list_build
         COMMAND ${TSSA_TESTS_DIR}/streamit/check_folded_loops.sh $<TARGET_FILE:lower_tool>
                 ${TSSA_TESTS_DIR}/streamit/cases/scalar_list_build 1)
add_test(NAME lower.folded.rnn_loop_untouched
         COMMAND ${TSSA_TESTS_DIR}/streamit/check_folded_loops.sh $<TARGET_FILE:lower_tool>
                 ${TSSA_TESTS_DIR}/models/rnn_loop 0)
set_tests_properties(lower.folded.scalar_list_build lower.folded.rnn_loop_untouched
                     PROPERTIES LABELS lower)

# tests/models/rnn_loop (x: 5 steps): the interpreter runs, outside
# constants, aten::size x3, prim::device, prim::ListConstruct, aten::zeros,
# prim::Loop and prim::TupleConstruct once (8) and the 9 body nodes (select,
# t, mm, t, mm, add, add, tanh, immut::select_rev) 5 times (45): 53. The
# lowering (one feedback loop) runs the sizes, the device and the list at
# compile time (5), zeros and
# the tuple once (2), never the prim::Loop node itself (it is the stream's
# structure); of the body, both aten::t(w) once (hoisted: 2), select in the
# Unstack, mm(x[t], w_ih^T) in Pre, mm(h, w_hh^T), both adds and tanh in the
# Body and select_rev in the Stack 5 times each (35): 44, and no node more
# often than the interpreter.
add_test(NAME lower.noderuns.rnn_loop
         COMMAND ${TSSA_TESTS_DIR}/streamit/check_node_runs.sh $<TARGET_FILE:lower_tool>
                 ${TSSA_TESTS_DIR}/models/rnn_loop 1 44 53 0)
set_tests_properties(lower.noderuns.rnn_loop PROPERTIES LABELS lower)

# lower.tripcount.*: model cases with an args10.txt (long loops: 2,000 RNN
# steps, 10,000 batch items, 100,000 scalar steps, a nested loop) lower to
# the same stream graph, numbers aside, at their full trip count and at 10.
file(GLOB TSSA_TRIP_CASES CONFIGURE_DEPENDS ${TSSA_TESTS_DIR}/models/*/args10.txt)
foreach(args10 ${TSSA_TRIP_CASES})
  get_filename_component(case_dir ${args10} DIRECTORY)
  get_filename_component(case_name ${case_dir} NAME)
  add_test(NAME lower.tripcount.${case_name}
           COMMAND ${TSSA_TESTS_DIR}/streamit/check_trip_invariance.sh $<TARGET_FILE:tssa-stream> ${case_dir})
  set_tests_properties(lower.tripcount.${case_name} PROPERTIES LABELS lower)
endforeach()

# Loops too long for static rates, or without end (tests/streamit/long_loops,
# expected values derived by hand in its README.md): the cases with expected/
# run on the ref and cpu backends (conform.ref.long_loops and
# conform.cpu.long_loops); lower.long_loops checks that a 10^12-trip
# `for` is emitted (it aborted before) and that `while True:` runs until
# interrupted with flat memory (tests/streamit/test_long_loops.sh).
add_test(NAME lower.long_loops
         COMMAND ${TSSA_TESTS_DIR}/streamit/test_long_loops.sh $<TARGET_FILE:tssa-stream>
                 ${TSSA_TESTS_DIR}/streamit/long_loops)
set_tests_properties(lower.long_loops PROPERTIES LABELS lower)

# lower.printorder: a warning in a branch of a loop and a print keep the
# program in pieces (no "whole program is one filter" line in
# --emit=stream) and the cpu backend prints what the ref interpreter
# prints, in order (cases/warn_in_branch; its outputs are checked against
# PyTorch with the other loop cases).
# lower.printorder.top_level_prints: prints and a warning in several
# top-level statements (one of constants only) and one in a loop are
# ordered host actions, chained by an ordering token; the program is taken
# apart, and the messages come as on the ref interpreter, in order.
foreach(case_name warn_in_branch top_level_prints)
  add_test(NAME lower.printorder.${case_name}
           COMMAND ${TSSA_TESTS_DIR}/streamit/check_print_order.sh $<TARGET_FILE:tssa-stream>
                   ${TSSA_TESTS_DIR}/streamit/cases/${case_name})
  set_tests_properties(lower.printorder.${case_name} PROPERTIES LABELS lower)
endforeach()

# lower.module_state.<case>: a program that assigns module attributes in
# forward (prim::SetAttr, in branches and loops), or writes tied tensor
# attributes in place (module_state_tied_writes, attribute_containers: one
# tensor under several paths, written in loops, a branch and through views
# under one path and read under another), has no SetAttr left after
# TensorSSA and no opaque filter in --emit=stream (functionalize/
# module_state.c), and two input sets run with --inputs both give
# PyTorch's outputs: every run starts from the weights file's values
# (tests/streamit/check_module_state.sh; the outputs on every backend are
# the corpus runs').
foreach(case module_state_anchor_cache module_state_running_stats module_state_submodule module_state_aliasing
             module_state_dict_cache fairseq_sinusoidal_positions module_state_tied_writes attribute_containers)
  add_test(NAME lower.module_state.${case}
           COMMAND ${TSSA_TESTS_DIR}/streamit/check_module_state.sh $<TARGET_FILE:tssa-stream>
                   $<TARGET_FILE:npy_compare> ${TSSA_TESTS_DIR}/models/${case})
  set_tests_properties(lower.module_state.${case} PROPERTIES LABELS lower)
endforeach()

# lower.nested.*: corpus programs whose loops are decided at run time (a
# while loop on a residual, greedy decoding with `break`, trip counts from
# torch.nonzero's size and from tensor data, a while loop on a counter and a
# sum, a while loop with break holding a while and a for loop: 3
# hierarchical filters, two inside the first's body) lower with each such loop a hierarchical filter (its body's stream
# inside, at least 2 work filters) and no opaque loop or program filter
# (check_nested_loops.sh). The number is the case's hierarchical filters;
# while_fixed_point must also run its body without reference-kernel
# fallbacks (its residual max(|x' - x|) fused with the update: 15 per run,
# one per iteration, before max(x) over all elements was a kernel rule).
# Their results against PyTorch are the conform.* tests of tests/models.
foreach(case_and_count while_fixed_point:1:0 greedy_decode_break:1 runtime_trip_loop:2 while_loop:1
                       nested_while:3)
  string(REPLACE ":" ";" parts ${case_and_count})
  list(GET parts 0 case_name)
  list(GET parts 1 count)
  list(LENGTH parts nparts)
  set(max_fallbacks "")
  if(nparts GREATER 2)
    list(GET parts 2 max_fallbacks)
  endif()
  add_test(NAME lower.nested.${case_name}
           COMMAND ${TSSA_TESTS_DIR}/streamit/check_nested_loops.sh $<TARGET_FILE:tssa-stream>
                   ${TSSA_TESTS_DIR}/models/${case_name} ${count} ${max_fallbacks})
  set_tests_properties(lower.nested.${case_name} PROPERTIES LABELS lower)
endforeach()

# lower.list_elements.<case>: in-place writes through tensors kept in lists
# (functionalize/list_elements.c) leave no write imperative after TensorSSA
# and no opaque filter in --emit=stream (tests/streamit/check_list_elements.sh);
# mmdet_fpn_inplace's and mmdet_pafpn_inplace's top-down loops run
# len(laterals) - 1 times, a trip count the run computes (issue 30's
# run-time trip counts), so that loop alone may stay one filter for that
# reason. list_element_hazards' writes whose tensor another name observes
# (the same tensor in two slots, another name read after the write, a list
# copied by slicing, an index moved by an append) give every name and slot
# the new version (functionalize/object_names.c), so none stays imperative;
# so do list_element_merge_aliases' (a loop's result that is the last
# tensor it appended, the value a loop starts from that its first
# iteration appended: loops with a known trip count are followed
# iteration by iteration), and list_element_carried_names' (an element
# still read under a loop-carried name from the previous iteration, which
# is the tensor on every iteration but the first, and an If result that is
# the element on every iteration); and list_alias_swap_two_lists' and
# list_alias_nested_loops' (elements swapped between slots, a list built
# from another's elements, one tensor in two lists, writes in nested
# loops through two lists, names that are the written element on the
# first iteration only or on every later one), list_element_shared_out's
# and list_alias_runtime_pieces' (an element appended to a second list;
# pieces of split, unbind and chunk of an element taken at run-time
# indices, normalized and bounds-checked as the list's __getitem__ does),
# and list_alias_branches_copies' (a list concatenation and an unpacking
# sharing the elements, writes in branches of an unrolled loop decided by
# its count, a run-time index into slots all holding one tensor), and
# list_alias_append_last's (one tensor appended to two lists each
# iteration, written through the last slot of each: set at -1).
# The outputs on every backend are the corpus runs'.
add_test(NAME lower.list_elements.list_element_writes
         COMMAND ${TSSA_TESTS_DIR}/streamit/check_list_elements.sh $<TARGET_FILE:tssa-stream>
                 ${TSSA_TESTS_DIR}/models/list_element_writes)
add_test(NAME lower.list_elements.mmdet_fpn_inplace
         COMMAND ${TSSA_TESTS_DIR}/streamit/check_list_elements.sh $<TARGET_FILE:tssa-stream>
                 ${TSSA_TESTS_DIR}/models/mmdet_fpn_inplace "the trip count is computed at run time")
foreach(case list_element_hazards list_element_merge_aliases list_element_carried_names
             list_alias_swap_two_lists list_alias_nested_loops list_element_shared_out
             list_alias_runtime_pieces list_alias_branches_copies list_alias_append_last)
  add_test(NAME lower.list_elements.${case}
           COMMAND ${TSSA_TESTS_DIR}/streamit/check_list_elements.sh $<TARGET_FILE:tssa-stream>
                   ${TSSA_TESTS_DIR}/models/${case})
endforeach()
add_test(NAME lower.list_elements.mmdet_pafpn_inplace
         COMMAND ${TSSA_TESTS_DIR}/streamit/check_list_elements.sh $<TARGET_FILE:tssa-stream>
                 ${TSSA_TESTS_DIR}/models/mmdet_pafpn_inplace "the trip count is computed at run time")
set_tests_properties(lower.list_elements.list_element_writes lower.list_elements.mmdet_fpn_inplace
                     lower.list_elements.mmdet_pafpn_inplace
                     lower.list_elements.list_element_hazards
                     lower.list_elements.list_element_merge_aliases
                     lower.list_elements.list_element_carried_names
                     lower.list_elements.list_alias_swap_two_lists
                     lower.list_elements.list_alias_nested_loops
                     lower.list_elements.list_element_shared_out
                     lower.list_elements.list_alias_runtime_pieces
                     lower.list_elements.list_alias_branches_copies
                     lower.list_elements.list_alias_append_last PROPERTIES LABELS lower)

# lower.taken_apart: every corpus program (tests/models) lowers to a stream
# graph with no opaque program, loop or loop-body filter, but those listed
# in taken_apart_kept.tsv with the write TensorSSA keeps in place on purpose
# (each line's reason must still be the one given; a listed case taken apart
# fails, so the list only shrinks).
add_test(NAME lower.taken_apart
         COMMAND ${TSSA_TESTS_DIR}/streamit/check_taken_apart.sh $<TARGET_FILE:tssa-stream>
                 ${TSSA_TESTS_DIR}/models ${TSSA_TESTS_DIR}/streamit/taken_apart_kept.tsv)
set_tests_properties(lower.taken_apart PROPERTIES LABELS lower)
