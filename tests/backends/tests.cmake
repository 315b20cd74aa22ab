# The backends (backends/ref, backends/cpu).
#   ref_interp         the reference interpreter: aliasing of views and in-place
#                      ops, loops, If, lists, scalar arithmetic, located runtime
#                      errors (tests/backends/ref/test_interp.c)
#   (the corpus on ref, cpu, with --fission=2 and 3, and on cuda: the
#   conformance runner's conform.ref.*, conform.cpu.*, conform.fission*.*,
#   conform.cuda.*, conform.devices3.* in tests/conformance/tests.cmake)
#   mpi.<group>.<case> every program (tests/models) under mpirun -np 1, 2, 3
#                      and 4: the same bytes as the run without mpirun, and
#                      that run against PyTorch (tests/backends/mpi/
#                      run_mpi_case.sh says which placements)
#   trace_threads      --trace's per-OpenMP-thread tracks
#                      (tests/backends/cpu/test_trace_threads.sh)
#   loop_state_memory  a feedback loop's Stack keeps only the last step's
#                      state: the pool's peak stays one step's worth
#                      (tests/backends/cpu/test_loop_state_memory.sh)
#   placement_golden   the partitioner's placements at 2 and 4 ranks (fixed
#                      rates; tests/backends/mpi/check_placement.sh)
#   mpi_products       a program of large products: the same bytes for any
#                      thread count and -np (test_mpi_products.sh)
#   mpi_failures       bad input and runtime failures under mpirun: one
#                      message, the right status, no hang, no outputs
#                      (tests/backends/mpi/test_mpi_failures.sh)
#   mpi_rank_faults    a failure on rank 1 alone (its --weights, --place,
#                      arguments, compiler, device): the job ends within
#                      seconds with rank 1's message, no outputs
#                      (tests/backends/mpi/test_mpi_rank_faults.sh)
tssa_unit_test(ref_interp ${TSSA_TESTS_DIR}/backends/ref/test_interp.c ${TSSA_TESTS_DIR}/test_util.c)

tssa_case_dirs(TSSA_MODEL_CASES ${TSSA_TESTS_DIR}/models)

# Under mpirun (skipped, 77, without mpirun or an MPI build). Label
# release: CI runs them on the release build only (ASan's start-up in 4
# ranks per run costs ~5 s a program, and the programs' own code is checked
# by the corpus's ASan runs: scripts/test.sh --ci-release). What only
# mpirun runs (the channels between ranks, backends/mpi, and the messages'
# encoding) is checked under ASan by a sample of programs whose placements
# cut a feedback loop, a split-join and a data-parallel loop across ranks:
# those run in the ASan pass instead (no release label). COST: the longest
# start first in a fresh tree.
set(TSSA_MPI_SANITIZED_MODELS rnn_loop attention_heads long_batch_map)
foreach(case_dir ${TSSA_MODEL_CASES})
  tssa_case_id(${case_dir} id)
  get_filename_component(name ${case_dir} NAME)
  set(labels "corpus;mpi;release")
  if(name IN_LIST TSSA_MPI_SANITIZED_MODELS)
    set(labels "corpus;mpi")
  endif()
  add_test(NAME mpi.${id}
           COMMAND ${TSSA_TESTS_DIR}/backends/mpi/run_mpi_case.sh $<TARGET_FILE:tssa-stream>
                   $<TARGET_FILE:npy_compare> ${case_dir})
  set_tests_properties(mpi.${id} PROPERTIES LABELS "${labels}" SKIP_RETURN_CODE 77
                       TIMEOUT 600 COST 4)
endforeach()
add_test(NAME mpi_failures
         COMMAND ${TSSA_TESTS_DIR}/backends/mpi/test_mpi_failures.sh $<TARGET_FILE:tssa-stream>
                 ${TSSA_TESTS_DIR}/models)
