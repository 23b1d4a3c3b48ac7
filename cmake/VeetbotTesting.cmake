# veetbot_add_test(NAME <name> SOURCES <files...> LIBS <targets...>
#                  [LABELS <labels...>] [TIMEOUT <seconds>] [BROWSER] [HEAVY] [FULL]
#                  [ENGINES <engines...>])
# One function registers every test. Every test runs through tests/run-test.sh, which fails it
# on a Qt warning outside tests/qt-warnings-allowed.txt. BROWSER tests run on the offscreen
# platform with Chromium's sandbox disabled when root; a browser test that cannot start
# Chromium fails. HEAVY browser tests hold the `chromium-heavy` lock, so `ctest -j2` never runs
# two of them at once. FULL registers a second entry, <name>_full, with VEETBOT_TEST_FULL=1 and
# the label `full`: the full sample counts and repetitions, left out of the default run. HEAVY
# and BROWSER tests carry a COST, so a build directory without measured times still schedules
# the serial heavy chain first. ENGINES registers one entry per browser engine instead,
# <name>_<engine> with VEETBOT_TEST_ENGINE=<engine> (read by the test) and VEETBOT_ENGINE=<engine>
# (read by the programs it starts) and the engine as a label: the provider contract and the
# CLI and MCP end-to-end tests, one source for every placement.
function(veetbot_add_test)
  cmake_parse_arguments(T "BROWSER;HEAVY;FULL" "NAME;TIMEOUT" "SOURCES;LIBS;LABELS;ENGINES" ${ARGN})
  if(NOT T_TIMEOUT)
    set(T_TIMEOUT 120)
  endif()
  add_executable(${T_NAME} ${T_SOURCES})
  veetbot_target_defaults(${T_NAME})
  target_link_libraries(${T_NAME} PRIVATE Qt6::Test ${T_LIBS})
  target_include_directories(${T_NAME} PRIVATE ${PROJECT_SOURCE_DIR}/tests/fixtures)
  # Tests find the project's files through VEETBOT_SOURCE_ROOT and VEETBOT_BINARY_ROOT
  # (tests/fixtures/TestPaths.h), never through a compile definition.
  set(env "QT_QPA_PLATFORM=offscreen" "QT_FATAL_WARNINGS=0" "LC_ALL=C.UTF-8"
    "VEETBOT_SOURCE_ROOT=${PROJECT_SOURCE_DIR}" "VEETBOT_BINARY_ROOT=${PROJECT_BINARY_DIR}")
  set(labels ${T_LABELS})
  if(T_BROWSER)
    list(APPEND labels browser)
  endif()
  set(runner ${PROJECT_SOURCE_DIR}/tests/run-test.sh)
  if(T_ENGINES)
    foreach(engine IN LISTS T_ENGINES)
      add_test(NAME ${T_NAME}_${engine} COMMAND ${runner} $<TARGET_FILE:${T_NAME}>)
      set_tests_properties(${T_NAME}_${engine} PROPERTIES
        TIMEOUT ${T_TIMEOUT}
        LABELS "${labels};${engine}"
        ENVIRONMENT "${env};VEETBOT_TEST_ENGINE=${engine};VEETBOT_ENGINE=${engine}"
        COST 100
        RESOURCE_GROUPS "cpu:1")
    endforeach()
    return()
  endif()
  add_test(NAME ${T_NAME} COMMAND ${runner} $<TARGET_FILE:${T_NAME}>)
  set_tests_properties(${T_NAME} PROPERTIES
    TIMEOUT ${T_TIMEOUT}
    LABELS "${labels}"
    ENVIRONMENT "${env}")
  # A heavy test also takes two of the three `cpu` slots of tests/resources.json (./test.sh
  # runs -j3 with it): beside it runs at most one other test, as at -j2.
  if(T_HEAVY)
    set_tests_properties(${T_NAME} PROPERTIES RESOURCE_LOCK chromium-heavy
                                              RESOURCE_GROUPS "cpu:2")
  else()
    set_tests_properties(${T_NAME} PROPERTIES RESOURCE_GROUPS "cpu:1")
  endif()
  # Where CTest has no measured times yet (a fresh build directory), the heavy browser tests,
  # which run one after another, start first and the rest fill the second core beside them.
  if(T_HEAVY)
    set_tests_properties(${T_NAME} PROPERTIES COST 1000)
  elseif(T_BROWSER)
    set_tests_properties(${T_NAME} PROPERTIES COST 100)
  endif()
  if(T_FULL)
    add_test(NAME ${T_NAME}_full COMMAND ${runner} $<TARGET_FILE:${T_NAME}>)
    set_tests_properties(${T_NAME}_full PROPERTIES
      TIMEOUT ${T_TIMEOUT}
      LABELS "${labels};full"
      ENVIRONMENT "${env};VEETBOT_TEST_FULL=1")
    if(T_HEAVY)
      set_tests_properties(${T_NAME}_full PROPERTIES RESOURCE_LOCK chromium-heavy
                                                     RESOURCE_GROUPS "cpu:2")
    endif()
  endif()
endfunction()
