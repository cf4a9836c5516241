# novacat_unity_build(): the unity build of the sanitized tree (CMake option
# NOVACAT_UNITY_BUILD, what scripts/test.sh's second build sets): each
# target's C++ sources compiled 8 to a translation unit, in the order the
# target lists them, as CMAKE_UNITY_BUILD batches them.
#
# Why not CMAKE_UNITY_BUILD itself: CMake 3.25 writes each unity source as
# `#include "<absolute path>"`, so the preprocessed text names the folder of
# the checkout, and ccache 4.7 (which hashes that text) misses in every
# clone but the one that filled the cache: CI builds a clean clone. Here
# each unity source includes its sources by a path relative to itself, and
# ccache (CCACHE_BASEDIR, see CMakeLists.txt) names the unity source
# relative to the build folder, so the text is the same in every clone
# whose build folder sits at the same place in it (build/asan).
#
# Call once, at the end of the top-level CMakeLists.txt: it rewrites every
# C++ target defined by then. Each original source stays in its target as a
# header (HEADER_FILE_ONLY, set in the target's folder), so IDEs still list
# it and a build never compiles it alone.
set(NOVACAT_UNITY_BATCH_SIZE 8)

function(_novacat_targets_under dir out)
  get_property(targets DIRECTORY "${dir}" PROPERTY BUILDSYSTEM_TARGETS)
  get_property(subdirs DIRECTORY "${dir}" PROPERTY SUBDIRECTORIES)
  foreach(sub IN LISTS subdirs)
    _novacat_targets_under("${sub}" sub_targets)
    list(APPEND targets ${sub_targets})
  endforeach()
  set(${out} ${targets} PARENT_SCOPE)
endfunction()

function(_novacat_unity_target target)
  get_target_property(type ${target} TYPE)
  if(NOT type MATCHES "^(EXECUTABLE|STATIC_LIBRARY|SHARED_LIBRARY|MODULE_LIBRARY|OBJECT_LIBRARY)$")
    return()
  endif()
  get_target_property(sources ${target} SOURCES)
  get_target_property(source_dir ${target} SOURCE_DIR)
  get_target_property(binary_dir ${target} BINARY_DIR)
  set(unity_dir "${binary_dir}/CMakeFiles/${target}.dir/NovacatUnity")
  set(merged "")
  set(includes "")
  foreach(source IN LISTS sources)
    if(source MATCHES "\\$<" OR NOT source MATCHES "\\.(cc|cpp|cxx)$")
      continue()
    endif()
    get_filename_component(path "${source}" ABSOLUTE BASE_DIR "${source_dir}")
    file(RELATIVE_PATH include "${unity_dir}" "${path}")
    list(APPEND merged "${path}")
    list(APPEND includes "#include \"${include}\"\n")
  endforeach()
  list(LENGTH merged count)
  if(count EQUAL 0)
    return()
  endif()
  set(unity_sources "")
  math(EXPR last "(${count} - 1) / ${NOVACAT_UNITY_BATCH_SIZE}")
  foreach(index RANGE ${last})
    math(EXPR first "${index} * ${NOVACAT_UNITY_BATCH_SIZE}")
    list(SUBLIST includes ${first} ${NOVACAT_UNITY_BATCH_SIZE} batch)
    string(JOIN "" text ${batch})
    set(file "${unity_dir}/unity_${index}.cc")
    # file(CONFIGURE) writes only when the text changed: a reconfigure
    # rebuilds nothing.
    file(CONFIGURE OUTPUT "${file}" CONTENT
      "// Written by cmake/NovacatUnity.cmake: ${target}'s sources, batch ${index}.\n${text}"
      @ONLY)
    list(APPEND unity_sources "${file}")
  endforeach()
  set_source_files_properties(${merged} TARGET_DIRECTORY ${target}
    PROPERTIES HEADER_FILE_ONLY ON)
  target_sources(${target} PRIVATE ${unity_sources})
endfunction()

function(novacat_unity_build)
  _novacat_targets_under("${PROJECT_SOURCE_DIR}" targets)
  foreach(target IN LISTS targets)
    _novacat_unity_target(${target})
  endforeach()
endfunction()
