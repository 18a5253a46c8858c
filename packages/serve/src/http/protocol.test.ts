/**
 * Every endpoint of the protocol over real HTTP on loopback, with the repo's tiny CNN (fixed shape)
 * and 2-layer LSTM (three inputs) — good requests checked against the same model run directly, and
 * every kind of bad request answered with the protocol's `{"error": ...}` and the right status.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InferenceSession, Tensor } from '@switchyard/core';
import { startServer, type RunningServer } from '../server.js';
import { LSTM2, TINY_CNN, makeRepository, postJson, registerCpu, request, seededFloats, splitBinaryReply, type Reply } from '../testing/fixtures.js';

const IMAGE = [1, 3, 32, 32];
const image = seededFloats(3 * 32 * 32, 7);
const tinyInput = (over: Record<string, unknown> = {}) => ({ name: 'input', shape: IMAGE, datatype: 'FP32', data: Array.from(image), ...over });

let server: RunningServer;
let reference: Float32Array;

function expectError(reply: Reply, status: number, pattern: RegExp): void {
  expect(reply.status, reply.body.toString()).toBe(status);
  expect(reply.headers.get('content-type')).toMatch(/application\/json/);
  const body = reply.json();
  expect(Object.keys(body)).toEqual(['error']);
  expect(body.error).toMatch(pattern);
}

function binaryBody(head: unknown, ...tails: Uint8Array[]): { body: Buffer; length: number } {
  const json = Buffer.from(JSON.stringify(head));
  return { body: Buffer.concat([json, ...tails]), length: json.byteLength };
}

beforeAll(async () => {
  registerCpu();
  const repository = makeRepository({
    tiny: { versions: { '1': TINY_CNN, '2': TINY_CNN } },
    lstm: { versions: { '1': LSTM2 } },
  });
  server = await startServer({ repository, port: 0, defaultExecutionProviders: ['cpu'], bodyLimitBytes: 256 * 1024, processMetrics: false });
  const session = await InferenceSession.create(TINY_CNN, { executionProviders: ['cpu'] });
  reference = ((await session.run({ input: new Tensor('float32', image, IMAGE) })).probabilities as Tensor).data as Float32Array;
  await session.release();
});

afterAll(async () => {
  await server?.close();
});

describe('health and metadata', () => {
  it('live, ready and server metadata', async () => {
    expect((await request(`${server.url}/v2/health/live`)).status).toBe(200);
    expect((await request(`${server.url}/v2/health/ready`)).status).toBe(200);
    const meta = (await request(`${server.url}/v2`)).json();
    expect(meta).toMatchObject({ name: 'switchyard', extensions: ['binary_tensor_data'] });
    expect(typeof meta.version).toBe('string');
  });

  it('model metadata, latest and per version, with the model\'s inputs and outputs', async () => {
    const latest = (await request(`${server.url}/v2/models/tiny`)).json();
    expect(latest).toEqual({
      name: 'tiny',
      versions: ['1', '2'],
      platform: 'switchyard_onnx',
      inputs: [{ name: 'input', datatype: 'FP32', shape: IMAGE }],
      outputs: [{ name: 'probabilities', datatype: 'FP32', shape: [1, 10] }],
    });
    expect((await request(`${server.url}/v2/models/tiny/versions/1`)).json()).toEqual(latest);
    const lstm = (await request(`${server.url}/v2/models/lstm`)).json();
    expect((lstm.inputs as Array<{ name: string }>).map((i) => i.name)).toEqual(['input', 'h0', 'c0']);
  });

  it('model ready, latest and per version', async () => {
    expect((await request(`${server.url}/v2/models/tiny/ready`)).json()).toEqual({ name: 'tiny', version: '2', ready: true });
    expect((await request(`${server.url}/v2/models/tiny/versions/1/ready`)).status).toBe(200);
  });

  it('unknown models, versions and endpoints: 404 with an error', async () => {
    expectError(await request(`${server.url}/v2/models/nope`), 404, /unknown model 'nope'.*'lstm', 'tiny'/);
    expectError(await request(`${server.url}/v2/models/tiny/versions/9`), 404, /no version '9'.*1, 2/);
    expectError(await request(`${server.url}/v2/models/nope/ready`), 404, /unknown model/);
    expectError(await request(`${server.url}/v2/models/tiny/versions/9/ready`), 404, /no version/);
    expectError(await postJson(`${server.url}/v2/models/nope/infer`, { inputs: [tinyInput()] }), 404, /unknown model/);
    expectError(await postJson(`${server.url}/v2/models/tiny/versions/3/infer`, { inputs: [tinyInput()] }), 404, /no version '3'/);
    expectError(await request(`${server.url}/v2/nothing/here`), 404, /no endpoint/);
  });
});

describe('infer', () => {
  it('JSON tensors in and out, equal to the model run directly; id echoed', async () => {
    for (const path of ['/v2/models/tiny/infer', '/v2/models/tiny/versions/1/infer']) {
      const reply = await postJson(server.url + path, { id: 'req-1', inputs: [tinyInput()] });
      expect(reply.status).toBe(200);
      const body = reply.json() as { model_name: string; model_version: string; id: string; outputs: Array<{ name: string; datatype: string; shape: number[]; data: number[] }> };
      expect(body).toMatchObject({ model_name: 'tiny', model_version: path.includes('versions') ? '1' : '2', id: 'req-1' });
      expect(body.outputs).toHaveLength(1);
      expect(body.outputs[0]).toMatchObject({ name: 'probabilities', datatype: 'FP32', shape: [1, 10] });
      expect(body.outputs[0].data).toEqual(Array.from(reference));
    }
  });

  it('nested JSON data is read row-major like flat data', async () => {
    const nested = [[0, 1, 2].map((c) => Array.from({ length: 32 }, (_, y) => Array.from(image.subarray(c * 1024 + y * 32, c * 1024 + y * 32 + 32))))];
    const reply = await postJson(`${server.url}/v2/models/tiny/infer`, { inputs: [tinyInput({ data: nested })] });
    expect((reply.json().outputs as Array<{ data: number[] }>)[0].data).toEqual(Array.from(reference));
  });

  it('binary tensors in and out (Inference-Header-Content-Length), bit-equal to JSON', async () => {
    const input = Buffer.from(image.buffer, image.byteOffset, image.byteLength);
    const { body, length } = binaryBody(
      { inputs: [{ name: 'input', shape: IMAGE, datatype: 'FP32', parameters: { binary_data_size: input.byteLength } }], outputs: [{ name: 'probabilities', parameters: { binary_data: true } }] },
      input,
    );
    const reply = await request(`${server.url}/v2/models/tiny/infer`, { method: 'POST', headers: { 'content-type': 'application/octet-stream', 'inference-header-content-length': String(length) }, body });
    expect(reply.status, reply.body.toString()).toBe(200);
    expect(reply.headers.get('content-type')).toBe('application/octet-stream');
    const { head, tail } = splitBinaryReply(reply);
    expect(head.outputs).toEqual([{ name: 'probabilities', datatype: 'FP32', shape: [1, 10], parameters: { binary_data_size: 40 } }]);
    expect(Array.from(new Float32Array(new Uint8Array(tail).buffer))).toEqual(Array.from(reference));
  });

  it('binary_data_output on the request returns every output as binary; a model of three inputs mixes JSON and binary inputs', async () => {
    const x = seededFloats(32 * 64, 3);
    const h = seededFloats(2 * 128, 4);
    const c = seededFloats(2 * 128, 5);
    const session = await InferenceSession.create(LSTM2, { executionProviders: ['cpu'] });
    const direct = await session.run({ input: new Tensor('float32', x, [32, 1, 64]), h0: new Tensor('float32', h, [2, 1, 128]), c0: new Tensor('float32', c, [2, 1, 128]) });
    await session.release();
    const hBytes = Buffer.from(h.buffer);
    const { body, length } = binaryBody(
      {
        parameters: { binary_data_output: true },
        inputs: [
          { name: 'input', shape: [32, 1, 64], datatype: 'FP32', data: Array.from(x) },
          { name: 'h0', shape: [2, 1, 128], datatype: 'FP32', parameters: { binary_data_size: hBytes.byteLength } },
          { name: 'c0', shape: [2, 1, 128], datatype: 'FP32', data: Array.from(c) },
        ],
      },
      hBytes,
    );
    const reply = await request(`${server.url}/v2/models/lstm/infer`, { method: 'POST', headers: { 'inference-header-content-length': String(length) }, body });
    expect(reply.status, reply.body.toString()).toBe(200);
    const { head, tail } = splitBinaryReply(reply);
    const outputs = head.outputs as Array<{ name: string; shape: number[]; parameters: { binary_data_size: number } }>;
    expect(outputs.map((o) => o.name)).toEqual(['output', 'h_n', 'c_n']);
    let at = 0;
    for (const o of outputs) {
      const got = new Float32Array(new Uint8Array(tail.subarray(at, at + o.parameters.binary_data_size)).buffer);
      at += o.parameters.binary_data_size;
      const want = direct[o.name] as Tensor;
      expect(o.shape).toEqual([...want.dims]);
      expect(Array.from(got)).toEqual(Array.from(want.data as Float32Array));
    }
    expect(at).toBe(tail.byteLength);
  });

  it('requested outputs: only those named are returned', async () => {
    const reply = await postJson(`${server.url}/v2/models/lstm/infer`, {
      inputs: [
        { name: 'input', shape: [32, 1, 64], datatype: 'FP32', data: Array.from(seededFloats(2048, 1)) },
        { name: 'h0', shape: [2, 1, 128], datatype: 'FP32', data: new Array(256).fill(0) },
        { name: 'c0', shape: [2, 1, 128], datatype: 'FP32', data: new Array(256).fill(0) },
      ],
      outputs: [{ name: 'c_n' }],
    });
    expect((reply.json().outputs as Array<{ name: string }>).map((o) => o.name)).toEqual(['c_n']);
  });
});

describe('bad requests: the protocol\'s error object, a 4xx status, and the server stays up', () => {
  const infer = () => `${server.url}/v2/models/tiny/infer`;

  it('wrong shape, dtype, name, element count, or missing pieces: 400', async () => {
    const cases: Array<[unknown, RegExp]> = [
      [{ inputs: [tinyInput({ shape: [1, 3, 32, 16], data: Array.from(image.subarray(0, 1536)) })] }, /shape \[1, 3, 32, 16\] does not fit the model's \[1, 3, 32, 32\]/],
      [{ inputs: [tinyInput({ shape: [3, 32, 32] })] }, /does not fit/],
      [{ inputs: [tinyInput({ datatype: 'INT32' })] }, /datatype is INT32 but the model takes FP32/],
      [{ inputs: [tinyInput({ datatype: 'FLOAT32' })] }, /'datatype' must be one of the protocol's types/],
      [{ inputs: [tinyInput({ name: 'image' })] }, /no such input; its inputs are 'input'/],
      [{ inputs: [tinyInput(), tinyInput()] }, /given twice/],
      [{ inputs: [tinyInput({ data: Array.from(image.subarray(1)) })] }, /needs 3072 elements, 'data' has 3071/],
      [{ inputs: [tinyInput({ data: [...Array.from(image.subarray(1)), 'x'] })] }, /element 3071 is "x", not a number/],
      [{ inputs: [tinyInput({ shape: [1, 3, 32, -32] })] }, /'shape' must be an array of non-negative integers/],
      [{ inputs: [tinyInput({ data: undefined })] }, /neither 'data' nor binary_data_size/],
      [{ inputs: [] }, /'inputs' must be a non-empty array/],
      [{ inputs: [tinyInput()], outputs: [{ name: 'logits' }] }, /output 'logits': the model has no such output/],
      [{ inputs: [tinyInput()], id: 7 }, /'id' must be a string/],
      [[1, 2, 3], /must be a JSON object/],
    ];
    for (const [body, pattern] of cases) expectError(await postJson(infer(), body), 400, pattern);
  });

  it('a missing input of a model with several: 400', async () => {
    const reply = await postJson(`${server.url}/v2/models/lstm/infer`, { inputs: [{ name: 'input', shape: [32, 1, 64], datatype: 'FP32', data: new Array(2048).fill(0) }] });
    expectError(reply, 400, /input 'h0' is missing/);
  });

  it('malformed JSON, an empty body: 400', async () => {
    expectError(await request(infer(), { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"inputs": [' }), 400, /not valid JSON/);
    expectError(await request(infer(), { method: 'POST', body: 'inputs' }), 400, /not valid JSON/);
    expectError(await request(infer(), { method: 'POST', headers: { 'content-type': 'application/json' } }), 400, /no body/);
  });

  it('a body over the limit: 413', async () => {
    const big = JSON.stringify({ inputs: [tinyInput({ data: new Array(3072).fill(0.123456789012345) })], pad: 'x'.repeat(300 * 1024) });
    expectError(await request(infer(), { method: 'POST', headers: { 'content-type': 'application/json' }, body: big }), 413, /body/i);
  });

  it('binary lengths that disagree: 400', async () => {
    const bytes = Buffer.from(image.buffer);
    const head = (size: number) => ({ inputs: [{ name: 'input', shape: IMAGE, datatype: 'FP32', parameters: { binary_data_size: size } }] });
    const send = (body: Buffer, header?: string) => request(infer(), { method: 'POST', headers: header === undefined ? {} : { 'inference-header-content-length': header }, body });
    // binary_data_size does not match the shape's bytes
    let b = binaryBody(head(100), bytes.subarray(0, 100));
    expectError(await send(b.body, String(b.length)), 400, /binary_data_size is 100 bytes but shape \[1, 3, 32, 32\] of FP32 needs 12288/);
    // the section after the JSON is shorter than binary_data_size says
    b = binaryBody(head(bytes.byteLength), bytes.subarray(0, 1000));
    expectError(await send(b.body, String(b.length)), 400, /binary section after the JSON is 1000 bytes but the inputs' binary_data_size add up to 12288/);
    // extra bytes after the last tensor
    b = binaryBody(head(bytes.byteLength), bytes, Buffer.alloc(4));
    expectError(await send(b.body, String(b.length)), 400, /12292 bytes but .* add up to 12288/);
    // the header claims more JSON than the body has
    expectError(await send(b.body, String(b.body.byteLength + 1)), 400, /Inference-Header-Content-Length is \d+ but the body has only/);
    // the header cuts the JSON short
    expectError(await send(b.body, String(b.length - 5)), 400, /not valid JSON/);
    expectError(await send(b.body, 'twelve'), 400, /must be a non-negative integer/);
    // binary_data_size without the header
    b = binaryBody(head(bytes.byteLength));
    expectError(await send(b.body), 400, /has binary_data_size but the request has no Inference-Header-Content-Length/);
    // both data and binary_data_size
    b = binaryBody({ inputs: [{ ...tinyInput(), parameters: { binary_data_size: 12288 } }] }, bytes);
    expectError(await send(b.body, String(b.length)), 400, /both 'data' and binary_data_size/);
  });

  it('after all of that the server is alive and answers correctly', async () => {
    expect((await request(`${server.url}/v2/health/ready`)).status).toBe(200);
    const reply = await postJson(`${server.url}/v2/models/tiny/infer`, { inputs: [tinyInput()] });
    expect((reply.json().outputs as Array<{ data: number[] }>)[0].data).toEqual(Array.from(reference));
  });

  it('/metrics counts requests by route and status', async () => {
    const text = (await request(`${server.url}/metrics`)).body.toString();
    expect(text).toMatch(/switchyard_requests_total\{route="\/v2\/models\/:model\/infer",model="tiny",version="",status="400"\} (\d+)/);
    expect(text).toMatch(/switchyard_requests_total\{route="\/v2\/models\/:model\/infer",model="tiny",version="",status="413"\} 1/);
    expect(text).toMatch(/switchyard_placement_nodes\{model="tiny",version="1",ep="cpu"\} \d+/);
    expect(text).toMatch(/switchyard_infer_duration_seconds_count\{model="tiny",version="2"\} \d+/);
    expect(text).toMatch(/switchyard_instances\{model="lstm",version="1",state="healthy"\} 1/);
  });
});
