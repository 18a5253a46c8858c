/**
 * Hostile calls over every export of `switchyard_hip.node` and the test addon's `kernelsJs`, derived from the valid ones in
 * hostile-args.cases.ts with the toolkit's hostile values (@switchyard/native-toolkit/testing): each
 * argument and option replaced in turn; DeviceBuffer arguments replaced by look-alikes (an object made from
 * DeviceBuffer.prototype, another class's object, a freed buffer); no arguments; every method and getter on
 * receivers of another class and on non-objects; methods of a released object. Valid calls must return
 * when what they need is there (a device, a seam's library) and throw a coded error when it is not.
 */
import { argumentCalls, foreignReceivers, type ArgumentCallOptions, type HostileCall, type Variant } from '@switchyard/native-toolkit/testing';
import { EXPORT_CASES, KERNEL_RUN_CASES, type ClassCase, type ExportName, type FunctionCase, type HipContext, type Need } from './hostile-args.cases.js';

type Fn = (...args: unknown[]) => unknown;
type Ctor = (new (...args: unknown[]) => Record<string, unknown>) & Record<string, unknown>;

/** The export at a dotted path (`testing.FakeArena`), or undefined. */
function exportAt(binding: Record<string, unknown>, path: string): unknown {
  return path.split('.').reduce<unknown>((o, k) => (o !== null && typeof o === 'object' ? (o as Record<string, unknown>)[k] : undefined), binding);
}

/** Every function or class the addon exports, by dotted path (one level of nesting: `testing`, `kernelsJs`). */
export function exportedNames(binding: Record<string, unknown>): string[] {
  return Object.entries(binding).flatMap(([k, v]) =>
    typeof v === 'function' ? [k] : v !== null && typeof v === 'object' ? Object.keys(v).filter((n) => typeof (v as Record<string, unknown>)[n] === 'function').map((n) => `${k}.${n}`) : [],
  );
}

interface Available {
  device: boolean;
  blas: boolean;
  dnn: boolean;
}

const met = (need: Need, a: Available) => need === 'nothing' || (a.device && (need === 'device' || a[need]));

function functionCalls(name: string, fn: Fn, make: () => unknown[], need: Need, available: Available, accepts: ArgumentCallOptions): HostileCall[] {
  return [
    ...argumentCalls(name, make, (args) => fn(...args), accepts),
    { id: `${name} valid`, expect: met(need, available) ? 'ok' : 'throw', call: () => fn(...make()) },
  ];
}

