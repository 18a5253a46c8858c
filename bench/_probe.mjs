import { InferenceSession, Tensor, registerExecutionProvider } from '@switchyard/core';
import { executionProviderFactory } from '@switchyard/ep-cpu';
import { buildModel } from '@switchyard/core/testing';
registerExecutionProvider(executionProviderFactory);
const s = await InferenceSession.create('examples/models/tiny-cnn.onnx', { executionProviders: ['cpu'], intraOpNumThreads: 1 });
const x = new Tensor('float32', new Float32Array(3072).fill(0.1), [1,3,32,32]);
const r = await s.run({ input: x });
console.log(r.probabilities.data, s.placement.providers, s.providers[0].describe());
let t=performance.now(); for (let i=0;i<100;i++) await s.run({input:x}); console.log((performance.now()-t)/100,'ms');
