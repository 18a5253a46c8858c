/** Test helpers: a model repository made of the repo's real models, and a small HTTP client. */
import { mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { registerExecutionProvider } from '@switchyard/core';
import { executionProviderFactory as cpu } from '@switchyard/ep-cpu';

export const REPO_ROOT = fileURLToPath(new URL('../../../../', import.meta.url));
export const TINY_CNN = join(REPO_ROOT, 'examples/models/tiny-cnn.onnx');
export const SQUEEZENET = join(REPO_ROOT, 'models/squeezenet1_1/model.onnx');
export const LSTM2 = join(REPO_ROOT, 'models/lstm2/model.onnx');

export function registerCpu(): void {
  registerExecutionProvider(cpu);
}

/** A repository in a temporary folder: `{ name: { versions: { '1': file }, config? } }`. */
export function makeRepository(models: Record<string, { versions: Record<string, string>; config?: unknown }>): string {
  const root = mkdtempSync(join(tmpdir(), 'sy-serve-'));
  for (const [name, m] of Object.entries(models)) {
    for (const [version, file] of Object.entries(m.versions)) {
      mkdirSync(join(root, name, version), { recursive: true });
      symlinkSync(file, join(root, name, version, 'model.onnx'));
    }
    if (m.config !== undefined) writeFileSync(join(root, name, 'config.json'), typeof m.config === 'string' ? m.config : JSON.stringify(m.config));
  }
  return root;
}

export interface Reply {
  status: number;
  headers: Headers;
  body: Buffer;
  json: () => Record<string, unknown>;
}

export async function request(url: string, init?: RequestInit): Promise<Reply> {
  const res = await fetch(url, init);
  const body = Buffer.from(await res.arrayBuffer());
  return { status: res.status, headers: res.headers, body, json: () => JSON.parse(body.toString('utf8')) as Record<string, unknown> };
}

export function postJson(url: string, value: unknown): Promise<Reply> {
  return request(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(value) });
}

/** Deterministic pseudo-random floats in [-1, 1). */
export function seededFloats(n: number, seed: number): Float32Array {
  const out = new Float32Array(n);
  let s = seed >>> 0 || 1;
  for (let i = 0; i < n; i++) {
    s ^= s << 13;
    s ^= s >>> 17;
    s ^= s << 5;
    out[i] = ((s >>> 0) / 2 ** 32) * 2 - 1;
  }
  return out;
}

/** Splits a binary-extension response into its JSON head and binary tail. */
export function splitBinaryReply(reply: Reply): { head: Record<string, unknown>; tail: Buffer } {
  const n = Number(reply.headers.get('inference-header-content-length'));
  return { head: JSON.parse(reply.body.subarray(0, n).toString('utf8')) as Record<string, unknown>, tail: reply.body.subarray(n) };
}
