// GPU test: the cublasLt GEMM choice cache. A process that prepares a GEMM (the plans' path, through
// blasPreparedGemm) times the candidates once and appends its choice to a file in the algorithm
// cache folder; a second process reads every choice from that file and searches nothing; damaged or
// stale lines are ignored (a search instead, results still right); SWITCHYARD_GEMM_SEARCH=0 neither
// reads nor writes the file. Skips without a device, a BLAS library, or cublasLt (AMD: no search).
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { GEMM_CACHE_PROBLEMS, runCacheProblem } from './lib/gemm-cache-child.mjs';
import { gpu, skip } from './lib/runtime-harness.mjs';

const CHILD = fileURLToPath(new URL('./lib/gemm-cache-child.mjs', import.meta.url));
const N = GEMM_CACHE_PROBLEMS.length;
const LINE = /^[^\t]+\t(gemmex|[0-9a-f]{128})\t\d+\t[^\t]+$/;

function whySkip() {
  if (skip) return skip;
  const info = gpu.binding.blasInfo();
  if (!info.available) return info.reason;
  if (info.backend !== 'cuBLAS') return `${info.backend} has no GEMM algorithm search`;
  if (process.env.SWITCHYARD_GEMM_SEARCH === '0') return 'SWITCHYARD_GEMM_SEARCH=0 in this environment';
  // Built without cublasLt, PrepareGemm keeps cublasGemmEx without a search: nothing is cached.
  const before = gpu.binding.dnnAlgoCacheStats('gemm').searches;
  runCacheProblem(3, '-');
  return gpu.binding.dnnAlgoCacheStats('gemm').searches > before ? false : 'built without cublasLt (no GEMM search)';
}
const cacheSkip = whySkip();

/** Runs every problem in a fresh process with the cache in `dir`; returns the child's report. */
function runChild(dir, env = {}) {
  const out = execFileSync(process.execPath, [CHILD, dir], { encoding: 'utf8', env: { ...process.env, ...env } });
  return JSON.parse(out.trim().split('\n').pop());
}

function assertCorrect(report, what) {
  report.results.forEach((r, i) => assert.ok(r.error <= 1, `${what}: problem ${JSON.stringify(GEMM_CACHE_PROBLEMS[i])} off by ${r.error}x the tolerance (${r.choice})`));
}

const cacheLines = (file) => readFileSync(file, 'utf8').split('\n').filter((l) => l !== '');

describe('GEMM choice cache', { skip: cacheSkip }, () => {
  const dir = cacheSkip ? '' : mkdtempSync(join(tmpdir(), 'sy-gemm-algos-'));
  let first;

  it('is written by the first process and read by the second without a search', () => {
    first = runChild(dir);
    assertCorrect(first, 'first process');
    assert.equal(first.stats.searches, N, 'the first process searches every problem');
    assert.equal(first.stats.diskHits, 0);
    assert.ok(existsSync(first.stats.file), `cache file ${first.stats.file}`);
    assert.match(basename(first.stats.file), /^sm_\d+-.+-cublaslt\d+\.txt$/, 'named by device arch and cublasLt version');
    const lines = cacheLines(first.stats.file);
    assert.equal(lines.length, N);
    for (const line of lines) assert.match(line, LINE);
    // At least one answer must be a cublasLt algorithm, so that its serialized form is what the second process runs.
    assert.ok(lines.some((l) => !l.split('\t')[1].startsWith('gemmex')), `no cublasLt choice among:\n${lines.join('\n')}`);
    assert.ok(first.results.some((r) => r.choice.startsWith('cublasLt')));

    const second = runChild(dir);
    assertCorrect(second, 'second process');
    assert.equal(second.stats.searches, 0, 'the second process does not search');
    assert.equal(second.stats.diskHits, N);
    assert.equal(second.stats.file, first.stats.file);
    second.results.forEach((r, i) => {
      assert.equal(r.choice, `${first.results[i].choice} (cached)`);
      assert.equal(r.biasFused, first.results[i].biasFused);
    });
    assert.equal(cacheLines(first.stats.file).length, N, 'nothing appended');
  });

  it('ignores damaged and stale lines: searches again, results stay right, new answers win', () => {
    assert.ok(first, 'needs the first test');
    const damagedDir = join(dir, 'damaged');
    mkdirSync(damagedDir);
    const file = join(damagedDir, basename(first.stats.file));
    const damaged = ['garbage', 'no\ttabs enough', '\t\t\t', ''];
    for (const line of cacheLines(first.stats.file)) {
      const [key, algo, workspace, text] = line.split('\t');
      const hex = algo === 'gemmex' ? '0'.repeat(128) : algo;
      damaged.push(
        [key, hex.slice(0, 100), workspace, text].join('\t'), // truncated
        [key, 'zz' + hex.slice(2), workspace, text].join('\t'), // not hex
        [key, hex, '-5', text].join('\t'), // bad workspace
        [key, hex, workspace].join('\t'), // no text
        [key, 'f'.repeat(128), workspace, 'a stale algorithm'].join('\t'), // well formed, last: cublasLt must reject it
      );
    }
    writeFileSync(file, damaged.join('\n') + '\n');
    const third = runChild(damagedDir);
    assertCorrect(third, 'process on damaged lines');
    assert.equal(third.stats.searches, N, 'every problem searched again');
    assert.equal(third.stats.diskHits, N, 'only the well-formed stale lines were taken from the file (then rejected)');
    for (const r of third.results) assert.ok(!r.choice.endsWith('(cached)'), r.choice);
    // The fresh answers were appended after the damage and win in the next process.
    const fourth = runChild(damagedDir);
    assertCorrect(fourth, 'process after the repair');
    assert.equal(fourth.stats.searches, 0);
    for (const r of fourth.results) assert.ok(r.choice.endsWith('(cached)'), r.choice);
  });

  it('SWITCHYARD_GEMM_SEARCH=0 neither reads nor writes the cache', () => {
    assert.ok(first, 'needs the first test');
    const before = readFileSync(first.stats.file, 'utf8');
    const off = runChild(dir, { SWITCHYARD_GEMM_SEARCH: '0' });
    assertCorrect(off, 'search off');
    assert.deepEqual([off.stats.searches, off.stats.diskHits, off.stats.memoryHits], [0, 0, 0]);
    for (const r of off.results) assert.deepEqual([r.choice, r.biasFused], ['cublasGemmEx', false]);
    assert.equal(readFileSync(first.stats.file, 'utf8'), before);
  });

  it('memory only ("-"): a second preparation in the process reuses the choice', () => {
    const before = gpu.binding.dnnAlgoCacheStats('gemm');
    const a = runCacheProblem(1, '-');
    const b = runCacheProblem(1, '-');
    const after = gpu.binding.dnnAlgoCacheStats('gemm');
    assert.ok(a.error <= 1 && b.error <= 1, `errors ${a.error}, ${b.error}`);
    assert.equal(after.searches - before.searches, 1);
    assert.equal(after.memoryHits - before.memoryHits, 1);
    assert.equal(b.choice, a.choice);
  });
});
