# The corpus conformance runner, tssa-conform (tests/conformance/conform.c;
# case_run.c holds each mode's runs and checks). It runs every case of the
# PyTorch-generated corpus in the requested modes in one program: each case
# in a process forked from it that calls tssa_stream_main (the driver as a
# library, tssa_driver) and judges the outputs, so no shell, no tssa-stream
# program start and no npy_compare per case, while each run still ends its
# own process (ASan's leak check, valgrind's, an exit status of its own).
#
# A ctest entry is a mode over a group of cases, the long groups (tests/ops)
# in shards so that `ctest -j` spreads them over the cores; ctest's COST
# (seconds under ASan on a loaded 2-core machine with an empty kernel cache,
# measured) starts the longest first in a fresh tree (ctest then keeps its
# own timings).
#   conform.ref.*        every corpus case (models, ops) and the long loops
#                        with expected/ on --backend=ref against PyTorch
#   conform.cpu.*        the same on --backend=cpu, and the lowering's loop
#                        cases (loop_cases: tests/streamit/cases) and
#                        TensorSSA's (tssa_cases: tests/functionalize/cases)
#   conform.fission2.*, conform.fission3.*   the programs and loop cases with
#                        --fission=2 and 3 (the op cases have no filter that
#                        fires more than once)
#   conform.tssa.*       every corpus case and TensorSSA case through
#                        --emit=tssa (no mutation left without a documented
#                        reason) and back on ref; readme_*: the FuncTs README
#                        examples (tests/functionalize/golden)
#   conform.roundtrip.*  every lowered corpus program's .str text reads back
#                        and schedules (cases that must fail aside)
#   conform.others.models  the programs, loop and TensorSSA cases on every
#                        registered backend without a mode of its own
#   conform.cuda.*, conform.devices3.*   the programs, loop cases and
#                        TensorSSA cases on --backend=cuda (a GPU, else the
#                        CPU shim), the programs with --devices 3 (a build
#                        with the cuda backend)
# One case by name:
#   build/tests/tssa-conform --mode=cpu --filter=ops.abs__float tests/ops
add_executable(tssa-conform ${TSSA_TESTS_DIR}/conformance/conform.c
                            ${TSSA_TESTS_DIR}/conformance/case_run.c
                            ${TSSA_TESTS_DIR}/tools/npy_check.c ${TSSA_TESTS_DIR}/test_util.c)
target_include_directories(tssa-conform PRIVATE ${PROJECT_SOURCE_DIR} ${TSSA_TESTS_DIR})
target_link_libraries(tssa-conform PRIVATE tssa_driver)
# The kernel cache beside tssa-stream, as tests/case_lib.sh puts it.
target_compile_definitions(tssa-conform PRIVATE
                           TSSA_CONFORM_CACHE_DIR="${CMAKE_BINARY_DIR}/kernel-cache")

# tssa_conform(NAME SHARDS COST LABELS RUNNER_ARGS...): the ctest entry
# conform.NAME running `tssa-conform RUNNER_ARGS...`, or with SHARDS > 1 the
# entries conform.NAME.1 .. conform.NAME.SHARDS, each with --shard=I/SHARDS
# and COST/SHARDS.
function(tssa_conform name shards cost labels)
  foreach(i RANGE 1 ${shards})
    if(shards GREATER 1)
      set(test conform.${name}.${i})
      set(shard_arg --shard=${i}/${shards})
      math(EXPR shard_cost "${cost} / ${shards}")
    else()
      set(test conform.${name})
      set(shard_arg)
      set(shard_cost ${cost})
    endif()
    add_test(NAME ${test} COMMAND tssa-conform ${shard_arg} ${ARGN})
    set_tests_properties(${test} PROPERTIES LABELS "conform;${labels}" SKIP_RETURN_CODE 77
                         TIMEOUT 3600 COST ${shard_cost})
  endforeach()
endfunction()

