/**
 * The two halves of a hostile-args test. The child process makes the calls and prints, per call, `S <id>`
 * before it and `R <json>` after, ending with `DONE <count>`; the parent (a vitest test) runs the child and
 * reads that, so a crash is the test failing with the call that was running and the child's stderr (an
 * AddressSanitizer report under scripts/sanitize.sh), not vitest dying.
 */
import { spawn } from 'node:child_process';
import type { HostileCall } from './hostile-values.js';

/** The codes an addon's errors may carry; `pattern` admits a family (the GPU runtime's status names). */
export interface CodeRule {
  codes: ReadonlySet<string>;
  pattern?: RegExp;
}

/** Why the outcome breaks the call's rule, or undefined when it keeps it. */
export function judgeOutcome(call: HostileCall, error: unknown, threw: boolean, rule: CodeRule): string | undefined {
  if (!threw) return call.expect === 'throw' ? 'returned normally; expected a coded error' : undefined;
  const code = (error as { code?: unknown } | null)?.code;
  const message = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
  if (call.expect === 'ok') return `threw ${message}`;
  if (call.receiver && error instanceof TypeError && error.message === 'Illegal invocation' && code === undefined) return undefined;
  const known = typeof code === 'string' && (rule.codes.has(code) || (rule.pattern?.test(code) ?? false));
  if (!(error instanceof Error) || !known) return `threw an uncoded ${message} (code ${String(code)})`;
  if (call.code !== undefined && code !== call.code) return `threw ${code} (${message}); expected ${call.code}`;
  return undefined;
}

function print(line: string): void {
  process.stdout.write(`${line}\n`);
}

/** The child's loop: every call in order, `missing` reported as failures first. */
export async function runHostileCalls(calls: readonly HostileCall[], missing: readonly string[], rule: CodeRule): Promise<void> {
  for (const m of missing) print(`R ${JSON.stringify({ id: 'exports', failure: m })}`);
  for (const call of calls) {
    print(`S ${call.id}`);
    let threw = false;
    let error: unknown;
    try {
      const result = call.call();
      if (result instanceof Promise) await result;
    } catch (e) {
      threw = true;
      error = e;
    }
    const failure = judgeOutcome(call, error, threw, rule);
    const code = threw ? (error as { code?: unknown } | null)?.code : undefined;
    print(`R ${JSON.stringify({ id: call.id, expect: call.expect, threw, code: typeof code === 'string' ? code : undefined, failure })}`);
  }
  print(`DONE ${calls.length}`);
}

export interface HostileReport {
  /** Calls made (from `DONE`). */
  count: number;
  /** `<id>: <why>` per call that broke its rule. */
  failures: string[];
  /** How many calls threw each code. */
  byCode: Record<string, number>;
}

/**
 * Runs the child (`node --import tsx <worker>` in `cwd`) and reads its report. Throws when the child died
 * before `DONE`, naming the call it was in and the end of its stderr.
 */
export async function runHostileWorker(worker: string, cwd: string, env: NodeJS.ProcessEnv = process.env): Promise<HostileReport> {
  const { stdout, stderr, code, signal } = await new Promise<{ stdout: string; stderr: string; code: number | null; signal: NodeJS.Signals | null }>((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', worker], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    child.on('error', reject);
    child.on('close', (c, s) => resolve({ stdout: out, stderr: err, code: c, signal: s }));
  });
  const lines = stdout.split('\n').filter((l) => l.length > 0);
  const last = lines.at(-1) ?? '';
  if (!last.startsWith('DONE ')) {
    const running = [...lines].reverse().find((l) => l.startsWith('S '));
    throw new Error(`the child died (exit ${code}, signal ${signal}) during: ${running?.slice(2) ?? '(before the first call)'}\n${stderr.slice(-6000)}`);
  }
  const results = lines.filter((l) => l.startsWith('R ')).map((l) => JSON.parse(l.slice(2)) as { id: string; failure?: string; code?: string });
  const byCode: Record<string, number> = {};
  for (const r of results) if (r.code) byCode[r.code] = (byCode[r.code] ?? 0) + 1;
  return { count: Number(last.slice(5)), failures: results.filter((r) => r.failure !== undefined).map((r) => `${r.id}: ${r.failure}`), byCode };
}
