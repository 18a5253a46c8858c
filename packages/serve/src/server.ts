/**
 * `startServer`: a fastify app serving a model repository over the Open Inference Protocol, with
 * limits (body size, requests in flight, per-model queue length) and a shutdown that answers every
 * request already accepted before the sessions are released.
 */
import Fastify, { type FastifyError, type FastifyInstance } from 'fastify';
import type { ExecutionProviderOption } from '@switchyard/core';
import { ServerMetrics } from './metrics.js';
import { ProtocolError } from './protocol/errors.js';
import { ModelRegistry, type CreateSession } from './repository/model-registry.js';
import { registerInferRoutes, registerReadRoutes } from './http/routes.js';

export interface ServeOptions {
  /** The model repository: `<repository>/<model>/<version>/model.onnx`. */
  repository: string;
  /** Default 127.0.0.1: only this machine. Use 0.0.0.0 in a container. */
  host?: string;
  /** Default 8000; 0 picks a free port. */
  port?: number;
  /** EPs for models whose config names none. Default: every registered EP, then CPU. */
  defaultExecutionProviders?: ReadonlyArray<string | ExecutionProviderOption>;
  /** Largest request body, in bytes. Default 64 MiB. */
  bodyLimitBytes?: number;
  /** Inference requests handled at once (queued or running), over all models; more get 503. Default 512. */
  maxConcurrentRequests?: number;
  /** Adds Node's process metrics (RSS, heap, event-loop lag) to /metrics. Default true. */
  processMetrics?: boolean;
  /** Makes each instance's session (tests inject faults through it). */
  createSession?: CreateSession;
  /** Where log lines go. Default: nowhere. */
  log?: (line: string) => void;
}

export interface RunningServer {
  /** `http://host:port`. */
  url: string;
  port: number;
  registry: ModelRegistry;
  metrics: ServerMetrics;
  /** Stops accepting, answers what was accepted, then releases every session. */
  close(): Promise<void>;
}

const RUN_ERROR_STATUS: Record<string, number> = { INVALID_ARGUMENT: 400, INVALID_SHAPE: 400, RELEASED: 503 };

function statusOf(err: unknown): number {
  if (err instanceof ProtocolError) return err.status;
  const e = err as { name?: string; code?: string; statusCode?: number };
  if (e?.name === 'SwitchyardError' && e.code) return RUN_ERROR_STATUS[e.code] ?? 500;
  if (typeof e?.statusCode === 'number' && e.statusCode >= 400 && e.statusCode < 600) return e.statusCode;
  return 500;
}

export interface BuiltApp {
  app: FastifyInstance;
  registry: ModelRegistry;
  metrics: ServerMetrics;
  /** Stops new requests, answers the accepted ones, closes every connection, releases the sessions. */
  shutdown(): Promise<void>;
}

export async function buildApp(options: ServeOptions): Promise<BuiltApp> {
  const metrics = new ServerMetrics({ processMetrics: options.processMetrics ?? true });
  const registry = await ModelRegistry.load(options.repository, {
    defaultExecutionProviders: options.defaultExecutionProviders,
    createSession: options.createSession,
    metrics,
    log: options.log,
  });
  const app = Fastify({ logger: false, bodyLimit: options.bodyLimitBytes ?? 64 * 1024 * 1024, return503OnClosing: true });

  app.setErrorHandler((err: FastifyError | ProtocolError, req, reply) => {
    const status = statusOf(err);
    if (status >= 500 && !(err instanceof ProtocolError)) options.log?.(`${req.method} ${req.url}: ${err.stack ?? err.message}`);
    void reply.status(status).header('content-type', 'application/json').send(JSON.stringify({ error: err.message }));
  });
  app.setNotFoundHandler((req, reply) => {
    void reply.status(404).header('content-type', 'application/json').send(JSON.stringify({ error: `no endpoint ${req.method} ${req.url.split('?')[0]}` }));
  });
  let closing = false;
  // A keep-alive connection that is busy when close() starts would otherwise stay open (and keep
  // close() waiting) until its idle timeout: answers sent while closing end their connection.
  app.addHook('onSend', async (_req, reply, payload) => {
    if (closing) reply.header('connection', 'close');
    return payload;
  });
  app.addHook('onResponse', async (req, reply) => {
    const params = (req.params ?? {}) as { model?: string; version?: string };
    metrics.requests.inc({ route: req.routeOptions.url ?? 'unknown', model: params.model ?? '', version: params.version ?? '', status: String(reply.statusCode) });
  });

  const ctx = { registry, metrics, maxConcurrentRequests: options.maxConcurrentRequests ?? 512 };
  registerReadRoutes(app, ctx);
  app.get('/metrics', async (_req, reply) => reply.header('content-type', metrics.registry.contentType).send(await metrics.registry.metrics()));
  // Infer bodies are bytes whatever their content type: the binary extension puts JSON and tensors in one body.
  await app.register(async (scope) => {
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', { parseAs: 'buffer' }, (_req, body, done) => done(null, body));
    registerInferRoutes(scope, ctx);
  });
  const shutdown = async (): Promise<void> => {
    closing = true;
    // fastify stops accepting and waits for the requests it has, while the queues stop waiting for
    // batches to fill (a request in a batch window would otherwise hold close() for the whole window).
    await Promise.all([app.close(), registry.drain()]);
    await registry.release();
  };
  return { app, registry, metrics, shutdown };
}

/** Loads the repository and listens. */
export async function startServer(options: ServeOptions): Promise<RunningServer> {
  const { app, registry, metrics, shutdown } = await buildApp(options);
  const host = options.host ?? '127.0.0.1';
  try {
    await app.listen({ host, port: options.port ?? 8000 });
  } catch (err) {
    await registry.release();
    throw err;
  }
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : (options.port ?? 8000);
  let closing: Promise<void> | undefined;
  return {
    url: `http://${host.includes(':') ? `[${host}]` : host}:${port}`,
    port,
    registry,
    metrics,
    close: () => (closing ??= shutdown()),
  };
}
