# cmake -P script run by the find_package test (see CMakeLists.txt).
# Inputs: IXA_BUILD_DIR, WORK_DIR, CONSUMER_DIR, GENERATOR, CTEST, CXX, CONFIG,
# and PYTHON, PYTHON_INSTALL_DIR where the Python module is built.
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

# The Python package: installed under the prefix, imported from a folder
# outside the build and source trees with only PYTHONPATH pointing at it.
if(PYTHON AND PYTHON_INSTALL_DIR AND NOT IS_ABSOLUTE "${PYTHON_INSTALL_DIR}")
  set(site ${prefix}/${PYTHON_INSTALL_DIR})
  foreach(file __init__.py __init__.pyi py.typed)
    if(NOT EXISTS ${site}/ixa/${file})
      message(FATAL_ERROR "the Python package is not installed: ${site}/ixa/${file} missing")
    endif()
  endforeach()
  file(MAKE_DIRECTORY ${WORK_DIR}/elsewhere)
  execute_process(
    COMMAND ${CMAKE_COMMAND} -E env PYTHONPATH=${site} PYTHONDONTWRITEBYTECODE=1
            ${PYTHON} -c "import ixa; m = ixa.IndexingMap('(d0) -> (d0 floordiv 1), domain: d0 in [0, 9]'); print(ixa.__file__); print(m.simplify())"
    WORKING_DIRECTORY ${WORK_DIR}/elsewhere
    RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "the installed Python package does not import (${rc}):\n${out}\n${err}")
  endif()
  string(FIND "${out}" "${site}/ixa/__init__.py\n(d0) -> (d0), domain: d0 in [0, 9]\n" at)
  if(NOT at EQUAL 0)
    message(FATAL_ERROR "the installed Python package answers wrongly:\n${out}")
  endif()
  message(STATUS "installed Python package: ${out}")
endif()

# The installed headers: internal ones left out, each other included as
# "ixa/...", and nothing of Boost (the package does not depend on it).
file(GLOB_RECURSE headers ${prefix}/include/ixa/*.h)
foreach(header ${headers})
  if(header MATCHES "/internal\\.h$")
    message(FATAL_ERROR "an internal header is installed: ${header}")
  endif()
  file(STRINGS ${header} lines REGEX "^#include")
  foreach(line ${lines})
    if(line MATCHES "^#include \"(core|simplifier|hw|analysis|emit)/")
      message(FATAL_ERROR "${header}: an include not rewritten to ixa/: ${line}")
    endif()
    if(line MATCHES "^#include <boost/")
      message(FATAL_ERROR "${header}: an installed header includes Boost: ${line}")
    endif()
  endforeach()
endforeach()
file(GLOB package_files ${prefix}/lib*/cmake/ixa/*.cmake)
foreach(file ${package_files})
  file(READ ${file} text)
  if(text MATCHES "Boost")
    message(FATAL_ERROR "${file} names Boost: the package must not need it")
  endif()
endforeach()

# find_package(ixa COMPONENTS ...): the libraries are its components; a
# component it does not have fails with a message naming it.
function(configure_with_components name components expect_ok expect_text)
  set(dir ${WORK_DIR}/components-${name})
  file(WRITE ${dir}/CMakeLists.txt
       "cmake_minimum_required(VERSION 3.20)\n"
       "project(ixa_components LANGUAGES CXX)\n"
       "find_package(ixa REQUIRED COMPONENTS ${components})\n"
       "if(NOT TARGET ixa::simplifier)\n"
       "  message(FATAL_ERROR \"ixa::simplifier missing\")\n"
       "endif()\n")
  execute_process(
    COMMAND ${CMAKE_COMMAND} -S ${dir} -B ${dir}/build -G ${GENERATOR}
            -DCMAKE_PREFIX_PATH=${prefix} -DCMAKE_CXX_COMPILER=${CXX}
    RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(expect_ok AND NOT rc EQUAL 0)
    message(FATAL_ERROR "find_package(ixa COMPONENTS ${components}) failed:\n"
                        "${out}\n${err}")
  endif()
  if(NOT expect_ok AND rc EQUAL 0)
    message(FATAL_ERROR "find_package(ixa COMPONENTS ${components}) passed")
  endif()
  if(expect_text AND NOT "${out}${err}" MATCHES "${expect_text}")
    message(FATAL_ERROR "find_package(ixa COMPONENTS ${components}) does not "
                        "say '${expect_text}':\n${out}\n${err}")
  endif()
endfunction()
configure_with_components(known "core simplifier hw analysis emit" TRUE "")
configure_with_components(unknown "simplifier simplifer" FALSE
                          "'simplifer' is not a component of ixa")

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
