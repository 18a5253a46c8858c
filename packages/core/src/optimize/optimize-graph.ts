/**
 * The optimizer driver. Level `basic` runs four semantics-preserving passes to a fixed point on every
 * graph, innermost subgraphs first (so an outer graph sees what its subgraphs still capture):
 * constant folding → identity elimination → CSE → dead-code elimination; before them, once, the main
 * graph's shape elements that shape inference knows become constants (shape-folding.ts, reported as
 * constant folding). `extended`/`all` add the
 * passes callers contribute (`extraPasses`), run once after the basic ones on the main graph.
 *
 * The graph is changed in place. Graph inputs and outputs keep their names; nodes stay in topological
 * order (passes only remove nodes or rename values to ones defined earlier). The graph must arrive
 * well formed (loadModel and InferenceSession sort nodes on load) and is checked after every pass,
 * so a pass that breaks it fails at once with INTERNAL, naming the pass.
 */
import { SwitchyardError } from '../errors.js';
import { subgraphsOf, type Graph } from '../ir/graph.js';
import { eliminateCommonSubexpressions } from './common-subexpression.js';
import { foldConstants, type FoldOptions } from './constant-folding.js';
import { foldShapes } from './shape-folding.js';
import { eliminateDeadCode } from './dead-code-elimination.js';
import { eliminateIdentities } from './identity-elimination.js';
import { changedGraph, type PassResult } from './pass-result.js';
import { type Scope } from './scope.js';
import { nodeLabel } from '../ir/graph.js';
import { findMalformation, namesDefinedBy } from '../ir/well-formed.js';
import type { OuterNames } from '../ir/topological-order.js';
import type { GraphOptimizationLevel, OptimizeOptions, OptimizeReport, PassReport } from './types.js';

export const DEFAULT_MAX_FOLD_BYTES = 16 * 1024 * 1024;

/** Rounds per graph before we stop looking for more work; each round that changes nothing ends it early. */
const MAX_ROUNDS = 8;

const LEVELS: readonly GraphOptimizationLevel[] = ['disabled', 'basic', 'extended', 'all'];

export const BASIC_PASSES = [
  'constant-folding',
  'identity-elimination',
  'common-subexpression-elimination',
  'dead-code-elimination',
] as const;
export type BasicPassName = (typeof BASIC_PASSES)[number];

function newReport(name: string, level: PassReport['level']): PassReport {
  return { name, level, nodes: [], count: 0, initializersAdded: [], initializersRemoved: [], skipped: [] };
}

/** Nodes in `graph` and, recursively, its subgraphs. */
export function countNodes(graph: Graph): number {
  let n = 0;
  for (const node of graph.nodes) {
    n += 1;
    for (const g of subgraphsOf(node)) n += countNodes(g);
  }
  return n;
}

function validate(graph: unknown, options: OptimizeOptions): void {
  if (!options || !LEVELS.includes(options.level)) {
    throw new SwitchyardError('INVALID_ARGUMENT', `optimizeGraph: level must be one of ${LEVELS.join(', ')}, got '${String(options?.level)}'`);
  }
  if (!graph || typeof graph !== 'object' || !Array.isArray((graph as Graph).nodes)) {
    throw new SwitchyardError('INVALID_ARGUMENT', 'optimizeGraph: graph must be a Graph');
  }
  if (options.level !== 'disabled' && typeof options.evaluateNode !== 'function') {
    throw new SwitchyardError('INVALID_ARGUMENT', 'optimizeGraph: evaluateNode must be a function');
  }
  const max = options.maxFoldBytes;
  if (max !== undefined && !(Number.isFinite(max) && max >= 0)) {
    throw new SwitchyardError('INVALID_ARGUMENT', `optimizeGraph: maxFoldBytes must be a non-negative number, got ${String(max)}`);
  }
}

/** Throws when `graph` (one scope, `outer` being what encloses it) is not well formed after `stage`. */
function checkAfter(stage: string, graph: Graph, outer: OuterNames | undefined, where: string): void {
  const problem = findMalformation(graph, outer);
  if (problem) {
    throw new SwitchyardError('INTERNAL', `optimizer pass '${stage}' left ${where ? `subgraph ${where}` : 'the graph'} malformed: ${problem}`);
  }
}

