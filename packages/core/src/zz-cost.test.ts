import { it } from 'vitest';
import { loadModel, sortGraphTopologically, findMalformation, countNodes } from './index.js';
it('cost', async () => {
  for (const m of ['resnet50', 'bert', 'gpt2_decoder', 'bert', 'gpt2_decoder']) {
    const model = await loadModel(`/work/wt/core-order/models/generated/${m}/model.onnx`);
    const g = model.graph;
    let t = performance.now();
    for (let i = 0; i < 10; i++) sortGraphTopologically(g);
    const sort = (performance.now() - t) / 10;
    t = performance.now();
    for (let i = 0; i < 10; i++) findMalformation(g);
    const check = (performance.now() - t) / 10;
    console.log('COST', m, 'nodes', countNodes(g), 'sort ms', sort.toFixed(2), 'check ms', check.toFixed(2));
  }
}, 600000);