function classCalls(name: string, c: ClassCase, ctx: HipContext, available: Available, standIns: readonly Variant[], other: object): HostileCall[] {
  const accepts = (a: ArgumentCallOptions = {}) => ({ ...a, nativeStandIns: standIns });
  const ctor = exportAt(ctx.binding, name) as Ctor;
  const proto = ctor.prototype as Record<string, unknown>;
  const construct = () => new ctor(...c.ctorArgs(ctx));
  const calls: HostileCall[] = [];
  const constructible = met(c.needs, available);
  const release = (o: Record<string, unknown>) => (c.release ? (o[c.release] as Fn).call(o) : undefined);

  // Construction: each argument replaced in turn (an object made is released at once).
  calls.push(
    ...argumentCalls(`new ${name}`, () => c.ctorArgs(ctx), (args) => release(new ctor(...args)), accepts(c.ctorAccepts)),
    { id: `new ${name} valid`, expect: constructible ? 'ok' : 'throw', call: () => release(construct()) },
  );
  for (const [method, m] of Object.entries(c.statics ?? {})) {
    const fn = ctor[method] as Fn;
    calls.push(...functionCalls(`${name}.${method}`, fn, () => m.args(ctx), m.needs, available, accepts(m.accepts)));
  }

  // Methods with each argument replaced, on one object that must still work afterwards.
  if (constructible) {
    let object: Record<string, unknown> | undefined;
    const live = () => (object ??= construct());
    for (const [method, m] of Object.entries(c.methods)) {
      if (method === c.release) continue;
      const call = (args: unknown[]) => (live()[method] as Fn)(...args);
      calls.push(...argumentCalls(`${name}.${method}`, () => m.args(ctx), call, accepts(m.accepts)));
      const expect = !met(m.needs, available) ? 'throw' : m.mayThrow ? 'either' : 'ok';
      calls.push({ id: `${name}.${method} valid`, expect, call: () => call(m.args(ctx)) });
    }
  }

  // Methods and getters on receivers that are not objects of this class.
  const getters = Object.entries(Object.getOwnPropertyDescriptors(proto)).filter(([, d]) => d.get !== undefined);
  const receivers = foreignReceivers(proto, other);
  for (const [label, receiver] of receivers) {
    for (const [method, m] of Object.entries(c.methods)) {
      calls.push({ id: `${name}.prototype.${method}.call(${label})`, expect: 'throw', receiver: true, call: () => (proto[method] as Fn).call(receiver, ...m.args(ctx)) });
    }
    for (const [getter, d] of getters) calls.push({ id: `${name} getter ${getter} on ${label}`, expect: 'throw', receiver: true, call: () => d.get!.call(receiver) });
  }

  // A released object: its methods say RELEASED (the release itself stays harmless); its getters may answer.
  if (c.release && constructible) {
    let released: Record<string, unknown> | undefined;
    const get = () => {
      if (!released) {
        released = construct();
        release(released);
      }
      return released;
    };
    for (const [method, m] of Object.entries(c.methods)) {
      const again = c.afterRelease?.includes(method) ?? false;
      calls.push({
        id: `${name}.${method} after ${c.release}`,
        expect: again ? 'either' : 'throw',
        ...(again ? {} : { code: 'RELEASED' }),
        call: () => (get()[method] as Fn)(...m.args(ctx)),
      });
    }
    for (const [getter, d] of getters) calls.push({ id: `${name} getter ${getter} after ${c.release}`, expect: 'either', call: () => d.get!.call(get()) });
  }
  return calls;
}

/** Every hostile call over every export; `missing` lists exports the addon has and the table lacks, or the reverse. */
export function hostileCalls(ctx: HipContext): { calls: HostileCall[]; missing: string[] } {
  const binding = ctx.binding;
  const exported = exportedNames(binding);
  const cased = Object.keys(EXPORT_CASES);
  const missing = [
    ...exported.filter((k) => !cased.includes(k)).map((k) => `${k}: exported by the addon, no case in hostile-args.cases.ts`),
    ...cased.filter((k) => !exported.includes(k)).map((k) => `${k}: has a case but the addon does not export it`),
  ];
  const info = (f: string) => (binding[f] as () => { available: boolean })();
  const available: Available = { device: ctx.hasDevice, blas: info('blasInfo').available, dnn: info('dnnInfo').available };
  const FakeArena = exportAt(binding, 'testing.FakeArena') as Ctor;
  const fake = new FakeArena({});
  const freed = ctx.buffer(0);
  freed.free();
  const standIns: Variant[] = [
    { label: 'an object made from DeviceBuffer.prototype', value: Object.create(binding.DeviceBuffer.prototype as object), invalid: true },
    { label: "another class's object", value: fake, invalid: true },
    { label: 'a freed DeviceBuffer', value: freed, invalid: true },
  ];
  const calls: HostileCall[] = [];
  for (const [name, c] of Object.entries(EXPORT_CASES) as Array<[ExportName, FunctionCase | ClassCase]>) {
    if (!exported.includes(name)) continue;
    if (c.kind === 'function') {
      calls.push(...functionCalls(name, exportAt(binding, name) as Fn, () => c.args(ctx), c.needs, available, { ...c.accepts, nativeStandIns: standIns }));
    } else {
      // A FakeArena is the "another class" receiver, except for FakeArena itself (a zero-byte DeviceBuffer).
      calls.push(...classCalls(name, c, ctx, available, standIns, name === 'testing.FakeArena' ? ctx.buffer(0) : fake));
    }
  }
  const run = exportAt(binding, 'kernelsJs.run') as Fn | undefined;
  if (run) {
    for (const [kernel, make] of Object.entries(KERNEL_RUN_CASES)) {
      calls.push(...functionCalls(`kernelsJs.run('${kernel}')`, run, make, 'device', available, { nativeStandIns: standIns }));
    }
  }
  return { calls, missing };
}
