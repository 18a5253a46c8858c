import { describe, expect, it } from 'vitest';
import { SwitchyardError } from '../errors.js';
import { Graph } from '../ir/graph.js';
import { assertTopological, f32, input, interpret, newGraph, node, tinyEvaluator, values } from './fixtures.test.util.js';
import { optimizeGraph } from './optimize-graph.js';
import type { GraphPass } from './types.js';

/** A graph exercising every basic pass once. */
function sampleGraph(): Graph {
  const g = newGraph({ inputs: [input('x', 'float32', [2])], outputs: ['y'], initializers: { a: f32([1, 2]), unused: f32([0]) } });
  node(g, 'Constant', [], ['k'], { attributes: { value: { type: 'tensor', value: f32([3, 4]) } } });
  node(g, 'Add', ['a', 'k'], ['ak']); // folded
  node(g, 'Identity', ['x'], ['xi']); // removed
  node(g, 'Mul', ['xi', 'ak'], ['m1']);
  node(g, 'Mul', ['x', 'ak'], ['m2']); // a duplicate of m1 once the Identity is gone
  node(g, 'Add', ['m1', 'm2'], ['y']);
  node(g, 'Mul', ['x', 'x'], ['dead']);
  return g;
}

describe('optimizeGraph', () => {
  it('reports what each pass did', async () => {
    const g = sampleGraph();
    const report = await optimizeGraph(g, { level: 'basic', evaluateNode: tinyEvaluator() });
    const byName = Object.fromEntries(report.passes.map((p) => [p.name, p]));
    expect(report.passes.map((p) => p.name)).toEqual([
      'constant-folding',
      'identity-elimination',
      'common-subexpression-elimination',
      'dead-code-elimination',
    ]);
    expect(byName['constant-folding'].nodes).toEqual(['k', 'ak']);
    expect(byName['identity-elimination'].nodes).toEqual(['xi']);
    expect(byName['common-subexpression-elimination'].nodes).toEqual(['m2']);
    expect(byName['dead-code-elimination'].nodes).toEqual(['dead']);
    expect(byName['dead-code-elimination'].initializersRemoved.sort()).toEqual(['a', 'k', 'unused']);
    expect(report.passes.map((p) => p.count)).toEqual([2, 1, 1, 1]);
    expect([report.nodesBefore, report.nodesAfter]).toEqual([7, 2]);
    expect(g.nodes.map((n) => n.name)).toEqual(['m1', 'y']);
    expect(values(g.initializers.get('ak'))).toEqual([4, 6]);

    const out = await interpret(g, { x: f32([5, 7]) }, tinyEvaluator());
    expect(values(out.get('y'))).toEqual([40, 84]);
  });

  it('does nothing at level disabled', async () => {
    const g = sampleGraph();
    const report = await optimizeGraph(g, { level: 'disabled', evaluateNode: tinyEvaluator() });
    expect(g.nodes).toHaveLength(7);
    expect(report.passes).toEqual([]);
    expect(report.nodesAfter).toBe(7);
  });

  it('keeps values named in keepOutputs', async () => {
    const g = sampleGraph();
    await optimizeGraph(g, { level: 'basic', evaluateNode: tinyEvaluator(), keepOutputs: ['dead', 'xi'] });
    expect(g.nodes.map((n) => n.name)).toContain('dead');
    expect(g.nodes.find((n) => n.name === 'xi')?.opType).toBe('Identity');
  });

  it('runs extra passes only when the level reaches theirs', async () => {
    const ran: string[] = [];
    const pass = (name: string, level: GraphPass['level']): GraphPass => ({
      name,
      level,
      run: (graph, report) => {
        ran.push(name);
        report.nodes.push(graph.nodes[0].name);
      },
    });
    const extraPasses = [pass('fuse', 'extended'), pass('layout', 'all')];
    const r1 = await optimizeGraph(sampleGraph(), { level: 'extended', evaluateNode: tinyEvaluator(), extraPasses });
    expect(ran).toEqual(['fuse']);
    expect(r1.passes.at(-1)).toMatchObject({ name: 'fuse', level: 'extended', count: 1, nodes: ['m1'] });
    await optimizeGraph(sampleGraph(), { level: 'all', evaluateNode: tinyEvaluator(), extraPasses });
    expect(ran).toEqual(['fuse', 'fuse', 'layout']);
    await optimizeGraph(sampleGraph(), { level: 'basic', evaluateNode: tinyEvaluator(), extraPasses });
    expect(ran).toHaveLength(3);
  });

  it('names an extra pass that leaves the graph malformed', async () => {
    const breaking = (name: string, change: (g: Graph) => void): GraphPass => ({ name, level: 'extended', run: (graph) => change(graph) });
    const run = (pass: GraphPass) => optimizeGraph(sampleGraph(), { level: 'extended', evaluateNode: tinyEvaluator(), extraPasses: [pass] });
    // A node appended at the end but read by an earlier one: the order is broken.
    await expect(run(breaking('cpu:appends', (g) => {
      g.nodes[0].inputs[0] = 'late';
      g.addNode({ opType: 'Neg', name: 'late', inputs: ['x'], outputs: ['late'] });
    }))).rejects.toMatchObject({ code: 'INTERNAL', message: expect.stringMatching(/pass 'cpu:appends' left the graph malformed: node 'm1' \(Mul\) reads 'late' before the node that writes it/) });
    // A producer dropped while its value is still read.
    await expect(run(breaking('cpu:drops', (g) => g.nodes.shift()))).rejects.toMatchObject({ code: 'INTERNAL', message: expect.stringMatching(/'cpu:drops'.*reads 'm1', which nothing defines/) });
    await expect(run(breaking('cpu:twice', (g) => g.addNode({ opType: 'Neg', inputs: ['x'], outputs: ['y'] })))).rejects.toMatchObject({ message: expect.stringMatching(/'cpu:twice'.*writes 'y', which is already defined/) });
    await expect(run(breaking('cpu:loses-output', (g) => g.nodes.pop()))).rejects.toMatchObject({ message: expect.stringMatching(/'cpu:loses-output'.*graph output 'y' is not produced/) });
  });

  it('refuses a graph that arrives out of order: sorting is the loader\'s job, not a pass\'s', async () => {
    const g = sampleGraph();
    g.nodes.reverse();
    await expect(optimizeGraph(g, { level: 'basic', evaluateNode: tinyEvaluator() })).rejects.toMatchObject({ code: 'INVALID_GRAPH', message: expect.stringMatching(/not well formed.*node 'y' \(Add\) reads 'm1' before/) });
  });

  it('refuses a subgraph that arrives malformed as such, rather than blaming the first pass', async () => {
    const g = newGraph({ inputs: [input('x', 'float32', [2]), input('c', 'float32', [])], outputs: ['y'] });
    const branch = new Graph({ name: 'then', opsetImports: new Map(), parent: g, outputs: [{ name: 't' }] });
    branch.addNode({ opType: 'Neg', name: 't', inputs: ['u'], outputs: ['t'] });
    branch.addNode({ opType: 'Relu', name: 'u', inputs: ['x'], outputs: ['u'] });
    node(g, 'If', ['c'], ['y'], { attributes: { then_branch: { type: 'graph', value: branch }, else_branch: { type: 'graph', value: branch } } });
    await expect(optimizeGraph(g, { level: 'basic', evaluateNode: tinyEvaluator() })).rejects.toMatchObject({
      code: 'INVALID_GRAPH',
      message: expect.stringMatching(/subgraph y.then_branch is not well formed.*node 't' \(Neg\) reads 'u' before/),
    });
  });

  it('rejects bad options with a SwitchyardError', async () => {
    const g = sampleGraph();
    await expect(optimizeGraph(g, { level: 'max' as never, evaluateNode: tinyEvaluator() })).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
    await expect(optimizeGraph(g, { level: 'basic', evaluateNode: undefined as never })).rejects.toBeInstanceOf(SwitchyardError);
    await expect(optimizeGraph(g, { level: 'basic', evaluateNode: tinyEvaluator(), maxFoldBytes: -1 })).rejects.toMatchObject({
      code: 'INVALID_ARGUMENT',
    });
    expect(g.nodes).toHaveLength(7);
  });
});

