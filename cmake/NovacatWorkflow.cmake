# novacat_add_workflow(NAME <workflow> SPEC <spec.yaml>
#                      [STEPS_DIR <dir>] [GOVERNANCE <governance.yaml>]
#                      [EVENT_CATALOG <events.yaml>]
#                      [ENVIRONMENT] [LAMBDA_DATA <dir>=<dest>...]
#                      [NO_LAMBDA])
#
# All a developer adds for a new workflow. It
# - regenerates the workflow's code into the build tree whenever the spec,
#   the governance, the event catalog (default: shared/events.yaml beside
#   the spec, when there is one) or novacat-gen changes, and only then
#   (target novacat_generate_<workflow>; tests/incremental_build_test.sh);
# - creates STEPS_DIR/<workflow>/steps.hpp and steps.cpp (default STEPS_DIR:
#   <project>/workflows) the first time, and never touches them again;
# - builds the library novacat_workflow_<workflow> from the generated code
#   and the step logic, linked to the runtime;
# - builds the workflow's Lambda function, novacat_lambda_<workflow>
#   (cmake/lambda_main.cc: the generated binding and the step logic on the
#   Runtime API loop; it links no executor and no test code), and packages
#   it as <build>/lambda/<workflow>.zip (scripts/package_lambda.sh), with
#   every LAMBDA_DATA folder copied to <dest> in the zip; the target
#   `lambda_zips` builds every workflow's zip. NO_LAMBDA skips both;
# - with ENVIRONMENT, links the step logic to workflows::Environment (the
#   store's repository, the outside sources): MakeSteps(env); without it,
#   MakeSteps() takes nothing;
# - registers the workflow's tests with ctest: its generated conformance
#   plan, run by conformance_<workflow> (cmake/conformance_main.cc and the
#   compiled runner, novacat_testing; `ctest -R conformance`) and `workflow_<workflow>_asl`, its
#   definition checked by the pinned asl-validator.
# A Task added to the spec without its method in steps.hpp/steps.cpp fails
# the build with the name of the missing method; a removed Task makes the
# stale `override` fail.
function(novacat_add_workflow)
  cmake_parse_arguments(W "ENVIRONMENT;NO_LAMBDA" "NAME;SPEC;STEPS_DIR;GOVERNANCE;EVENT_CATALOG"
    "LAMBDA_DATA" ${ARGN})
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
  if(NOT W_EVENT_CATALOG AND EXISTS "${spec_dir}/shared/events.yaml")
    set(W_EVENT_CATALOG "${spec_dir}/shared/events.yaml")
  endif()
  set(out "${CMAKE_BINARY_DIR}/novacat/${W_NAME}")
  set(generated
    "${out}/${W_NAME}/${W_NAME}.hpp"
    "${out}/${W_NAME}/${W_NAME}.cpp"
    "${out}/${W_NAME}/conformance.json"
    "${out}/${W_NAME}/statemachine.asl.json")
  set(steps "${steps_dir}/${W_NAME}/steps.hpp" "${steps_dir}/${W_NAME}/steps.cpp")
  # The first build creates the step logic; after that it is a source.
  set(scaffolds "")
  foreach(f IN LISTS steps)
    if(NOT EXISTS "${f}")
      list(APPEND scaffolds "${f}")
    endif()
  endforeach()
  # novacat-gen rewrites only the files whose text changed. Ninja runs custom
  # commands with restat: files left unchanged keep their dependents clean,
  # and its log keeps the command from running again. Make has no such log:
  # the unchanged files stayed older than a rebuilt novacat-gen, and every
  # later build ran it again, so there every run touches its files.
  set(touch_outputs)
  if(NOT CMAKE_GENERATOR MATCHES "Ninja")
    set(touch_outputs COMMAND ${CMAKE_COMMAND} -E touch_nocreate ${generated}
      ${scaffolds})
  endif()
  add_custom_command(
    OUTPUT ${generated} ${scaffolds}
    COMMAND novacat-gen -q --out "${out}" --steps-dir "${steps_dir}" "${spec}"
    ${touch_outputs}
    DEPENDS novacat-gen "${spec}" "${W_GOVERNANCE}" ${W_EVENT_CATALOG}
    COMMENT "novacat-gen ${W_NAME}"
    VERBATIM)
  # Every target that reads the generated files depends on this one, which
  # runs novacat-gen first and once: with Make, each target that lists a
  # custom command's output gets the command too, and two of them could run
  # it at the same time.
  add_custom_target(novacat_generate_${W_NAME} DEPENDS ${generated} ${scaffolds})
  add_library(novacat_workflow_${W_NAME} STATIC
    "${out}/${W_NAME}/${W_NAME}.cpp" "${steps_dir}/${W_NAME}/steps.cpp")
  add_dependencies(novacat_workflow_${W_NAME} novacat_generate_${W_NAME})
  target_include_directories(novacat_workflow_${W_NAME} PUBLIC
    "${out}" "${steps_dir}")
  target_link_libraries(novacat_workflow_${W_NAME} PUBLIC novacat_runtime)
  if(W_ENVIRONMENT)
    target_link_libraries(novacat_workflow_${W_NAME} PUBLIC
      novacat_workflow_environment)
  endif()
  if(NOT W_NO_LAMBDA)
    _novacat_add_lambda(${W_NAME} "${W_ENVIRONMENT}" "${W_LAMBDA_DATA}")
  endif()
  if(NOVACAT_BUILD_TESTS)
    add_executable(conformance_${W_NAME}
      ${PROJECT_SOURCE_DIR}/cmake/conformance_main.cc
      "${out}/${W_NAME}/conformance.json")
    add_dependencies(conformance_${W_NAME} novacat_generate_${W_NAME})
    target_link_libraries(conformance_${W_NAME} PRIVATE
      novacat_workflow_${W_NAME} novacat_testing)
    target_compile_definitions(conformance_${W_NAME} PRIVATE
      NOVACAT_WORKFLOW=${W_NAME}
      "NOVACAT_WORKFLOW_NAME=\"${W_NAME}\""
      "NOVACAT_WORKFLOW_HEADER=\"${W_NAME}/${W_NAME}.hpp\""
      "NOVACAT_PLAN_PATH=\"${out}/${W_NAME}/conformance.json\""
      "NOVACAT_ASL_PATH=\"${out}/${W_NAME}/statemachine.asl.json\"")
    # A changed plan relinks the binary, so that the cases are listed again.
    set_target_properties(conformance_${W_NAME} PROPERTIES
      LINK_DEPENDS "${out}/${W_NAME}/conformance.json")
    novacat_gtest(conformance_${W_NAME})
    add_test(NAME workflow_${W_NAME}_asl
      COMMAND "${PROJECT_SOURCE_DIR}/tests/tools/node_modules/.bin/asl-validator"
        --json-path "${out}/${W_NAME}/statemachine.asl.json")
  endif()
