# The kernels layer (kernels/).
#   cc_jit   generated C compiled with the system compiler, cached, loaded:
#            values through dlsym (OpenMP too), cache hits and misses, the
#            collision guard, compiler errors and a missing compiler, four
#            processes compiling one source at once, flags reaching the
#            compiler, unusable cache folders (its cache is a mkdtemp folder),
#            untrusted entries and folders (a planted object never runs),
#            damaged entries compiled again, $CC split into words
include(${CMAKE_CURRENT_LIST_DIR}/cc_jit.cmake)
#   kernels.cache_trust  a kernel cache someone else could write (another
#            user's 1777 folder, a 0666 entry, an entry linked outside) is
#            never loaded: a planted object's constructor does not run, the
#            run warns once and is right (root only: it chowns; else skipped)
#   kernels.cache_repair  a cached object cut short, another program's
#            object, one without its sum: the next run compiles again, is
#            right, and the run after it hits
#   kernels.cc_words  CC="cc -O0" and a quoted CC run; a missing program in
#            CC is the "not found" error (exit 1)
#   kernels.cache_full  a cache on a full file system or one mounted noexec:
#            the run warns, compiles in a temporary folder and is right
#            (root only: it mounts tmpfs; else skipped)
foreach(mode trust repair cc full)
  if(mode STREQUAL "cc")
    set(name cc_words)
  else()
    set(name cache_${mode})
  endif()
  add_test(NAME kernels.${name}
           COMMAND ${TSSA_TESTS_DIR}/kernels/test_cache_trust.sh ${mode} $<TARGET_FILE:tssa-stream>
                   $<TARGET_FILE:npy_compare> ${TSSA_TESTS_DIR}/models)
  set_tests_properties(kernels.${name} PROPERTIES SKIP_RETURN_CODE 77)
endforeach()
#   kernels.cuda_source  every fusing program of tests/models printed with
#            --emit=cuda compiles with NVRTC and nvcc (skipped without NVRTC)
add_executable(nvrtc_check ${TSSA_TESTS_DIR}/tools/nvrtc_check.c)
target_link_libraries(nvrtc_check PRIVATE ${CMAKE_DL_LIBS})
add_test(NAME kernels.cuda_source
         COMMAND ${TSSA_TESTS_DIR}/kernels/run_cuda_source.sh $<TARGET_FILE:tssa-stream>
                 $<TARGET_FILE:nvrtc_check> ${TSSA_TESTS_DIR}/models)
# NVRTC keeps allocations of its own until exit: not ours to report. Label
# release: it checks the printed source, the same in any build, and NVRTC
# and nvcc under ASan only take longer; CI runs it on the release build.
set_tests_properties(kernels.cuda_source PROPERTIES SKIP_RETURN_CODE 77 LABELS release COST 30
                     ENVIRONMENT "ASAN_OPTIONS=detect_leaks=0")
#   kernels.golden   --emit=c and --emit=cuda of small typed programs
#            (tests/kernels/golden; run_golden.sh --update rewrites them);
#            index_width_32 / _64 read an expanded view at the largest
#            offsets that fit int32 (INT32_MAX) and just past it: their
#            CUDA must be in 32 and in 64 bits (kir_print.c's cuda_index_32),
#            and strided_assign's (i1 - 1) / 2, negative only where its
#            select's test fails, in 32;
#            box_bounds (mask_crop's clamped box bounds, each reading the
#            boxes through views of its own) must be one group and one CUDA
#            kernel writing both outputs
add_test(NAME kernels.golden
         COMMAND ${TSSA_TESTS_DIR}/kernels/run_golden.sh $<TARGET_FILE:tssa-stream>
                 ${TSSA_TESTS_DIR}/kernels/golden)
#   kernels.vector_math   fused math after a select with a constant arm
#            (clamp, relu) calls libmvec's vector variants
#            (tests/kernels/vector_math; skips without libmvec)
add_test(NAME kernels.vector_math
         COMMAND ${TSSA_TESTS_DIR}/kernels/check_vector_math.sh $<TARGET_FILE:tssa-stream>
                 ${TSSA_TESTS_DIR}/kernels/vector_math)
set_tests_properties(kernels.vector_math PROPERTIES SKIP_RETURN_CODE 77)
#   kernels.fit   every fused group of the corpus programs runs as its
#            kernel (none interpreted for inputs it was not built for)
add_test(NAME kernels.fit
         COMMAND ${TSSA_TESTS_DIR}/kernels/check_kernels_fit.sh $<TARGET_FILE:tssa-stream>
                 ${TSSA_TESTS_DIR}/models)
