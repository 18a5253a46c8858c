# The native toolkit shared by Switchyard's addons (ep-cpu, ep-migraphx, native-hip): coded errors,
# argument readers, the promise worker and its native queue. An addon's CMakeLists finds this file
# through Node's resolution of @switchyard/native-toolkit (a dependency of the addon's package), so it
# works the same in the workspace, in an npm install and with plain cmake (scripts/gpu-host/run.sh):
#
#   include(${SWITCHYARD_NATIVE_TOOLKIT}/cmake/switchyard-native-toolkit.cmake)
#   switchyard_use_native_toolkit(my_addon)
#
# The sources are compiled into each addon (with its own NAPI_* definitions), not shared as a library:
# every addon keeps its own copy, hidden by its visibility preset.
get_filename_component(SWITCHYARD_NATIVE_TOOLKIT_ROOT "${CMAKE_CURRENT_LIST_DIR}/.." ABSOLUTE)

function(switchyard_use_native_toolkit target)
  target_sources(${target} PRIVATE
    ${SWITCHYARD_NATIVE_TOOLKIT_ROOT}/native/errors.cc
    ${SWITCHYARD_NATIVE_TOOLKIT_ROOT}/native/js_args.cc
    ${SWITCHYARD_NATIVE_TOOLKIT_ROOT}/native/native_queue.cc)
  target_include_directories(${target} PRIVATE ${SWITCHYARD_NATIVE_TOOLKIT_ROOT}/include)
endfunction()
