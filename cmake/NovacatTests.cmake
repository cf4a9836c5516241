# novacat_gtest(<target> [gtest_discover_tests' arguments]): registers a
# GoogleTest binary's cases with ctest.
#
# By default one ctest test per case (gtest_discover_tests): a failure
# names its case, and `ctest -R` picks cases. With NOVACAT_TEST_PER_BINARY
# (the sanitized build, scripts/test.sh's second) one ctest test per binary
# (per TEST_FILTER), running the same cases in one process: a sanitized
# process is slow to start, and with a process per case most of that pass
# went to starting processes for cases of a few milliseconds. The Debug
# pass runs each case alone, so a case that passes only after another is
# still caught there.
#
# Per binary, TEST_PREFIX, TEST_FILTER, WORKING_DIRECTORY and PROPERTIES
# keep their meaning (the test is named <prefix><target>, and
# <prefix><target>.<the filter as a name> when filtered); TEST_LIST names
# the one test; NO_PRETTY_VALUES has nothing to do.
function(novacat_gtest target)
  if(NOT NOVACAT_TEST_PER_BINARY)
    gtest_discover_tests(${target} ${ARGN})
    return()
  endif()
  cmake_parse_arguments(PARSE_ARGV 1 T "NO_PRETTY_VALUES"
    "TEST_PREFIX;TEST_FILTER;WORKING_DIRECTORY;TEST_LIST" "PROPERTIES")
  if(T_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "novacat_gtest(${target}): unknown arguments "
      "${T_UNPARSED_ARGUMENTS}")
  endif()
  set(name "${T_TEST_PREFIX}${target}")
  set(command ${target})
  if(DEFINED T_TEST_FILTER)
    # "-*dynamodb*:Dynalite*" -> "not_dynamodb_Dynalite"
    string(REPLACE "*" "" filter_id "${T_TEST_FILTER}")
    string(REGEX REPLACE "^-" "not_" filter_id "${filter_id}")
    string(MAKE_C_IDENTIFIER "${filter_id}" filter_id)
    string(APPEND name ".${filter_id}")
    list(APPEND command "--gtest_filter=${T_TEST_FILTER}")
  endif()
  set(directory "")
  if(T_WORKING_DIRECTORY)
    set(directory WORKING_DIRECTORY "${T_WORKING_DIRECTORY}")
  endif()
  add_test(NAME ${name} COMMAND ${command} ${directory})
  if(T_PROPERTIES)
    set_tests_properties(${name} PROPERTIES ${T_PROPERTIES})
  endif()
  if(T_TEST_LIST)
    set(${T_TEST_LIST} ${name} PARENT_SCOPE)
  endif()
endfunction()