set_tests_properties(mpi_failures PROPERTIES LABELS "mpi;release" SKIP_RETURN_CODE 77 TIMEOUT 600 COST 20)
add_test(NAME mpi_rank_faults
         COMMAND ${TSSA_TESTS_DIR}/backends/mpi/test_mpi_rank_faults.sh $<TARGET_FILE:tssa-stream>
                 ${TSSA_TESTS_DIR}/models)
set_tests_properties(mpi_rank_faults PROPERTIES LABELS "mpi;release" SKIP_RETURN_CODE 77 TIMEOUT 600 COST 20)
# --simulate-hosts (every rank its own host, TCP over loopback, its own
# share of the cores): the same bytes as one rank for np 1..4 on a few
# programs (mpi_simulate_hosts.CASE), each rank its own host in
# --emit=topology with tcp and no vader, and no idle rank's cores lent.
foreach(name rnn_loop mask_crop attention_heads long_batch_map yolo_decode)
  add_test(NAME mpi_simulate_hosts.${name}
           COMMAND ${TSSA_TESTS_DIR}/backends/mpi/test_simulate_hosts.sh $<TARGET_FILE:tssa-stream>
                   ${TSSA_TESTS_DIR}/models case ${TSSA_TESTS_DIR}/models/${name})
  set_tests_properties(mpi_simulate_hosts.${name} PROPERTIES LABELS "mpi;release" SKIP_RETURN_CODE 77
                       TIMEOUT 600 COST 4)
endforeach()
foreach(check topology binding)
  add_test(NAME mpi_simulate_hosts_${check}
           COMMAND ${TSSA_TESTS_DIR}/backends/mpi/test_simulate_hosts.sh $<TARGET_FILE:tssa-stream>
                   ${TSSA_TESTS_DIR}/models ${check})
  set_tests_properties(mpi_simulate_hosts_${check} PROPERTIES LABELS "mpi;release" SKIP_RETURN_CODE 77
                       TIMEOUT 300)
endforeach()

# The partitioner's placements for a few programs at 2 and 4 ranks, with
# fixed rates (no mpirun needed): golden tables and the decisive facts.
add_test(NAME placement_golden
         COMMAND ${TSSA_TESTS_DIR}/backends/mpi/check_placement.sh $<TARGET_FILE:tssa-stream> ${TSSA_TESTS_DIR})
set_tests_properties(placement_golden PROPERTIES LABELS "mpi;scheduler")
# --trace: each OpenMP thread's share of a parallel kernel on its own track.
add_test(NAME trace_threads
         COMMAND ${TSSA_TESTS_DIR}/backends/cpu/test_trace_threads.sh $<TARGET_FILE:tssa-stream>)
set_tests_properties(trace_threads PROPERTIES LABELS cpu SKIP_RETURN_CODE 77)
# A feedback loop's state goes back to the pool step by step.
add_test(NAME loop_state_memory
         COMMAND ${TSSA_TESTS_DIR}/backends/cpu/test_loop_state_memory.sh $<TARGET_FILE:tssa-stream>
                 ${TSSA_TESTS_DIR}/models)
set_tests_properties(loop_state_memory PROPERTIES LABELS cpu)
# Products under mpirun: the same bits for any thread count and -np.
add_test(NAME mpi_products
         COMMAND ${TSSA_TESTS_DIR}/backends/mpi/test_mpi_products.sh $<TARGET_FILE:tssa-stream>
                 ${TSSA_TESTS_DIR}/backends/mpi)
set_tests_properties(mpi_products PROPERTIES LABELS "mpi;release" SKIP_RETURN_CODE 77 TIMEOUT 900 COST 20)

