# novacat_add_workflow(NAME <workflow> SPEC <spec.yaml>
#                      [STEPS_DIR <dir>] [GOVERNANCE <governance.yaml>])
#
# All a developer adds for a new workflow. It
# - regenerates the workflow's code into the build tree whenever the spec,
#   the governance or novacat-gen changes;
# - creates STEPS_DIR/<workflow>/steps.hpp and steps.cpp (default STEPS_DIR:
#   <project>/workflows) the first time, and never touches them again;
# - builds the library novacat_workflow_<workflow> from the generated code
#   and the step logic, linked to the runtime;
# - registers the workflow's tests with ctest: its generated conformance
#   tests (`ctest -R conformance`) and `workflow_<workflow>_asl`, its
#   definition checked by the pinned asl-validator.
# A Task added to the spec without its method in steps.hpp/steps.cpp fails
# the build with the name of the missing method; a removed Task makes the
# stale `override` fail.
function(novacat_add_workflow)
  cmake_parse_arguments(W "" "NAME;SPEC;STEPS_DIR;GOVERNANCE" "" ${ARGN})
  if(NOT W_NAME OR NOT W_SPEC)
    message(FATAL_ERROR "novacat_add_workflow needs NAME and SPEC")
  endif()
  get_filename_component(spec "${W_SPEC}" ABSOLUTE)
  get_filename_component(spec_dir "${spec}" DIRECTORY)
  if(NOT W_STEPS_DIR)
    set(W_STEPS_DIR "${PROJECT_SOURCE_DIR}/workflows")
  endif()
  get_filename_component(steps_dir "${W_STEPS_DIR}" ABSOLUTE)
  if(NOT W_GOVERNANCE)
    set(W_GOVERNANCE "${spec_dir}/shared/governance.yaml")
  endif()
  set(out "${CMAKE_BINARY_DIR}/novacat/${W_NAME}")
  set(generated
    "${out}/${W_NAME}/${W_NAME}.hpp"
    "${out}/${W_NAME}/${W_NAME}.cpp"
    "${out}/${W_NAME}/${W_NAME}_conformance_test.cpp"
    "${out}/${W_NAME}/statemachine.asl.json")
  set(steps "${steps_dir}/${W_NAME}/steps.hpp" "${steps_dir}/${W_NAME}/steps.cpp")
  # The first build creates the step logic; after that it is a source.
  set(scaffolds "")
  foreach(f IN LISTS steps)
    if(NOT EXISTS "${f}")
      list(APPEND scaffolds "${f}")
    endif()
  endforeach()
  add_custom_command(
    OUTPUT ${generated} ${scaffolds}
    COMMAND novacat-gen -q --out "${out}" --steps-dir "${steps_dir}" "${spec}"
    DEPENDS novacat-gen "${spec}" "${W_GOVERNANCE}"
    COMMENT "novacat-gen ${W_NAME}"
    VERBATIM)
  add_library(novacat_workflow_${W_NAME} STATIC
    "${out}/${W_NAME}/${W_NAME}.cpp" "${steps_dir}/${W_NAME}/steps.cpp")
  target_include_directories(novacat_workflow_${W_NAME} PUBLIC
    "${out}" "${steps_dir}")
  target_link_libraries(novacat_workflow_${W_NAME} PUBLIC novacat_runtime)
  if(NOVACAT_BUILD_TESTS)
    string(TOUPPER "${W_NAME}" upper)
    add_executable(conformance_${W_NAME}
      "${out}/${W_NAME}/${W_NAME}_conformance_test.cpp")
    target_link_libraries(conformance_${W_NAME} PRIVATE
      novacat_workflow_${W_NAME} novacat_testing GTest::gtest_main)
    target_compile_definitions(conformance_${W_NAME} PRIVATE
      "NOVACAT_${upper}_ASL=\"${out}/${W_NAME}/statemachine.asl.json\"")
    gtest_discover_tests(conformance_${W_NAME})
    add_test(NAME workflow_${W_NAME}_asl
      COMMAND "${PROJECT_SOURCE_DIR}/tests/tools/node_modules/.bin/asl-validator"
        --json-path "${out}/${W_NAME}/statemachine.asl.json")
  endif()
endfunction()