#   kernels.shape_infer  the inferred dtype and shape of every tensor output
#            of the corpus against PyTorch's (expected/outN.npy)
add_executable(test_shape_infer ${TSSA_TESTS_DIR}/kernels/test_shape_infer.c ${TSSA_TESTS_DIR}/test_util.c)
target_link_libraries(test_shape_infer PRIVATE tssa)
target_include_directories(test_shape_infer PRIVATE ${PROJECT_SOURCE_DIR} ${TSSA_TESTS_DIR})
add_test(NAME kernels.shape_infer COMMAND test_shape_infer ${TSSA_CORPUS_CASES})
#   kernels.fusion_reach  the recurrent programs' gates fuse: fused groups
#            and untyped tensors of nasrnn, lstm_loop, fastrnns_lstm and
#            torch 2.x's seq2seq graph (tests/kernels/torch2)
add_test(NAME kernels.fusion_reach
         COMMAND ${TSSA_TESTS_DIR}/kernels/test_fusion_reach.sh $<TARGET_FILE:tssa-stream>
                 ${TSSA_TESTS_DIR}/models ${TSSA_TESTS_DIR}/kernels/torch2)
#   kernels.whole_assigns  assigns through views of the whole base (t_rev,
#            squeeze_rev, ...) are views that fuse: kernels and fallbacks
#            per run of a loop case and of ta_lowpass_biquad, none left in
#            --emit=fused
add_test(NAME kernels.whole_assigns
         COMMAND ${TSSA_TESTS_DIR}/kernels/test_whole_assigns.sh $<TARGET_FILE:tssa-stream>
                 ${TSSA_TESTS_DIR}/streamit/cases ${TSSA_TESTS_DIR}/models)
#   kernels.pass_table  the passes' runner (kernels/passes.c): the real
#            table verified between passes on recurrent, data-parallel and
#            torch 2.x programs; a test pass that breaks the graph is an
#            internal error naming it; stops after a named pass; the names
#            in order; TSSA_VERIFY_PASSES in the environment
add_executable(test_pass_table ${TSSA_TESTS_DIR}/kernels/test_pass_table.c ${TSSA_TESTS_DIR}/test_util.c)
target_link_libraries(test_pass_table PRIVATE tssa)
target_include_directories(test_pass_table PRIVATE ${PROJECT_SOURCE_DIR} ${TSSA_TESTS_DIR})
add_test(NAME kernels.pass_table
         COMMAND test_pass_table ${TSSA_TESTS_DIR}/models/lstm_loop ${TSSA_TESTS_DIR}/models/batch_loop
                 ${TSSA_TESTS_DIR}/models/fastrnns_lstm ${TSSA_TESTS_DIR}/models/chunk_split_unbind
                 ${TSSA_TESTS_DIR}/models/rnn_cells_loop ${TSSA_TESTS_DIR}/models/long_batch_map)
#   kernels.print_after  --print-after=PASS for every pass (exit 2 and the
#            list for an unknown one) and TSSA_VERIFY_PASSES=1 over the
#            models corpus (tests/kernels/test_print_after.sh)
add_test(NAME kernels.print_after
         COMMAND ${TSSA_TESTS_DIR}/kernels/test_print_after.sh $<TARGET_FILE:tssa-stream>
                 ${TSSA_TESTS_DIR}/models ${TSSA_TESTS_DIR}/kernels/torch2)
#   kernels.fuse_random  60 random programs (elementwise ops, broadcasts,
#            reductions, softmax, transposes, reshapes, slice and row
#            assigns, where) fused against the reference interpreter
add_executable(test_fuse_random ${TSSA_TESTS_DIR}/kernels/test_fuse_random.c ${TSSA_TESTS_DIR}/test_util.c)
target_link_libraries(test_fuse_random PRIVATE tssa)
target_include_directories(test_fuse_random PRIVATE ${PROJECT_SOURCE_DIR} ${TSSA_TESTS_DIR})
add_test(NAME kernels.fuse_random
         COMMAND test_fuse_random $<TARGET_FILE:tssa-stream> ${CMAKE_CURRENT_BINARY_DIR}/fuse_random)
