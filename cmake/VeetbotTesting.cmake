# veetbot_add_test(NAME <name> SOURCES <files...> LIBS <targets...>
#                  [LABELS <labels...>] [TIMEOUT <seconds>] [BROWSER])
# One function registers every test. BROWSER tests run on the offscreen platform with
# Chromium's sandbox disabled when root; a browser test that cannot start Chromium fails.
function(veetbot_add_test)
  cmake_parse_arguments(T "BROWSER" "NAME;TIMEOUT" "SOURCES;LIBS;LABELS" ${ARGN})
  if(NOT T_TIMEOUT)
    set(T_TIMEOUT 120)
  endif()
  add_executable(${T_NAME} ${T_SOURCES})
  veetbot_target_defaults(${T_NAME})
  target_link_libraries(${T_NAME} PRIVATE Qt6::Test ${T_LIBS})
  add_test(NAME ${T_NAME} COMMAND ${T_NAME})
  set(env "QT_QPA_PLATFORM=offscreen" "QT_FATAL_WARNINGS=0" "LC_ALL=C.UTF-8")
  set(labels ${T_LABELS})
  if(T_BROWSER)
    list(APPEND labels browser)
  endif()
  set_tests_properties(${T_NAME} PROPERTIES
    TIMEOUT ${T_TIMEOUT}
    LABELS "${labels}"
    ENVIRONMENT "${env}")
endfunction()
