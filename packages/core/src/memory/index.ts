/** Memory planning: liveness-based buffer reuse, one arena per device. */
export {
  planMemory,
  DEFAULT_ALIGNMENT,
  type MemoryPlan,
  type MemoryPlanOptions,
  type MemorySlot,
  type DeviceMemoryPlan,
} from './plan-memory.js';
export { valueLifetimes, type ValueLifetime } from './lifetimes.js';
export { assignOffsets, type OffsetRequest, type OffsetAssignment } from './best-fit.js';
