/**
 * Copies of the real models at a newer opset, made by the version converter of the pinned onnx wheel
 * that scripts/setup.sh installs for the ONNX 1.23.1 suite (.cache/onnx-1.23.1/venv), saved at that
 * onnx's IR version: the form in which current exporters and tools hand models over.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, renameSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const REPO = fileURLToPath(new URL('../../../../', import.meta.url));
const VENV_PYTHON = join(REPO, '.cache/onnx-1.23.1/venv/bin/python');
const CONVERTER = join(REPO, 'scripts/onnx-suite/convert-opset.py');
const OUT_DIR = join(REPO, '.cache/opset-converted');

/** Why copies cannot be made here, or undefined when they can. */
export function converterUnavailable(): string | undefined {
  if (!existsSync(VENV_PYTHON)) return `${VENV_PYTHON} is missing (scripts/setup.sh makes it; it needs the onnx==1.23.1 wheel)`;
  return undefined;
}

/**
 * The path of `name`'s copy at `opset`, converted from `source` when missing or older than it.
 * Throws with the converter's output when it fails.
 */
export function convertedCopy(name: string, source: string, opset: number): string {
  mkdirSync(OUT_DIR, { recursive: true });
  const out = join(OUT_DIR, `${name}.opset${opset}.onnx`);
  if (existsSync(out) && statSync(out).mtimeMs >= statSync(source).mtimeMs) return out;
  const partial = `${out}.partial-${process.pid}`;
  const run = spawnSync(VENV_PYTHON, [CONVERTER, source, partial, String(opset)], { encoding: 'utf8', maxBuffer: 16 << 20 });
  if (run.status !== 0) throw new Error(`convert-opset.py ${name} → opset ${opset} failed (${run.error?.message ?? `exit ${run.status}`}):\n${run.stderr}`);
  renameSync(partial, out);
  return out;
}
