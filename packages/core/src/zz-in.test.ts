import { it } from 'vitest';
import { randomModel } from './testing/index.js';
it('in', () => { for (const s of (process.env.SEEDS ?? '213').split(',').map(Number)) { const m = randomModel(s); console.log('INPUTS', s, m.model.graph.inputs.map((i) => i.name + (m.model.graph.initializers.has(i.name) ? '(init)' : '')).join(' ')); } });
