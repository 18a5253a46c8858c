/**
 * Hostile calls derived from the valid ones in hostile-args.cases.ts: every argument (and every option,
 * recursively) replaced in turn by the toolkit's hostile values (@switchyard/native-toolkit/testing); no
 * arguments; methods on a disposed object, on another class's object and on non-objects.
 * Each call says what it must do: 'throw' (a coded error), 'ok' (the valid calls, which also show the
 * object still works after the hostile ones) or 'either' (a coded error or a normal return: an argument
 * that may be optional, a number the kernel may accept). None may crash.
 */
import { argumentCalls, foreignReceivers, variantsOf, type HostileCall } from '@switchyard/native-toolkit/testing';
import type { NativeBinding } from './binding.js';
import { EXPORT_CASES, type ClassCase, type FunctionCase } from './hostile-args.cases.js';

function functionCalls(name: string, c: FunctionCase, binding: NativeBinding): HostileCall[] {
  const fn = (binding as unknown as Record<string, (...a: unknown[]) => unknown>)[name]!;
  // vectorIsa(set) switches the process's loops: only values it must refuse go in (no valid ISA names).
  const make = () => c.args(binding);
  return [
    ...argumentCalls(name, make, (args) => fn(...args), { mayBeLonger: c.mayBeLonger }),
    { id: `${name} valid`, expect: 'ok', call: () => fn(...make()) },
  ];
}

type Ctor = (new (options: unknown) => Record<string, unknown>) & Record<string, unknown>;

const METHODS = ['run', 'runSync', 'dispose'];

function classCalls(name: string, c: ClassCase, binding: NativeBinding, other: object): HostileCall[] {
  const ctor = (binding as unknown as Record<string, Ctor>)[name]!;
  const proto = ctor.prototype as Record<string, unknown>;
  const calls: HostileCall[] = [];
  // Construction: nothing, non-objects, no options, then each option replaced in turn.
  for (const bad of [[], [null], [42], ['x'], [[]], [{}]]) {
    calls.push({ id: `new ${name}(${JSON.stringify(bad).slice(1, -1)})`, expect: 'throw', call: () => new ctor(bad[0]) });
  }
  for (const variant of variantsOf(c.options())) {
    if (variant.label === 'a string' || variant.label === 'null') continue; // covered above
    calls.push({
      id: `new ${name}(options${variant.label})`,
      expect: variant.invalid ? 'throw' : 'either',
      call: () => {
        const made = new ctor(variant.value);
        (made.dispose as () => void).call(made);
      },
    });
    for (const method of c.statics ?? []) {
      calls.push({ id: `${name}.${method}(options${variant.label})`, expect: variant.invalid ? 'throw' : 'either', call: () => (ctor[method] as (o: unknown) => unknown)(variant.value) });
    }
  }
  for (const method of c.statics ?? []) calls.push({ id: `${name}.${method}()`, expect: 'throw', call: () => (ctor[method] as () => unknown)() });

  // Runs with each argument replaced, on one object that must still work afterwards.
  let object: Record<string, unknown> | undefined;
  const live = () => (object ??= new ctor(c.options()));
  for (const method of ['runSync', 'run']) {
    calls.push(...argumentCalls(`${name}.${method}`, c.run, (args) => (live()[method] as (...a: unknown[]) => unknown)(...args)));
    calls.push({ id: `${name}.${method} valid`, expect: 'ok', call: () => (live()[method] as (...a: unknown[]) => unknown)(...c.run()) });
  }

  // Methods and getters on receivers that are not objects of this class.
  const getters = Object.entries(Object.getOwnPropertyDescriptors(proto)).filter(([, d]) => d.get !== undefined);
  const receivers = foreignReceivers(proto, other);
  for (const [label, receiver] of receivers) {
    for (const method of METHODS) {
      calls.push({ id: `${name}.prototype.${method}.call(${label})`, expect: 'throw', receiver: true, call: () => (proto[method] as (...a: unknown[]) => unknown).call(receiver, ...c.run()) });
    }
    for (const [getter, d] of getters) calls.push({ id: `${name} getter ${getter} on ${label}`, expect: 'throw', receiver: true, call: () => d.get!.call(receiver) });
  }

  // A disposed object: every method and getter says RELEASED; a second dispose is harmless.
  let disposed: Record<string, unknown> | undefined;
  const released = () => {
    if (!disposed) {
      disposed = new ctor(c.options());
      (disposed.dispose as () => void).call(disposed);
    }
    return disposed;
  };
  for (const method of ['runSync', 'run']) {
    calls.push({ id: `${name}.${method} after dispose`, expect: 'throw', code: 'RELEASED', call: () => (released()[method] as (...a: unknown[]) => unknown)(...c.run()) });
  }
  for (const [getter, d] of getters) calls.push({ id: `${name} getter ${getter} after dispose`, expect: 'throw', code: 'RELEASED', call: () => d.get!.call(released()) });
  calls.push({ id: `${name}.dispose twice`, expect: 'either', call: () => (released().dispose as () => void)() });
  return calls;
}

/** Every hostile call over every export; `missing` lists exports the addon has and the table lacks, or the reverse. */
export function hostileCalls(binding: NativeBinding): { calls: HostileCall[]; missing: string[] } {
  const exported = Object.keys(binding);
  const cased = Object.keys(EXPORT_CASES);
  const missing = [
    ...exported.filter((k) => !cased.includes(k)).map((k) => `${k}: exported by the addon, no case in hostile-args.cases.ts`),
    ...cased.filter((k) => !exported.includes(k)).map((k) => `${k}: has a case (declared in binding.ts) but the addon does not export it`),
  ];
  const classNames = Object.entries(EXPORT_CASES).filter(([k, c]) => c.kind === 'class' && exported.includes(k)).map(([k]) => k);
  const calls: HostileCall[] = [];
  for (const [name, c] of Object.entries(EXPORT_CASES)) {
    if (!exported.includes(name)) continue;
    if (c.kind === 'function') {
      calls.push(...functionCalls(name, c, binding));
    } else {
      // An object of the next class in the table is the "another class" receiver.
      const otherName = classNames[(classNames.indexOf(name) + 1) % classNames.length]!;
      const otherCase = EXPORT_CASES[otherName as keyof typeof EXPORT_CASES] as ClassCase;
      const other = new (binding as unknown as Record<string, Ctor>)[otherName]!(otherCase.options());
      calls.push(...classCalls(name, c, binding, other));
    }
  }
  return { calls, missing };
}