set(TSSA_MODELS ${TSSA_TESTS_DIR}/models)
set(TSSA_OPS ${TSSA_TESTS_DIR}/ops)
set(TSSA_LOOP_CASES ${TSSA_TESTS_DIR}/streamit/cases)
set(TSSA_TSSA_CASES ${TSSA_TESTS_DIR}/functionalize/cases)
# Loops too long for static rates (tests/streamit/long_loops, values
# derived by hand in its README.md): the cases with expected/ run on ref and
# cpu; tests/streamit/tests.cmake's lower.long_loops runs the others.
file(GLOB TSSA_LONG_LOOP_EXPECTED CONFIGURE_DEPENDS ${TSSA_TESTS_DIR}/streamit/long_loops/*/expected)
list(TRANSFORM TSSA_LONG_LOOP_EXPECTED REPLACE "/expected$" "")

tssa_conform(ref.models 1 26 corpus --mode=ref ${TSSA_MODELS})
tssa_conform(ref.ops 4 80 corpus --mode=ref ${TSSA_OPS})
tssa_conform(ref.long_loops 1 5 lower --mode=ref ${TSSA_LONG_LOOP_EXPECTED})

tssa_conform(cpu.models 2 40 "corpus;cpu" --mode=cpu ${TSSA_MODELS})
tssa_conform(cpu.ops 4 200 "corpus;cpu" --mode=cpu ${TSSA_OPS})
tssa_conform(cpu.loop_cases 1 10 "corpus;cpu" --mode=cpu ${TSSA_LOOP_CASES})
tssa_conform(cpu.tssa_cases 1 30 "corpus;cpu" --mode=cpu ${TSSA_TSSA_CASES})
tssa_conform(cpu.long_loops 1 5 lower --mode=cpu ${TSSA_LONG_LOOP_EXPECTED})

foreach(k 2 3)
  tssa_conform(fission${k}.models 1 30 "corpus;cpu;fission" --mode=fission${k} ${TSSA_MODELS})
  tssa_conform(fission${k}.loop_cases 1 10 "corpus;cpu;fission" --mode=fission${k} ${TSSA_LOOP_CASES})
endforeach()

tssa_conform(tssa.models 1 50 corpus --mode=tssa ${TSSA_MODELS})
tssa_conform(tssa.ops 4 240 corpus --mode=tssa ${TSSA_OPS})
tssa_conform(tssa.tssa_cases 1 10 corpus --mode=tssa ${TSSA_TSSA_CASES})
# The FuncTs README examples: one graph, several bindings each.
set(TSSA_FUNC_GOLDEN ${TSSA_TESTS_DIR}/functionalize/golden)
tssa_conform(tssa.readme_loop 1 1 corpus --mode=tssa --model=${TSSA_FUNC_GOLDEN}/readme_loop.ir
             ${TSSA_FUNC_GOLDEN}/loop_n3)
tssa_conform(tssa.readme_branch 1 1 corpus --mode=tssa --model=${TSSA_FUNC_GOLDEN}/readme_branch.ir
             ${TSSA_FUNC_GOLDEN}/branch_pos ${TSSA_FUNC_GOLDEN}/branch_neg)

tssa_conform(roundtrip.models 1 30 "corpus;lower" --mode=roundtrip ${TSSA_MODELS})
tssa_conform(roundtrip.ops 4 320 "corpus;lower" --mode=roundtrip ${TSSA_OPS})
tssa_conform(roundtrip.loop_cases 1 5 "corpus;lower" --mode=roundtrip ${TSSA_LOOP_CASES})

if(TSSA_CUDA)
  tssa_conform(cuda.models 2 40 "corpus;cuda" --mode=cuda ${TSSA_MODELS})
  tssa_conform(cuda.loop_cases 1 65 "corpus;cuda" --mode=cuda ${TSSA_LOOP_CASES})
  tssa_conform(cuda.tssa_cases 1 100 "corpus;cuda" --mode=cuda ${TSSA_TSSA_CASES})
  tssa_conform(devices3.models 1 140 "corpus;cuda" --mode=devices3 ${TSSA_MODELS})
endif()

# Every backend of the build's table (backends/registry.c) with no mode of
# its own runs the programs, loop cases and TensorSSA cases against PyTorch
# (--mode=others), so a new backend is tested with no line here or in the
# runner; skipped (77) while every backend has its own mode.
tssa_conform(others.models 1 1 corpus --mode=others ${TSSA_MODELS} ${TSSA_LOOP_CASES} ${TSSA_TSSA_CASES})
