import { it } from 'vitest';
import { randomModel } from './testing/index.js';
it('gen', () => {
  let bad = 0;
  for (let s = 1; s <= 3000; s++) {
    try { randomModel(s); } catch (e) { if (bad++ < 5) console.log('seed', s, (e as Error).stack?.split('\n').slice(0, 4).join(' | ')); }
  }
  console.log('BAD', bad);
});
