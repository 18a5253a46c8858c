/** The fuzzer's own parts: the protobuf tree round-trips, cases replay from (seed, index), and the driver catches crashes, hangs and memory. */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadModel } from '../../onnx/load-model.js';
import { CONFORMANCE_ROOT, fuzzCase } from './fuzz-case.js';
import { runFuzz } from './driver.js';
import { parseMessage, serializeMessage } from './proto-tree.js';
import { externalDataCase, nestedIfModel } from './hostile-models.js';
import { Random } from '../random-graph/random.js';

const haveConformance = existsSync(CONFORMANCE_ROOT);

describe('fuzz proto tree', () => {
  it.runIf(haveConformance)('parses and re-serialises conformance models byte for byte', () => {
    for (const name of ['test_add', 'test_conv_with_strides_padding', 'test_if', 'test_loop11', 'test_constantofshape_int_zeros']) {
      const file = join(CONFORMANCE_ROOT, name, 'model.onnx');
      const bytes = new Uint8Array(readFileSync(file));
      const tree = parseMessage(bytes, 'Model')!;
      expect(tree.fields.some((f) => f.field === 7 && !(f.value instanceof Uint8Array))).toBe(true);
      expect(Buffer.from(serializeMessage(tree)).equals(Buffer.from(bytes))).toBe(true);
    }
  });

  it('builds hand-made models the loader reads as intended', async () => {
    const deep = await loadModel(nestedIfModel(3));
    expect(deep.graph.nodes[0].opType).toBe('If');
    await expect(loadModel(nestedIfModel(100))).rejects.toMatchObject({ code: 'INVALID_MODEL' });
    // A valid external-data case reads w from the file the case lays out.
    for (let seed = 1; seed < 200; seed++) {
      const c = externalDataCase(new Random(seed), '/nowhere');
      if (c.expected) {
        expect(c.what).toMatch(/^external data at '(w\.bin|link-in\.bin|\.\/w\.bin|sub\/\.\.\/w\.bin)'/);
        return;
      }
    }
    throw new Error('no valid external-data case in 200 seeds');
  });
});

describe.runIf(haveConformance)('fuzz cases', () => {
  it('are a function of (seed, index)', () => {
    for (let i = 0; i < 40; i++) {
      const a = fuzzCase(9, i, '/tmp/x');
      const b = fuzzCase(9, i, '/tmp/x');
      expect(a.what).toBe(b.what);
      expect(Buffer.from(a.model).equals(Buffer.from(b.model))).toBe(true);
    }
    expect(fuzzCase(9, 1, '/tmp/x').what).not.toBe(fuzzCase(10, 1, '/tmp/x').what);
  });
});

/** A stand-in worker: case 3 aborts the process, case 5 never ends, case 7 grows its memory; the rest pass. */
const FAKE_WORKER = `
const { writeSync } = require('node:fs');
const from = Number(process.env.FUZZ_FROM), to = Number(process.env.FUZZ_TO);
const hold = [];
for (let i = from; i < to; i++) {
  writeSync(1, 'start ' + i + '\\n');
  if (i === 3) process.abort();
  if (i === 5) { const until = Date.now() + 60000; while (Date.now() < until); }
  if (i === 7) for (;;) hold.push(Buffer.alloc(16 << 20, 1));
  writeSync(1, 'done ' + i + ' ' + (i % 2 ? 'ok - ' : 'error INVALID_MODEL ') + '1.0 fake ""\\n');
}
writeSync(1, 'finished\\n');
`;

describe('fuzz driver', () => {
  it('names the case of a crash, a hang and a memory blow-up, and carries on after each', async () => {
    const summary = await runFuzz({
      worker: [process.execPath, '-e', FAKE_WORKER],
      seed: 1,
      cases: 10,
      workers: 1,
      // Page faults can be slow on a shared VM (tens of MB/s): the memory case gets time to grow.
      caseTimeoutMs: 5_000,
      memoryLimitBytes: 150 * 1024 ** 2,
    });
    expect(summary.failures.map((f) => [f.index, f.code])).toEqual([
      [3, 'crash'],
      [5, 'hang'],
      [7, 'memory'],
    ]);
    expect(summary.cases).toBe(10);
    expect(summary.ok + (summary.errors.INVALID_MODEL ?? 0)).toBe(7);
    expect(summary.workerStarts).toBe(4);
  }, 60_000);
});
