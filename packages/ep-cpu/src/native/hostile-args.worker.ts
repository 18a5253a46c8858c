/**
 * Child process of hostile-args.test.ts: makes every hostile call on the addon (SWITCHYARD_CPU_ADDON, else
 * the local build) and prints, per call, `S <id>` before it and `R <json>` after, so that the parent can
 * name the call during which the process died. Ends with `DONE <count>`.
 */
import { hostileCalls, type HostileCall } from './hostile-args.calls.js';
import { loadNative } from './load-native.js';

/** The codes the addon may give (binding.ts), all of them core ErrorCodes. */
const CODES = new Set(['INVALID_ARGUMENT', 'UNSUPPORTED', 'OUT_OF_MEMORY', 'RELEASED', 'RUNTIME']);

function print(line: string): void {
  process.stdout.write(`${line}\n`);
}

/** Why the outcome breaks the call's rule, or undefined when it keeps it. */
function judge(call: HostileCall, error: unknown, threw: boolean): string | undefined {
  if (!threw) return call.expect === 'throw' ? 'returned normally; expected a coded error' : undefined;
  const code = (error as { code?: unknown } | null)?.code;
  const message = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
  if (call.expect === 'ok') return `threw ${message}`;
  if (call.receiver && error instanceof TypeError && error.message === 'Illegal invocation' && code === undefined) return undefined;
  if (!(error instanceof Error) || typeof code !== 'string' || !CODES.has(code)) return `threw an uncoded ${message} (code ${String(code)})`;
  if (call.code !== undefined && code !== call.code) return `threw ${code} (${message}); expected ${call.code}`;
  return undefined;
}

async function main(): Promise<void> {
  const native = loadNative({ env: { SWITCHYARD_CPU_ADDON: process.env.SWITCHYARD_CPU_ADDON } });
  if (!native.ok) {
    print(`SKIP ${native.reason}`);
    return;
  }
  const { calls, missing } = hostileCalls(native.binding);
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
    const failure = judge(call, error, threw);
    const code = threw ? (error as { code?: unknown } | null)?.code : undefined;
    print(`R ${JSON.stringify({ id: call.id, expect: call.expect, threw, code: typeof code === 'string' ? code : undefined, failure })}`);
  }
  print(`DONE ${calls.length}`);
}

await main();
