/**
 * Hostile calls derived from the valid ones in hostile-args.cases.ts: every argument (and every option,
 * recursively) replaced in turn by values that are missing, mistyped, too short or too long, negative or
 * huge; no arguments; methods on a disposed object, on another class's object and on non-objects.
 * Each call says what it must do: 'throw' (a coded error), 'ok' (the valid calls, which also show the
 * object still works after the hostile ones) or 'either' (a coded error or a normal return: an argument
 * that may be optional, a number the kernel may accept). None may crash.
 */
import type { NativeBinding } from './binding.js';
import { EXPORT_CASES, type ClassCase, type FunctionCase } from './hostile-args.cases.js';

export type Expect = 'throw' | 'ok' | 'either';

export interface HostileCall {
  id: string;
  expect: Expect;
  /** The code a thrown error must have; any of the addon's codes when absent. */
  code?: string;
  /**
   * A method called on a receiver that is not an object of its class. V8 itself refuses those before the
   * addon runs (napi_define_class gives methods a receiver signature) with an uncoded TypeError
   * 'Illegal invocation'; that is accepted here, as is the addon's coded error (getters, which V8 does not check).
   */
  receiver?: boolean;
  call: () => unknown;
}

interface Variant {
  label: string;
  value: unknown;
  /** Whether a call given this value can never be valid. */
  invalid: boolean;
}

type Typed = Exclude<ArrayBufferView, DataView> & { length: number };
type TypedCtor = new (length: number) => Typed;

const isTyped = (v: unknown): v is Typed => ArrayBuffer.isView(v) && !(v instanceof DataView);
const isPlainObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v) && !isTyped(v);

/** Array-valued options whose entries are tensor dims: a negative entry can never be valid. */
const DIMS_KEY = /Dims$|^dims$/;

const NUMBERS: readonly unknown[] = [-1, -(2 ** 31), 100_000, 2 ** 31, 2 ** 53, 2 ** 64, 1e300, NaN, Infinity, -Infinity, 0.5, '1', null, undefined];

function otherDtype(t: Typed): Typed {
  return t instanceof Float32Array ? new Float64Array(t.length) : new Float32Array(t.length);
}

function typedVariants(t: Typed): Variant[] {
  const ctor = t.constructor as TypedCtor;
  const out: Variant[] = [
    { label: 'one longer', value: new ctor(t.length + 1), invalid: true },
    { label: `a ${otherDtype(t).constructor.name}`, value: otherDtype(t), invalid: true },
    { label: 'a DataView', value: new DataView(new ArrayBuffer(t.byteLength)), invalid: true },
    { label: 'a plain array', value: Array.from(t as unknown as ArrayLike<unknown>), invalid: true },
    { label: 'a string', value: 'x', invalid: true },
    { label: 'an object', value: {}, invalid: true },
    { label: 'undefined', value: undefined, invalid: false },
    { label: 'null', value: null, invalid: false },
  ];
  if (t.length > 0) out.push({ label: 'one shorter', value: new ctor(t.length - 1), invalid: true });
  // The same length at an offset into a larger buffer is valid: the addon must honour byteOffset.
  const bigger = new ctor(t.length + 3);
  out.push({ label: 'an offset view', value: (bigger as unknown as { subarray(a: number, b: number): Typed }).subarray(3, 3 + t.length), invalid: false });
  return out;
}

function numberArrayVariants(values: readonly number[], key: string | undefined): Variant[] {
  const dims = key !== undefined && DIMS_KEY.test(key);
  const rest = values.slice(1);
  return [
    { label: '[]', value: [], invalid: false },
    { label: 'first entry -1', value: [-1, ...rest], invalid: dims },
    { label: 'first entry 2^53', value: [2 ** 53, ...rest], invalid: false },
    { label: 'first entry NaN', value: [NaN, ...rest], invalid: false },
    { label: 'first entry 1.5', value: [1.5, ...rest], invalid: false },
    { label: 'entries 1e9 (product past int64)', value: values.map(() => 1e9), invalid: false },
    { label: 'entries 2^31', value: values.map(() => 2 ** 31), invalid: false },
    { label: '70 entries', value: Array.from({ length: 70 }, () => 1), invalid: false },
    { label: 'a string entry', value: ['x', ...rest], invalid: false },
    { label: 'a holey array', value: new Array(values.length), invalid: false },
    { label: 'a Float32Array', value: Float32Array.from(values), invalid: false },
    { label: 'a string', value: 'x', invalid: true },
  ];
}

