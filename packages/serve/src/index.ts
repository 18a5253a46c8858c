export { startServer, buildApp, type ServeOptions, type RunningServer, type BuiltApp } from './server.js';
export { ServerMetrics } from './metrics.js';
export { ModelRegistry, type CreateSession, type InstanceContext, type ServedVersion } from './repository/model-registry.js';
export { scanRepository, MODEL_FILE, type RepositoryModel } from './repository/scan-repository.js';
export { parseModelConfig, CONFIG_FILE, type ModelConfig, type DynamicBatchingConfig, type InstancesConfig } from './repository/model-config.js';
export { ModelScheduler, type SchedulerObserver, type SchedulerOptions } from './scheduling/model-scheduler.js';
export { ModelInstance, isDeviceFailure, type Runner } from './scheduling/model-instance.js';
export { ProtocolError } from './protocol/errors.js';
export { elementTypeOf, datatypeOf, PROTOCOL_DATATYPES } from './protocol/datatypes.js';
