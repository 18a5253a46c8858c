/**
 * Hostile values for an addon's exports, derived from one valid call: every argument (and every option,
 * recursively) replaced in turn by values that are missing, mistyped, too short or too long, negative or
 * huge; a native object (a DeviceBuffer, say) by the stand-ins the addon's table gives. Shared by the addons' hostile-args tests (ep-cpu, native-hip); each addon's own table says what a
 * valid call of each export is, and which receivers and released objects its classes must refuse.
 */

export type Expect = 'throw' | 'ok' | 'either';

export interface HostileCall {
  id: string;
  /** 'throw': a coded error; 'ok': returns (the valid calls); 'either': a coded error or a normal return. */
  expect: Expect;
  /** The code a thrown error must have; any of the addon's codes when absent. */
  code?: string;
  /**
   * A method called on a receiver that is not an object of its class. V8 itself refuses those before the
   * addon runs (napi_define_class gives methods a receiver signature) with an uncoded TypeError
   * 'Illegal invocation'; that is accepted, as is the addon's coded error (getters, which V8 does not check).
   */
  receiver?: boolean;
  call: () => unknown;
}

export interface Variant {
  label: string;
  value: unknown;
  /** Whether a call given this value can never be valid. */
  invalid: boolean;
}

type Typed = Exclude<ArrayBufferView, DataView> & { length: number };
type TypedCtor = new (length: number) => Typed;

const isTyped = (v: unknown): v is Typed => ArrayBuffer.isView(v) && !(v instanceof DataView);
const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v) && !isTyped(v);

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

/**
 * The values that replace `value` (an argument, an option, an array entry) in hostile calls. A native
 * object (one whose prototype is not Object.prototype: a DeviceBuffer, say) is replaced by a string, null
 * and `nativeStandIns`.
 */
export function variantsOf(value: unknown, key?: string, nativeStandIns: readonly Variant[] = []): Variant[] {
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
    for (const v of variantsOf(value[0], key, nativeStandIns)) out.push({ label: `[0] ${v.label}`, value: [v.value, ...value.slice(1)], invalid: v.invalid });
    return out;
  }
  if (isObject(value)) {
    const out: Variant[] = [
      { label: 'a string', value: 'x', invalid: true },
      { label: 'null', value: null, invalid: true },
    ];
    // A native object (a class instance, not an options object) is replaced whole.
    if (Object.getPrototypeOf(value) !== Object.prototype) return [...out, ...nativeStandIns];
    for (const [k, v] of Object.entries(value)) {
      const { [k]: _dropped, ...without } = value;
      out.push({ label: `.${k} deleted`, value: without, invalid: false });
      for (const variant of variantsOf(v, k, nativeStandIns)) out.push({ label: `.${k} ${variant.label}`, value: { ...value, [k]: variant.value }, invalid: variant.invalid });
    }
    return out;
  }
  return [];
}

export interface ArgumentCallOptions {
  /** Arguments that may be longer than the call reads (a source view the call reads part of). */
  mayBeLonger?: readonly number[];
  /** Typed-array arguments of any length (the call sizes its result from them). */
  anyLength?: readonly number[];
  /** Arguments that may be left out: undefined or null there is no error, nor is a call without them. */
  optional?: readonly number[];
  /**
   * Arguments where no variant is certainly invalid (a host view whose bytes only have to fit, whatever its
   * type or length): each may throw a coded error or return, never crash.
   */
  lenient?: readonly number[];
  /** What replaces a native object (see variantsOf). */
  nativeStandIns?: readonly Variant[];
}

/** Calls of `fn` with each argument of `make()` replaced in turn, plus no arguments and one extra. */
export function argumentCalls(id: string, make: () => unknown[], fn: (args: unknown[]) => unknown, options: ArgumentCallOptions = {}): HostileCall[] {
  const valid = make();
  const { mayBeLonger = [], anyLength = [], optional = [], lenient = [] } = options;
  const required = valid.some((_, i) => !optional.includes(i));
  const calls: HostileCall[] = [
    { id: `${id}()`, expect: required ? 'throw' : 'either', call: () => fn([]) },
    { id: `${id}(... + an extra argument)`, expect: 'either', call: () => fn([...make(), new Float32Array(1)]) },
  ];
  /** Whether a variant the generator calls invalid is allowed at argument i all the same. */
  const allowed = (i: number, label: string) =>
    lenient.includes(i) ||
    (label === 'one longer' && (mayBeLonger.includes(i) || anyLength.includes(i))) ||
    (label === 'one shorter' && anyLength.includes(i)) ||
    ((label === 'undefined' || label === 'null') && optional.includes(i));
  valid.forEach((arg, i) => {
    for (const variant of variantsOf(arg, undefined, options.nativeStandIns)) {
      calls.push({
        id: `${id} argument ${i} ${variant.label}`,
        expect: variant.invalid && !allowed(i, variant.label) ? 'throw' : 'either',
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

/**
 * Receivers that are not objects of a class: `another` (an object of another addon class), plain values,
 * the prototype itself and an object made from it without the constructor. Every method and getter
 * called on one of these must throw a coded error, never cast it to the class.
 */
export function foreignReceivers(proto: object, another: unknown): Array<[label: string, receiver: unknown]> {
  return [
    ['another class', another],
    ['{}', {}],
    ['42', 42],
    ['undefined', undefined],
    ['the prototype', proto],
    ['Object.create(prototype)', Object.create(proto)],
  ];
}
