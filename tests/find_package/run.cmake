# cmake -P script run by the find_package test (see CMakeLists.txt).
# Inputs: IXA_BUILD_DIR, WORK_DIR, CONSUMER_DIR, GENERATOR, CTEST, CXX, CONFIG.
set(prefix ${WORK_DIR}/prefix)
file(REMOVE_RECURSE ${WORK_DIR})
file(MAKE_DIRECTORY ${WORK_DIR})

set(config_args)
if(CONFIG)
  set(config_args --config ${CONFIG})
endif()
execute_process(
  COMMAND ${CMAKE_COMMAND} --install ${IXA_BUILD_DIR} --prefix ${prefix}
          ${config_args}
  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "cmake --install failed (${rc}):\n${out}\n${err}")
endif()
if(NOT EXISTS ${prefix}/include/ixa/core/text.h)
  message(FATAL_ERROR "installed headers missing: ${prefix}/include/ixa/core/text.h")
endif()

execute_process(
  COMMAND ${CTEST} --build-and-test ${CONSUMER_DIR} ${WORK_DIR}/consumer-build
          --build-generator ${GENERATOR}
          --build-options -DCMAKE_PREFIX_PATH=${prefix}
                          -DCMAKE_CXX_COMPILER=${CXX}
                          -DCMAKE_BUILD_TYPE=Release
          --test-command ixa_consumer
  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
message("${out}")
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "consumer build or run failed (${rc}):\n${err}")
endif()
