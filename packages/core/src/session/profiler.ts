/** Per-node timing for `enableProfiling`, written as a Chrome trace (chrome://tracing, Perfetto). */
import { writeFileSync } from 'node:fs';

export interface ProfileEvent {
  name: string;
  op: string;
  ep: string;
  implementation?: string;
  /** performance.now() timestamps in ms. */
  start: number;
  end: number;
  inputs: string[];
  outputs: string[];
}

interface TraceEvent {
  name: string;
  cat: string;
  ph: 'X';
  ts: number;
  dur: number;
  pid: number;
  tid: number;
  args: Record<string, unknown>;
}

export class Profiler {
  readonly #events: ProfileEvent[] = [];
  readonly #origin = performance.now();
  readonly #prefix: string;

  constructor(prefix = 'switchyard_profile') {
    this.#prefix = prefix;
  }

  record(e: ProfileEvent): void {
    this.#events.push(e);
  }

  mark(name: string, start: number, end: number): void {
    this.#events.push({ name, op: 'Session', ep: '', start, end, inputs: [], outputs: [] });
  }

  get events(): readonly ProfileEvent[] {
    return this.#events;
  }

  toTrace(): TraceEvent[] {
    return this.#events.map((e) => ({
      name: e.name,
      cat: e.op === 'Session' ? 'Session' : 'Node',
      ph: 'X',
      ts: Math.round((e.start - this.#origin) * 1000),
      dur: Math.max(0, Math.round((e.end - e.start) * 1000)),
      pid: process.pid,
      tid: 0,
      args: {
        op_name: e.op,
        provider: e.ep,
        ...(e.implementation ? { implementation: e.implementation } : {}),
        input_type_shape: e.inputs,
        output_type_shape: e.outputs,
      },
    }));
  }

  /** Writes the trace to `path`, by default `<prefix>_<timestamp>.json` in the working folder; returns the path. */
  write(path?: string): string {
    const stamp = new Date().toISOString().replace(/[-:.TZ]/g, '').slice(0, 17);
    path ??= `${this.#prefix}_${stamp}.json`;
    writeFileSync(path, JSON.stringify(this.toTrace()));
    return path;
  }
}