#   kernels.horizontal.*  a data-parallel loop of groups and products as
#            groups over its iterations and stacked products: structure, the
#            interpreter's meaning of it (ref on the fused text), the launches
#            on the cuda backend
if(TSSA_CUDA)
  add_test(NAME kernels.horizontal.long_batch_map
           COMMAND ${TSSA_TESTS_DIR}/kernels/test_horizontal.sh $<TARGET_FILE:tssa-stream>
                   $<TARGET_FILE:npy_compare> ${TSSA_TESTS_DIR}/models/long_batch_map 10000 1 1 Body_L14)
  add_test(NAME kernels.horizontal.batch_loop
           COMMAND ${TSSA_TESTS_DIR}/kernels/test_horizontal.sh $<TARGET_FILE:tssa-stream>
                   $<TARGET_FILE:npy_compare> ${TSSA_TESTS_DIR}/models/batch_loop 4 2 1 Body_L14)
  set_tests_properties(kernels.horizontal.long_batch_map kernels.horizontal.batch_loop
                       PROPERTIES LABELS "kernels;cuda")
  #   kernels.batch_heads.*  a loop over heads (bands h*D of a dim) as
  #            batched GEMMs, one kernel per group over all heads and one
  #            write (launches and GEMMs per run on the cuda backend, PyTorch's
  #            outputs on cuda, cpu and ref); loops it must refuse stay loops
  function(add_batch_heads_test heads_name)
    add_test(NAME kernels.batch_heads.${heads_name}
             COMMAND ${TSSA_TESTS_DIR}/kernels/test_batch_heads.sh $<TARGET_FILE:tssa-stream>
                     $<TARGET_FILE:npy_compare> ${TSSA_TESTS_DIR}/models/${heads_name} ${ARGN})
    set_tests_properties(kernels.batch_heads.${heads_name} PROPERTIES LABELS "kernels;cuda")
  endfunction()
  add_batch_heads_test(attention_heads batched 5 5)
  add_batch_heads_test(attention_heads_twelve batched 5 5)
  add_batch_heads_test(attention_heads_one batched 1 5)
  add_batch_heads_test(attention_heads_partial batched 3 4)
  add_batch_heads_test(attention_heads_projection_rows batched 1 1)
  add_batch_heads_test(attention_heads_chained loop)
  add_batch_heads_test(attention_heads_overlap loop)
  #   kernels.strip_mine  data-parallel loops cut into slices for devices and
  #            ranks on separate hosts: PyTorch's outputs on 1..4 devices,
  #            slices where they pay (not for a prime trip count), at most
  #            twice one device's launches on two, and the same bytes as a
  #            plain run at -np 1..3 with --simulate-hosts
  add_test(NAME kernels.strip_mine
           COMMAND ${TSSA_TESTS_DIR}/kernels/test_strip_mine.sh $<TARGET_FILE:tssa-stream>
                   $<TARGET_FILE:npy_compare> ${TSSA_TESTS_DIR})
  set_tests_properties(kernels.strip_mine PROPERTIES LABELS "kernels;cuda;mpi" TIMEOUT 300)
  #   kernels.device_residency  the loop programs on --backend=cuda: right
  #            outputs, and nothing but the outputs copied back per run (the
  #            chunked gates, out[t] = h writes, addmm on the device;
  #            torch 2.x's GRUCell graph typed through its raise)
  add_test(NAME kernels.device_residency
           COMMAND ${TSSA_TESTS_DIR}/kernels/test_device_residency.sh $<TARGET_FILE:tssa-stream>
                   $<TARGET_FILE:npy_compare> ${TSSA_TESTS_DIR}/models ${TSSA_TESTS_DIR}/kernels/torch2)
  set_tests_properties(kernels.device_residency PROPERTIES LABELS "kernels;cuda")
endif()
#   kernels.shape_check  every tensor value of every op row and program
#            (tests/ops, tests/models): the inferred dtype and sizes equal
#            the executed ones (the evaluator's run of the same program),
#            and no value is left unknown but downstream of data
#            (data-dependent ops of ir/op_dynamic_shape.inc, boolean masks,
#            scalars read from tensors) or in a row of its known_gaps list
add_executable(test_shape_check ${TSSA_TESTS_DIR}/kernels/test_shape_check.c ${TSSA_TESTS_DIR}/test_util.c)
target_link_libraries(test_shape_check PRIVATE tssa)
target_include_directories(test_shape_check PRIVATE ${PROJECT_SOURCE_DIR} ${TSSA_TESTS_DIR})
add_test(NAME kernels.shape_check COMMAND test_shape_check ${TSSA_CORPUS_CASES})
#   kernels.static_trips  loops whose trip count is int arithmetic on sizes
#            only shape inference knows (len(computed) - 1, // 2) lower to
#            a feedback loop, not one filter, and match PyTorch
#            (tests/kernels/test_static_trips.sh)
add_test(NAME kernels.static_trips
         COMMAND ${TSSA_TESTS_DIR}/kernels/test_static_trips.sh $<TARGET_FILE:tssa-stream>
                 $<TARGET_FILE:npy_compare> ${TSSA_TESTS_DIR})
#   kernels.shape_decided  what static shapes decide at the top level
#            (x.size() lists, their items, rank tests) and writes into self
#            (index_put through a mask) keep the shapes after them static,
#            and isinstance of a Union-cast value folds; the runs match
#            PyTorch (tests/kernels/test_shape_decided.sh)
add_test(NAME kernels.shape_decided
         COMMAND ${TSSA_TESTS_DIR}/kernels/test_shape_decided.sh $<TARGET_FILE:tssa-stream>
                 $<TARGET_FILE:npy_compare> ${TSSA_TESTS_DIR})
#   kernels.rnn_layers  nn.GRU / LSTM / RNN layers (tests/models/rnn_*) lower
#            to one feedback loop per layer and direction with the input
#            projection hoisted and the gates fused, no opaque layer filter;
#            training-mode dropout is refused (tests/kernels/test_rnn_layers.sh)
add_test(NAME kernels.rnn_layers
         COMMAND ${TSSA_TESTS_DIR}/kernels/test_rnn_layers.sh $<TARGET_FILE:tssa-stream>
                 ${TSSA_TESTS_DIR}/models)
#   kernels.cost_terms  the math-library calls a template makes per element
#            (the cost model's math term) and the bandwidth/math probe
#            compiled as the kernels are
tssa_unit_test(kernels.cost_terms ${TSSA_TESTS_DIR}/kernels/test_cost_terms.c ${TSSA_TESTS_DIR}/test_util.c)
