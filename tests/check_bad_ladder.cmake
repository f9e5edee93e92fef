# A fit_ladder rung that names no format of data/quants.json fails the build:
# the generator, run on data/engines.json with one rung misspelt, exits non-zero
# naming the engine and the rung. Run with -DGEN=<generator> -DDATA=<data dir>
# -DOUT=<scratch dir>.
file(READ ${DATA}/engines.json engines)
string(REPLACE "\"q3_k_m\", \"q2_k\"]" "\"q3_k_m\", \"q9_k\"]" bad "${engines}")
if(bad STREQUAL engines)
  message(FATAL_ERROR "data/engines.json has no GGUF ladder ending in q2_k to misspell")
endif()
file(WRITE ${OUT}/bad-ladder-engines.json "${bad}")
execute_process(
  COMMAND ${GEN} ${DATA}/gpus.json ${DATA}/quants.json ${OUT}/bad-ladder-engines.json
          ${DATA}/tasks.json ${DATA}/rules.json ${DATA}/models.json ${DATA}/platforms.json
          ${DATA}/error_bands.json ${DATA}/networks.json ${DATA}/energy.json
          ${OUT}/bad-ladder-tables.cpp
  RESULT_VARIABLE code ERROR_VARIABLE err)
if(code EQUAL 0)
  message(FATAL_ERROR "the generator accepted fit_ladder rung 'q9_k'")
endif()
if(NOT err MATCHES "fit_ladder 'q9_k': names no format of data/quants.json")
  message(FATAL_ERROR "unexpected message: ${err}")
endif()
message(STATUS "refused: ${err}")
