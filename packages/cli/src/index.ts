export { parseNpy, readNpy } from './npy.js';
export { registerBundledProviders, parseEpList, DEFAULT_EPS } from './providers.js';