/** Deterministic PRNG (mulberry32) so failures reproduce from the seed. */
function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

let branchCount = 0;

/** An If branch reading outer values, with its own constants, identities and duplicates. */
function randomBranch(parent: Graph, outerPool: string[], r: () => number): Graph {
  const pick = <T>(xs: T[]) => xs[Math.floor(r() * xs.length)];
  const tag = `b${branchCount++}_`;
  const g = new Graph({ name: tag, opsetImports: new Map(), parent });
  const pool = [...outerPool];
  const n = 1 + Math.floor(r() * 5);
  for (let i = 0; i < n; i++) {
    const out = `${tag}${i}`;
    const choice = r();
    if (choice < 0.2) node(g, 'Constant', [], [out], { attributes: { value: { type: 'tensor', value: f32([r() * 4, 1, -1]) } } });
    else if (choice < 0.4) node(g, 'Identity', [pick(pool)], [out]);
    else if (choice < 0.55 && g.nodes.length > 0) {
      const twin = pick(g.nodes);
      node(g, twin.opType, [...twin.inputs], [out], { attributes: Object.fromEntries(twin.attributes) });
    } else node(g, r() < 0.5 ? 'Add' : 'Mul', [pick(pool), pick(pool)], [out]);
    pool.push(out);
  }
  // Sometimes the branch returns an outer value directly.
  g.outputs = [{ name: r() < 0.15 ? pick(outerPool) : pool[pool.length - 1] }];
  return g;
}

