/**
 * Prometheus metrics of one server, in a registry of its own (two servers in one process do not
 * share counters): requests by outcome, latency, queue depth, batch sizes, instances, and where
 * each model's nodes were placed.
 */
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { SchedulerObserver } from './scheduling/model-scheduler.js';

export class ServerMetrics {
  readonly registry = new Registry();
  readonly requests = new Counter({
    name: 'switchyard_requests_total',
    help: 'HTTP requests answered, by route, model and status code',
    labelNames: ['route', 'model', 'version', 'status'] as const,
    registers: [this.registry],
  });
  readonly latency = new Histogram({
    name: 'switchyard_infer_duration_seconds',
    help: 'Time from an inference request arriving to its response being ready (queueing included)',
    labelNames: ['model', 'version'] as const,
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [this.registry],
  });
  readonly queueDepth = new Gauge({
    name: 'switchyard_queue_depth',
    help: 'Requests waiting for an instance',
    labelNames: ['model', 'version'] as const,
    registers: [this.registry],
  });
  readonly batchSize = new Histogram({
    name: 'switchyard_batch_size',
    help: 'Rows along the batch dimension per model run (1 when batching is off)',
    labelNames: ['model', 'version'] as const,
    buckets: [1, 2, 4, 8, 16, 32, 64, 128],
    registers: [this.registry],
  });
  readonly stackedRequests = new Counter({
    name: 'switchyard_stacked_requests_total',
    help: 'Requests that ran stacked with at least one other request',
    labelNames: ['model', 'version'] as const,
    registers: [this.registry],
  });
  readonly instances = new Gauge({
    name: 'switchyard_instances',
    help: 'Instances (sessions) per model version, by state (healthy, failed)',
    labelNames: ['model', 'version', 'state'] as const,
    registers: [this.registry],
  });
  readonly placedNodes = new Gauge({
    name: 'switchyard_placement_nodes',
    help: 'Graph nodes each execution provider runs, per model version (one instance)',
    labelNames: ['model', 'version', 'ep'] as const,
    registers: [this.registry],
  });
  readonly arenaBytes = new Gauge({
    name: 'switchyard_arena_bytes',
    help: 'Planned host arena for intermediate values, per instance',
    labelNames: ['model', 'version'] as const,
    registers: [this.registry],
  });
  readonly inFlight = new Gauge({
    name: 'switchyard_inflight_requests',
    help: 'Inference requests being handled (queued or running)',
    registers: [this.registry],
  });

  constructor(options: { processMetrics?: boolean } = {}) {
    // Process metrics (RSS, heap, event-loop lag) are global state: only the server that asks gets them.
    if (options.processMetrics) collectDefaultMetrics({ register: this.registry });
  }

  /** The observer one model version's scheduler reports to. */
  observerFor(model: string, version: string, instances: () => { healthy: number; failed: number }): SchedulerObserver {
    const labels = { model, version };
    const report = (): void => {
      const { healthy, failed } = instances();
      this.instances.set({ ...labels, state: 'healthy' }, healthy);
      this.instances.set({ ...labels, state: 'failed' }, failed);
    };
    report();
    return {
      queueDepth: (depth) => this.queueDepth.set(labels, depth),
      batchRun: (rows, requests) => {
        this.batchSize.observe(labels, rows);
        if (requests > 1) this.stackedRequests.inc(labels, requests);
      },
      instancesChanged: report,
    };
  }
}
