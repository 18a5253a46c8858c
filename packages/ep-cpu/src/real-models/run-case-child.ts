/**
 * Runs one model case on the CPU EP in a process of its own, so that the test can bound it with a
 * timeout: a TypeScript kernel holds the event loop for as long as it runs, which an in-process
 * test timeout cannot interrupt (the run would go on, slowing every later test). Started by
 * `runCaseBounded` (bounded-run.ts) through tsx, which maps @switchyard/* to the sources as vitest does.
 *
 * argv: <request.json>; the request names the model, level and input files, and a folder for the
 * outputs: `outputs.json` ({name: {type, dims, file}}) and each output's raw little-endian data.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { InferenceSession, Tensor, registerExecutionProvider, type GraphOptimizationLevel } from '@switchyard/core';
import { executionProviderFactory } from '../index.js';
import { readNpy } from './npy.js';

export interface ChildRequest {
  model: string;
  level: GraphOptimizationLevel;
  inputs: Record<string, string>;
  outDir: string;
}

const request = JSON.parse(readFileSync(process.argv[2], 'utf8')) as ChildRequest;
registerExecutionProvider(executionProviderFactory);
const session = await InferenceSession.create(request.model, {
  executionProviders: ['cpu'],
  graphOptimizationLevel: request.level,
  logSeverityLevel: 3,
});
const feeds = Object.fromEntries(Object.entries(request.inputs).map(([name, file]) => [name, readNpy(file)]));
const outputs = await session.run(feeds);
const meta: Record<string, { type: string; dims: readonly number[]; file: string }> = {};
for (const [i, [name, value]] of Object.entries(outputs).entries()) {
  if (!(value instanceof Tensor)) throw new Error(`output ${name} is not a tensor`);
  const tensor = value;
  const data = tensor.data as ArrayBufferView;
  const file = `output-${i}.bin`;
  writeFileSync(join(request.outDir, file), new Uint8Array(data.buffer, data.byteOffset, data.byteLength));
  meta[name] = { type: tensor.type, dims: tensor.dims, file };
}
writeFileSync(join(request.outDir, 'outputs.json'), JSON.stringify(meta));
await session.release();
