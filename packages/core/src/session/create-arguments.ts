/**
 * The forms of `InferenceSession.create`, as onnxruntime-node takes them: a path, a Uint8Array, an
 * ArrayBuffer / SharedArrayBuffer, or a segment of one (`create(buffer, byteOffset, byteLength?, options?)`).
 */
import { SwitchyardError } from '../errors.js';
import type { SessionOptions } from './session-options.js';

export interface CreateArguments {
  model: string | Uint8Array;
  options: SessionOptions | undefined;
}

const isBuffer = (v: unknown): v is ArrayBufferLike =>
  v instanceof ArrayBuffer || (typeof SharedArrayBuffer !== 'undefined' && v instanceof SharedArrayBuffer);

function wholeNumber(name: string, value: unknown): number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value)) {
    throw new SwitchyardError('INVALID_ARGUMENT', `InferenceSession.create: ${name} must be an integer, got ${JSON.stringify(value)}`);
  }
  return value;
}

export function parseCreateArguments(args: readonly unknown[]): CreateArguments {
  const [source, second, third, fourth] = args;
  if (typeof source === 'string' || source instanceof Uint8Array) {
    if (typeof second === 'number') {
      throw new SwitchyardError('INVALID_ARGUMENT', 'InferenceSession.create: byteOffset applies to an ArrayBuffer; for a Uint8Array pass a subarray');
    }
    return { model: source, options: second as SessionOptions | undefined };
  }
  if (!isBuffer(source)) {
    throw new SwitchyardError('INVALID_ARGUMENT', 'InferenceSession.create: pass a file path, a Uint8Array or an ArrayBuffer (optionally with byteOffset and byteLength)');
  }
  if (typeof second !== 'number') return { model: new Uint8Array(source), options: second as SessionOptions | undefined };
  const size = source.byteLength;
  const offset = wholeNumber('byteOffset', second);
  if (offset < 0 || offset >= size) throw new SwitchyardError('INVALID_ARGUMENT', `InferenceSession.create: byteOffset ${offset} is outside the buffer [0, ${size})`);
  // byteLength may be left out (undefined, or the options in its place): the rest of the buffer.
  if (typeof third !== 'number') return { model: new Uint8Array(source, offset), options: (third ?? fourth) as SessionOptions | undefined };
  const length = wholeNumber('byteLength', third);
  if (length <= 0 || offset + length > size) {
    throw new SwitchyardError('INVALID_ARGUMENT', `InferenceSession.create: byteLength ${length} from byteOffset ${offset} does not fit the buffer's ${size} bytes`);
  }
  return { model: new Uint8Array(source, offset, length), options: fourth as SessionOptions | undefined };
}