# The cuda backend (a build with the CUDA toolkit; skipped without it):
#   (the corpus on --backend=cuda and with --devices 3: conform.cuda.* and
#   conform.devices3.*, tests/conformance/tests.cmake)
#   cuda_driver          the GPU device itself: NVRTC, launches, cuBLAS
#                        against a triple loop (skipped, 77, without a GPU)
#   cuda_no_device       --backend=cuda without a GPU: exit 2, one message
#   cuda_device_failure  a failing launch: exit 1, the call, kernel, node and line
#   cuda_gather          aten::embedding on the device, and an index outside
#                        its table: exit 1, PyTorch's message, no output
#   cuda_placement       --emit=placement of two programs against goldens,
#                        and runs that execute it (no fallback; one counted)
#   cuda_streams         a stream per device through the shim's lazy streams:
#                        right outputs and copy counts by kind (peer, staged,
#                        none needed) at --devices 2 and 3 on 1 to 3 GPUs;
#                        the shim ignoring waits must give wrong outputs
#   cuda_gpu_choice      each rank takes the GPU on its NUMA node (a made-up
#                        sysfs and bus ids; 1 and 2 ranks)
#   cuda_device_prediction  --emit=schedule's predicted speedup on N GPUs,
#                        and "logical devices sharing" fewer GPUs
#   cuda_streams_shim    a device's streams and events (ordered: right; without
#                        the wait: the stale value) on the shim; the same
#                        binary on a GPU (scripts/gpu-check.sh) also checks
#                        that two streams overlap
#   cuda_block_sync_shim the shim's cooperative launches: __syncthreads is a
#                        real barrier (the same kernel without it must come
#                        out wrong), shared memory, warp shuffles
#   cuda_graph_shim      a device's graphs on the shim: a capture runs nothing,
#                        a replay runs two launches and a product, reads its
#                        buffers as they are then (inputs rebound), a download
#                        while capturing is refused naming the call; the same
#                        binary (cuda_graph_check) runs on a GPU
#   cuda_graphs          --repeat's timed runs replayed from a graph: rnn_loop
#                        and lstm_loop replayed and checked, fewer launches
#                        from the host than --no-graphs; an `if` on a
#                        tensor's value, .item() and a data-dependent loop
#                        fall back to plain runs with the reason; outputs
#                        against PyTorch's and by-hand values
if(TSSA_CUDA)
  tssa_unit_test(cuda_driver ${TSSA_TESTS_DIR}/backends/cuda/test_cuda_driver.c)
  set_tests_properties(cuda_driver PROPERTIES LABELS cuda)
  add_test(NAME cuda_no_device
           COMMAND ${TSSA_TESTS_DIR}/backends/cuda/test_no_device.sh $<TARGET_FILE:tssa-stream>
                   ${TSSA_TESTS_DIR}/models/yolo_decode)
  set_tests_properties(cuda_no_device PROPERTIES LABELS cuda SKIP_RETURN_CODE 77)
  add_test(NAME cuda_device_failure
           COMMAND ${TSSA_TESTS_DIR}/backends/cuda/test_device_failure.sh $<TARGET_FILE:tssa-stream>
                   ${TSSA_TESTS_DIR}/models/yolo_decode)
  set_tests_properties(cuda_device_failure PROPERTIES LABELS cuda)
  add_test(NAME cuda_gather
           COMMAND ${TSSA_TESTS_DIR}/backends/cuda/test_gather.sh $<TARGET_FILE:tssa-stream>
                   $<TARGET_FILE:npy_compare>)
  set_tests_properties(cuda_gather PROPERTIES LABELS cuda)
  add_test(NAME cuda_placement
           COMMAND ${TSSA_TESTS_DIR}/backends/cuda/test_placement.sh $<TARGET_FILE:tssa-stream>
                   $<TARGET_FILE:npy_compare> ${TSSA_TESTS_DIR})
  set_tests_properties(cuda_placement PROPERTIES LABELS cuda)
  add_test(NAME cuda_streams
           COMMAND ${TSSA_TESTS_DIR}/backends/cuda/test_streams.sh $<TARGET_FILE:tssa-stream>
                   $<TARGET_FILE:npy_compare> ${TSSA_TESTS_DIR})
  set_tests_properties(cuda_streams PROPERTIES LABELS cuda)
  add_test(NAME cuda_gpu_choice
           COMMAND ${TSSA_TESTS_DIR}/backends/cuda/test_gpu_choice.sh $<TARGET_FILE:tssa-stream> ${TSSA_TESTS_DIR})
  set_tests_properties(cuda_gpu_choice PROPERTIES LABELS "cuda;mpi")
  add_test(NAME cuda_device_prediction
           COMMAND ${TSSA_TESTS_DIR}/backends/cuda/test_device_prediction.sh $<TARGET_FILE:tssa-stream> ${TSSA_TESTS_DIR})
  set_tests_properties(cuda_device_prediction PROPERTIES LABELS "cuda;scheduler")
  add_executable(cuda_streams_check ${TSSA_TESTS_DIR}/backends/cuda/test_cuda_streams.c ${TSSA_TESTS_DIR}/test_util.c)
  target_link_libraries(cuda_streams_check PRIVATE tssa)
  target_include_directories(cuda_streams_check PRIVATE ${PROJECT_SOURCE_DIR} ${TSSA_TESTS_DIR})
  add_test(NAME cuda_streams_shim COMMAND cuda_streams_check)
  set_tests_properties(cuda_streams_shim PROPERTIES LABELS cuda ENVIRONMENT
                       "TSSA_CUDA_EMULATE=1;TSSA_CACHE_DIR=${CMAKE_BINARY_DIR}/kernel-cache;TSSA_KERNEL_CFLAGS=-Wall -Wextra -Werror")
  add_executable(cuda_block_sync_check ${TSSA_TESTS_DIR}/backends/cuda/test_cuda_block_sync.c ${TSSA_TESTS_DIR}/test_util.c)
  target_link_libraries(cuda_block_sync_check PRIVATE tssa)
  target_include_directories(cuda_block_sync_check PRIVATE ${PROJECT_SOURCE_DIR} ${TSSA_TESTS_DIR})
  add_test(NAME cuda_block_sync_shim COMMAND cuda_block_sync_check)
  # under ASan its fake stacks on: a fiber switch it was not told of warns
  # ("ASan is ignoring requested __asan_handle_no_return"), which fails it
  set_tests_properties(cuda_block_sync_shim PROPERTIES LABELS cuda FAIL_REGULAR_EXPRESSION "WARNING: ASan"
                       ENVIRONMENT "TSSA_CUDA_EMULATE=1;TSSA_CACHE_DIR=${CMAKE_BINARY_DIR}/kernel-cache;TSSA_KERNEL_CFLAGS=-Wall -Wextra -Werror;ASAN_OPTIONS=detect_leaks=1:abort_on_error=1:detect_stack_use_after_return=1")
  add_executable(cuda_graph_check ${TSSA_TESTS_DIR}/backends/cuda/test_cuda_graph.c ${TSSA_TESTS_DIR}/test_util.c)
  target_link_libraries(cuda_graph_check PRIVATE tssa)
  target_include_directories(cuda_graph_check PRIVATE ${PROJECT_SOURCE_DIR} ${TSSA_TESTS_DIR})
  add_test(NAME cuda_graph_shim COMMAND cuda_graph_check)
  set_tests_properties(cuda_graph_shim PROPERTIES LABELS cuda ENVIRONMENT
                       "TSSA_CUDA_EMULATE=1;TSSA_CACHE_DIR=${CMAKE_BINARY_DIR}/kernel-cache;TSSA_KERNEL_CFLAGS=-Wall -Wextra -Werror")
  add_test(NAME cuda_graphs
           COMMAND ${TSSA_TESTS_DIR}/backends/cuda/test_graphs.sh $<TARGET_FILE:tssa-stream>
                   $<TARGET_FILE:npy_compare>)
  set_tests_properties(cuda_graphs PROPERTIES LABELS cuda)
endif()
