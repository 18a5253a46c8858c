export { MigraphxExecutionProvider, executionProviderFactory, type MigraphxInitOptions } from './migraphx-provider.js';
export {
  resolveMigraphxOptions,
  migraphxOptionDefaults,
  type MigraphxProviderOptions,
  type ResolvedMigraphxOptions,
  type MigraphxTarget,
} from './migraphx-options.js';
export { probeMigraphx, libraryCandidates, LIBRARY_ENV, type MigraphxProbe } from './migraphx-library.js';
export { STATIC_MIGRAPHX_ONNX_OPERATORS, migraphxOperators } from './static-op-table.js';
export type { MigraphxLibraryReport, LibraryAttempt, MigraphxNativeBinding } from './native/binding.js';
export { loadMigraphxAddon, migraphxAddon, BUILD_COMMAND } from './native/load-native.js';