/** The values that replace `value` (an argument, an option, an array entry) in hostile calls. */
export function variantsOf(value: unknown, key?: string): Variant[] {
  if (isTyped(value)) return typedVariants(value);
  if (typeof value === 'number') return NUMBERS.map((v) => ({ label: String(v), value: v, invalid: false }));
  if (typeof value === 'string') {
    return [
      { label: "'bogus'", value: 'bogus', invalid: true },
      { label: "''", value: '', invalid: true },
      { label: '42', value: 42, invalid: true },
      { label: 'undefined', value: undefined, invalid: false },
    ];
  }
  if (typeof value === 'boolean') return ['yes', 0, null, undefined].map((v) => ({ label: String(v), value: v, invalid: false }));
  if (value === null) {
    return [
      { label: "'x'", value: 'x', invalid: true },
      { label: '{}', value: {}, invalid: true },
      { label: 'a Float32Array(1)', value: new Float32Array(1), invalid: false },
    ];
  }
  if (Array.isArray(value)) {
    if (value.every((v) => typeof v === 'number')) return numberArrayVariants(value as number[], key);
    const out: Variant[] = [
      { label: '[]', value: [], invalid: false },
      { label: "['x']", value: ['x', ...value.slice(1)], invalid: true },
      { label: 'a string', value: 'x', invalid: true },
    ];
    for (const v of variantsOf(value[0], key)) out.push({ label: `[0] ${v.label}`, value: [v.value, ...value.slice(1)], invalid: v.invalid });
    return out;
  }
  if (isPlainObject(value)) {
    const out: Variant[] = [
      { label: 'a string', value: 'x', invalid: true },
      { label: 'null', value: null, invalid: true },
    ];
    for (const [k, v] of Object.entries(value)) {
      const { [k]: _dropped, ...without } = value;
      out.push({ label: `.${k} deleted`, value: without, invalid: false });
      for (const variant of variantsOf(v, k)) out.push({ label: `.${k} ${variant.label}`, value: { ...value, [k]: variant.value }, invalid: variant.invalid });
    }
    return out;
  }
  return [];
}

/** Calls of `fn` with each argument of `make()` replaced in turn, plus no arguments and one extra. */
function argumentCalls(id: string, make: () => unknown[], fn: (args: unknown[]) => unknown, mayBeLonger: readonly number[] = []): HostileCall[] {
  const valid = make();
  const calls: HostileCall[] = [
    { id: `${id}()`, expect: valid.length > 0 ? 'throw' : 'either', call: () => fn([]) },
    { id: `${id}(... + an extra argument)`, expect: 'either', call: () => fn([...make(), new Float32Array(1)]) },
  ];
  valid.forEach((arg, i) => {
    for (const variant of variantsOf(arg)) {
      calls.push({
        id: `${id} argument ${i} ${variant.label}`,
        expect: variant.invalid && !(variant.label === 'one longer' && mayBeLonger.includes(i)) ? 'throw' : 'either',
        call: () => {
          const args = make();
          args[i] = variant.value;
          return fn(args);
        },
      });
    }
  });
  return calls;
}

function functionCalls(name: string, c: FunctionCase, binding: NativeBinding): HostileCall[] {
  const fn = (binding as unknown as Record<string, (...a: unknown[]) => unknown>)[name]!;
  // vectorIsa(set) switches the process's loops: only values it must refuse go in (no valid ISA names).
  const make = () => c.args(binding);
  return [
    ...argumentCalls(name, make, (args) => fn(...args), c.mayBeLonger),
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
  const receivers: Array<[string, unknown]> = [
    ['another class', other],
    ['{}', {}],
    ['42', 42],
    ['undefined', undefined],
    ['the prototype', proto],
    ['Object.create(prototype)', Object.create(proto)],
  ];
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
