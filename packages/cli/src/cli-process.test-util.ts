/** Runs the built `switchyard` command in a real process (setup builds packages/cli/dist before tests). */
import { execFile, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const run = promisify(execFile);
export const repo = fileURLToPath(new URL('../../../', import.meta.url));
export const bin = join(repo, 'packages/cli/dist/bin.js');
export const hasBuiltCli = existsSync(bin);
export const tinyCnn = join(repo, 'examples/models/tiny-cnn.onnx');
export const tinyCnnInput = join(repo, 'examples/models/tiny-cnn.input.npy');
export const tinyCnnExpected = join(repo, 'examples/models/tiny-cnn.expected.npy');
export const squeezenet = join(repo, 'models/squeezenet1_1/model.onnx');
export const wrongReluEp = join(repo, 'packages/cli/src/fixtures/wrong-relu-ep.mjs');
/**
 * ResNet-50 (models/generate.py, seeded weights, symbolic batch), written on first use like the CPU EP's
 * real-model tests do: it is too large for the repository. Throws with generate.py's output if it fails.
 */
export function resnet50(): string {
  const file = join(repo, 'models/generated/resnet50/model.onnx');
  if (existsSync(file)) return file;
  const r = spawnSync('/usr/bin/python3', [join(repo, 'models/generate.py'), '--only', 'resnet50'], { cwd: repo, encoding: 'utf8', maxBuffer: 16 << 20 });
  if (r.status !== 0 || !existsSync(file)) throw new Error(`models/generate.py --only resnet50 failed (${r.error?.message ?? `exit ${r.status}`}):\n${r.stderr}`);
  return file;
}
export const backendNode = (name: string) => `/usr/share/libonnx-testdata/data/node/${name}/model.onnx`;

export async function cli(args: string[], timeout = 180_000): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(process.execPath, [bin, ...args], { cwd: repo, timeout, maxBuffer: 64 << 20 });
    return { code: 0, stdout, stderr };
  } catch (err) {
    const e = err as { code?: number; stdout?: string; stderr?: string };
    return { code: typeof e.code === 'number' ? e.code : -1, stdout: e.stdout ?? '', stderr: e.stderr ?? '' };
  }
}
export const mockDeviceEp = join(repo, 'packages/cli/src/fixtures/mock-device-ep.mjs');
