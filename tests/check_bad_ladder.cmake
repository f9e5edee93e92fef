# A fit_ladder rung that names no format of data/quants.json fails the build:
# the generator, run on data/engines.json with one rung misspelt, exits non-zero
# naming the engine and the rung. Run with -DGEN=<generator> -DOUT=<scratch dir>
# and -DFILES=<the generator's data files, in its order, joined by |>.
string(REPLACE "|" ";" files "${FILES}")
list(FILTER files INCLUDE REGEX "/engines\\.json$")
list(GET files 0 engines_file)
file(READ ${engines_file} engines)
string(REPLACE "\"q3_k_m\", \"q2_k\"]" "\"q3_k_m\", \"q9_k\"]" bad "${engines}")
if(bad STREQUAL engines)
  message(FATAL_ERROR "data/engines.json has no GGUF ladder ending in q2_k to misspell")
endif()
file(WRITE ${OUT}/bad-ladder-engines.json "${bad}")
string(REPLACE "|" ";" args "${FILES}")
list(TRANSFORM args REPLACE "^.*/engines\\.json$" "${OUT}/bad-ladder-engines.json")
execute_process(
  COMMAND ${GEN} ${args} ${OUT}/bad-ladder-tables.cpp
  RESULT_VARIABLE code ERROR_VARIABLE err)
if(code EQUAL 0)
  message(FATAL_ERROR "the generator accepted fit_ladder rung 'q9_k'")
endif()
if(NOT err MATCHES "fit_ladder 'q9_k': names no format of data/quants.json")
  message(FATAL_ERROR "unexpected message: ${err}")
endif()
message(STATUS "refused: ${err}")