/** A random graph of Add/Mul/Identity/Dropout/Constant/If over [3]-float values, with duplicates on purpose. */
function randomGraph(seed: number): Graph {
  const r = rng(seed);
  const pick = <T>(xs: T[]) => xs[Math.floor(r() * xs.length)];
  const small = () => f32([0, 1, 2].map(() => Math.round(r() * 6) - 3));
  const g = newGraph({ inputs: [input('x', 'float32', [3]), input('y', 'float32', [3])], initializers: { c0: small(), c1: small() } });
  const pool = ['x', 'y', 'c0', 'c1'];
  const n = 4 + Math.floor(r() * 14);
  for (let i = 0; i < n; i++) {
    const out = `v${i}`;
    const choice = r();
    if (choice < 0.15) node(g, 'Constant', [], [out], { attributes: { value: { type: 'tensor', value: small() } } });
    else if (choice < 0.25) node(g, 'Identity', [pick(pool)], [out]);
    else if (choice < 0.3) node(g, 'Dropout', [pick(pool)], [out]);
    else if (choice < 0.45 && g.nodes.length > 0) {
      const twin = pick(g.nodes);
      node(g, twin.opType, [...twin.inputs], [out], { attributes: Object.fromEntries(twin.attributes) });
    } else if (choice < 0.55) {
      node(g, 'If', [pick(pool)], [out], {
        attributes: { then_branch: { type: 'graph', value: randomBranch(g, pool, r) }, else_branch: { type: 'graph', value: randomBranch(g, pool, r) } },
      });
    } else node(g, r() < 0.5 ? 'Add' : 'Mul', [pick(pool), pick(pool)], [out]);
    pool.push(out);
  }
  const produced = pool.slice(4);
  const outputs = new Set([pick(produced), pick(produced), pick(pool)]);
  g.outputs = [...outputs].map((name) => ({ name }));
  return g;
}

describe('optimizeGraph on random graphs', () => {
  it('preserves outputs, their names and topological order', async () => {
    const feeds = { x: f32([1.5, -2, 3]), y: f32([0.5, 4, -1]) };
    for (let seed = 1; seed <= 200; seed++) {
      const before = randomGraph(seed);
      const after = randomGraph(seed);
      const expected = await interpret(before, feeds, tinyEvaluator());
      await optimizeGraph(after, { level: 'basic', evaluateNode: tinyEvaluator() });
      expect(after.outputs.map((o) => o.name), `seed ${seed}`).toEqual(before.outputs.map((o) => o.name));
      assertTopological(after);
      const actual = await interpret(after, feeds, tinyEvaluator());
      for (const [name, t] of expected) expect(values(actual.get(name)), `seed ${seed}, output ${name}`).toEqual(values(t));
      expect(after.nodes.length, `seed ${seed}`).toBeLessThanOrEqual(before.nodes.length);
    }
  });
});