export async function optimizeGraph(graph: Graph, options: OptimizeOptions): Promise<OptimizeReport> {
  validate(graph, options);
  const level = options.level;
  const report: OptimizeReport = { level, passes: [], nodesBefore: countNodes(graph), nodesAfter: 0, rounds: 0 };
  if (level === 'disabled') {
    report.nodesAfter = report.nodesBefore;
    return report;
  }

  const basic = new Map<BasicPassName, PassReport>(BASIC_PASSES.map((p) => [p, newReport(p, 'basic')]));
  report.passes.push(...basic.values());
  const fold: FoldOptions = { evaluateNode: options.evaluateNode, maxFoldBytes: options.maxFoldBytes ?? DEFAULT_MAX_FOLD_BYTES };

  const record = (pass: BasicPassName, prefix: string, r: PassResult): boolean => {
    const p = basic.get(pass)!;
    const q = (s: string) => prefix + s;
    p.nodes.push(...r.nodes.map(q));
    p.initializersAdded.push(...r.initializersAdded.map(q));
    p.initializersRemoved.push(...r.initializersRemoved.map(q));
    // A candidate left alone is looked at again every round; report it once.
    for (const s of r.skipped) {
      const entry = { node: q(s.node), reason: s.reason };
      if (!p.skipped.some((e) => e.node === entry.node && e.reason === entry.reason)) p.skipped.push(entry);
    }
    p.count = p.nodes.length;
    return changedGraph(r);
  };

  /** Optimizes one graph after its subgraphs; returns the rounds it took. */
  const optimizeScope = async (scope: Scope, prefix: string, outer: OuterNames | undefined): Promise<number> => {
    const where = prefix.replace(/\/$/, '');
    const given = findMalformation(scope.graph, outer);
    if (given) {
      const what = where ? `subgraph ${where}` : 'the graph';
      throw new SwitchyardError('INVALID_GRAPH', `optimizeGraph: ${what} is not well formed (sortGraphTopologically orders nodes): ${given}`);
    }
    // Subgraphs are optimized before this graph changes, so what it defines is read once for them all.
    let here: OuterNames | undefined;
    for (const node of scope.graph.nodes) {
      for (const [attr, value] of node.attributes) {
        const subs = value.type === 'graph' ? [value.value] : value.type === 'graphs' ? value.value : [];
        for (let i = 0; i < subs.length; i++) {
          const sub = subs[i];
          const subPrefix = `${prefix}${nodeLabel(node)}.${attr}${value.type === 'graphs' ? `[${i}]` : ''}/`;
          here ??= namesDefinedBy(scope.graph, outer);
          await optimizeScope({ graph: sub, parent: scope, protectedNames: new Set(sub.outputs.map((o) => o.name)) }, subPrefix, here);
        }
      }
    }
    const checked = (pass: BasicPassName, r: PassResult): boolean => {
      checkAfter(pass, scope.graph, outer, where);
      return record(pass, prefix, r);
    };
    // Once, before constant folding evaluates what it leaves constant.
    checked('constant-folding', foldShapes(scope));
    let rounds = 0;
    while (rounds < MAX_ROUNDS) {
      rounds++;
      let changed = checked('constant-folding', await foldConstants(scope, fold));
      changed = checked('identity-elimination', eliminateIdentities(scope)) || changed;
      changed = checked('common-subexpression-elimination', eliminateCommonSubexpressions(scope)) || changed;
      changed = checked('dead-code-elimination', eliminateDeadCode(scope)) || changed;
      if (!changed) break;
    }
    return rounds;
  };

  const protectedNames = new Set([...graph.outputs.map((o) => o.name), ...(options.keepOutputs ?? [])]);
  report.rounds = await optimizeScope({ graph, protectedNames }, '', undefined);

  for (const pass of options.extraPasses ?? []) {
    if (LEVELS.indexOf(pass.level) > LEVELS.indexOf(level)) continue;
    const p = newReport(pass.name, pass.level);
    await pass.run(graph, p);
    checkAfter(pass.name, graph, undefined, '');
    p.count = p.nodes.length;
    report.passes.push(p);
  }

  report.nodesAfter = countNodes(graph);
  return report;
}
