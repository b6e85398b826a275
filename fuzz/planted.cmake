# The program fuzzer finds a planted divergence (the test-only path planted_promote) from the seed
# corpus, leaves a crash artifact and a finding with its reduced case, and both replay: the artifact with the fuzz binary
# and with `mmdiff replay` (exit 0: it still diverges; an agreeing input next to it: exit 4), the
# finding's report with `mmdiff run` (cmake -P; FUZZER, MMDIFF, SEEDS, WORK).
file(REMOVE_RECURSE ${WORK})
file(MAKE_DIRECTORY ${WORK}/corpus)
file(GLOB seeds ${SEEDS}/*.json)
file(COPY ${seeds} DESTINATION ${WORK}/corpus)
set(ENV{MMDIFF_FUZZ_TEST_PATHS} 1)
set(ENV{MMDIFF_FUZZ_PATHS} reference,eager,planted_promote)
set(ENV{MMDIFF_FUZZ_OUT} ${WORK}/findings)
execute_process(COMMAND ${FUZZER} ${WORK}/corpus -max_total_time=120 -artifact_prefix=${WORK}/
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
file(GLOB artifacts ${WORK}/crash-*)
file(GLOB reports ${WORK}/findings/*/report.json)
set(blamed FALSE)
foreach(r IN LISTS reports)
  file(READ ${r} text)
  if(text MATCHES "\"blamed\": \"planted_promote\"")
    set(blamed TRUE)
  endif()
endforeach()
if(rc EQUAL 0 OR NOT artifacts OR NOT blamed OR NOT out MATCHES "new bucket [0-9a-f]+")
  message(FATAL_ERROR "the planted divergence was not found and blamed (exit ${rc}):\n${out}")
endif()
# The finding was reduced before it was signed: its folder holds the reduced case.
file(GLOB reduced ${WORK}/findings/*/reduced/report.json)
if(NOT reduced OR NOT out MATCHES "reduced from [0-9]+ ops? to")
  message(FATAL_ERROR "the planted finding was not reduced (no findings/*/reduced/report.json):\n${out}")
endif()
list(GET artifacts 0 artifact)
execute_process(COMMAND ${FUZZER} ${artifact} RESULT_VARIABLE rc OUTPUT_QUIET ERROR_QUIET)
if(rc EQUAL 0)
  message(FATAL_ERROR "the artifact ${artifact} does not replay with ${FUZZER}")
endif()
# `mmdiff replay` reads the artifact as the fuzzer did, on the paths of the fuzzer's environment.
execute_process(COMMAND ${MMDIFF} replay ${artifact} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
if(NOT rc EQUAL 0 OR NOT out MATCHES "\\(match\\): bucket [0-9a-f]+")
  message(FATAL_ERROR "`mmdiff replay ${artifact}` did not reproduce the divergence (exit ${rc}):\n${out}")
endif()
# An input that does not diverge (a legal float32 mm, as a case without a .json name) runs clean in
# the fuzz binary and is "fixed" for `mmdiff replay`.
file(WRITE ${WORK}/agreeing-input [=[{"inputs": {"kind": "exact", "seed": 1}, "program": {"format": "mmdiff.program",
 "version": 1, "inputs": [{"name": "a", "shape": [2, 3], "dtype": "float32", "device": "cpu", "layout": "contiguous"},
 {"name": "b", "shape": [3, 2], "dtype": "float32", "device": "cpu", "layout": "contiguous"}],
 "nodes": [{"name": "v0", "op": "mm", "args": ["a", "b"]}], "outputs": ["v0"]}}]=])
execute_process(COMMAND ${FUZZER} ${WORK}/agreeing-input RESULT_VARIABLE rc OUTPUT_QUIET ERROR_QUIET)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "the agreeing input failed in ${FUZZER} (exit ${rc})")
endif()
execute_process(COMMAND ${MMDIFF} replay --test-paths --paths reference,eager,planted_promote ${WORK}/agreeing-input
                        ${artifact} --junit ${WORK}/replay.xml
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
set(junit "")
if(EXISTS ${WORK}/replay.xml)
  file(READ ${WORK}/replay.xml junit)
endif()
if(NOT rc EQUAL 4 OR NOT out MATCHES "agreeing-input +any +diverge +agree +fixed" OR NOT junit MATCHES "<system-out>bucket ")
  message(FATAL_ERROR "`mmdiff replay` of an agreeing input and the artifact: expected exit 4 (exit ${rc}):\n${out}")
endif()
list(GET reports 0 report)
execute_process(COMMAND ${MMDIFF} run ${report} --test-paths RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
if(NOT rc EQUAL 1)
  message(FATAL_ERROR "`mmdiff run ${report}` did not diverge (exit ${rc}):\n${out}")
endif()
