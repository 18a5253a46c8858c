/**
 * The Open Inference Protocol's REST endpoints: health, server and model metadata, model
 * readiness and inference, each model route with and without `/versions/<version>`.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ServerMetrics } from '../metrics.js';
import { datatypeOf } from '../protocol/datatypes.js';
import { ProtocolError, badRequest, unavailable } from '../protocol/errors.js';
import { BINARY_HEADER, parseInferRequest } from '../protocol/infer-request.js';
import { encodeInferResponse } from '../protocol/infer-response.js';
import { isFixedDim, type TensorSpec } from '../protocol/signature.js';
import { isReady, type ModelRegistry, type ServedVersion } from '../repository/model-registry.js';

export const SERVER_NAME = 'switchyard';
export const SERVER_VERSION = '0.1.0';
export const EXTENSIONS = ['binary_tensor_data'];
export const PLATFORM = 'switchyard_onnx';

type ModelParams = { model: string; version?: string };

export interface RouteContext {
  registry: ModelRegistry;
  metrics: ServerMetrics;
  maxConcurrentRequests: number;
}

function tensorMetadata(spec: TensorSpec) {
  return { name: spec.name, datatype: datatypeOf(spec.type) ?? spec.type, shape: (spec.shape ?? []).map((d) => (isFixedDim(d) ? d : -1)) };
}

/** Health, server metadata and the model routes that only read. */
export function registerReadRoutes(app: FastifyInstance, { registry }: RouteContext): void {
  app.get('/v2/health/live', async () => ({ live: true }));
  app.get('/v2/health/ready', async (_req, reply) => {
    if (!registry.ready) throw badRequest('not ready: some model versions have no healthy instance');
    return reply.send({ ready: true });
  });
  app.get('/v2', async () => ({ name: SERVER_NAME, version: SERVER_VERSION, extensions: EXTENSIONS }));

  const metadata = async (req: FastifyRequest<{ Params: ModelParams }>) => {
    const served = registry.get(req.params.model, req.params.version);
    if (!served.signature) throw new ProtocolError(503, `model '${served.model}' version ${served.version} is unavailable: ${served.loadError}`);
    return {
      name: served.model,
      versions: registry.versionsOf(served.model),
      platform: PLATFORM,
      inputs: served.signature.inputs.map(tensorMetadata),
      outputs: served.signature.outputs.map(tensorMetadata),
    };
  };
  app.get('/v2/models/:model', metadata);
  app.get('/v2/models/:model/versions/:version', metadata);

  const ready = async (req: FastifyRequest<{ Params: ModelParams }>) => {
    const served = registry.get(req.params.model, req.params.version);
    if (!isReady(served)) throw badRequest(`model '${served.model}' version ${served.version} is not ready: ${served.loadError ?? 'no healthy instance is left'}`);
    return { name: served.model, version: served.version, ready: true };
  };
  app.get('/v2/models/:model/ready', ready);
  app.get('/v2/models/:model/versions/:version/ready', ready);
}

/** The infer routes. Their bodies arrive as raw bytes: JSON, or JSON plus the binary section. */
export function registerInferRoutes(app: FastifyInstance, ctx: RouteContext): void {
  let inFlight = 0;
  const infer = async (req: FastifyRequest<{ Params: ModelParams }>, reply: FastifyReply) => {
    const started = performance.now();
    const served = ctx.registry.get(req.params.model, req.params.version);
    if (inFlight >= ctx.maxConcurrentRequests) throw unavailable(`the server is handling ${ctx.maxConcurrentRequests} requests, its limit; retry later`);
    inFlight++;
    ctx.metrics.inFlight.set(inFlight);
    try {
      const body = await answer(served, req);
      ctx.metrics.latency.observe({ model: served.model, version: served.version }, (performance.now() - started) / 1000);
      reply.header('content-type', body.contentType);
      if (body.headerLength !== undefined) reply.header('inference-header-content-length', String(body.headerLength));
      return reply.send(body.body);
    } finally {
      inFlight--;
      ctx.metrics.inFlight.set(inFlight);
    }
  };
  app.post('/v2/models/:model/infer', infer);
  app.post('/v2/models/:model/versions/:version/infer', infer);
}

async function answer(served: ServedVersion, req: FastifyRequest) {
  if (!served.signature || !served.scheduler) throw unavailable(`model '${served.model}' version ${served.version} is unavailable: ${served.loadError}`);
  const body = req.body;
  if (!Buffer.isBuffer(body) || body.byteLength === 0) throw badRequest('the request has no body; send an inference request object');
  const header = req.headers[BINARY_HEADER];
  const request = parseInferRequest(body, Array.isArray(header) ? header[0] : header, served.signature);
  const results = await served.scheduler.submit(request.inputs);
  return encodeInferResponse({ modelName: served.model, modelVersion: served.version, id: request.id }, request.outputs, results);
}
