# One bounded libFuzzer run (cmake -P): a fresh corpus copied from the seeds, artifacts into WORK.
# libFuzzer's -timeout is a hang detector, generous for a busy 2-core machine under sanitizers: the
# program fuzzer's input runs the worker (restarted after a crash), then reduces each new bucket.
file(REMOVE_RECURSE ${WORK})
file(MAKE_DIRECTORY ${WORK}/corpus ${WORK}/artifacts)
string(REPLACE "," ";" seed_dirs "${SEEDS}")
foreach(dir IN LISTS seed_dirs)
  file(GLOB seeds ${dir}/*.json)
  if(seeds)
    file(COPY ${seeds} DESTINATION ${WORK}/corpus)
  endif()
endforeach()
execute_process(
  COMMAND ${FUZZER} ${WORK}/corpus -max_total_time=${SECONDS} -timeout=120 -rss_limit_mb=4096
          -print_final_stats=1 -artifact_prefix=${WORK}/artifacts/
  RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "${FUZZER} failed (exit ${rc}); crash artifacts in ${WORK}/artifacts")
endif()