endfunction()

# The Lambda function of workflow `name` and its zip (see above).
function(_novacat_add_lambda name environment data)
  set(target novacat_lambda_${name})
  add_executable(${target} ${PROJECT_SOURCE_DIR}/cmake/lambda_main.cc)
  if(environment)
    set(with_environment 1)
  else()
    set(with_environment 0)
  endif()
  target_compile_definitions(${target} PRIVATE
    NOVACAT_WORKFLOW=${name}
    "NOVACAT_WORKFLOW_NAME=\"${name}\""
    "NOVACAT_STEPS_HEADER=\"${name}/steps.hpp\""
    NOVACAT_LAMBDA_ENVIRONMENT=${with_environment})
  target_link_libraries(${target} PRIVATE novacat_workflow_${name}
    novacat_lambda)
  if(environment)
    target_link_libraries(${target} PRIVATE novacat_workflow_sources)
  endif()
  set_target_properties(${target} PROPERTIES OUTPUT_NAME ${name}
    RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/lambda/bin)
  set(zip ${CMAKE_BINARY_DIR}/lambda/${name}.zip)
  set(data_args)
  set(data_files)
  foreach(pair IN LISTS data)
    string(REGEX REPLACE "=.*" "" dir "${pair}")
    list(APPEND data_args --data "${pair}")
    file(GLOB_RECURSE files CONFIGURE_DEPENDS "${dir}/*")
    list(APPEND data_files ${files})
  endforeach()
  add_custom_command(OUTPUT ${zip}
    COMMAND bash ${PROJECT_SOURCE_DIR}/scripts/package_lambda.sh
      --binary $<TARGET_FILE:${target}> --name ${name} --out ${zip}
      ${data_args}
    DEPENDS ${target} ${PROJECT_SOURCE_DIR}/scripts/package_lambda.sh
      ${data_files}
    COMMENT "Packaging ${name}.zip"
    VERBATIM)
  add_custom_target(novacat_lambda_zip_${name} ALL DEPENDS ${zip})
  set_property(GLOBAL APPEND PROPERTY NOVACAT_LAMBDA_ZIPS
    novacat_lambda_zip_${name})
endfunction()
