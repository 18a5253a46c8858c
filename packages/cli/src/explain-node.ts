/**
 * Why a node runs where it does, in words: what the optimizer did to it (followed through fusions to
 * the node that finally runs), then for that node the EP that took it and why each earlier EP did not.
 */
import { nodeLabel, type InferenceSession, type Node, type NodePlacement, type PassReport } from '@switchyard/core';

export interface OptimizerStep {
  pass: string;
  level: string;
  /** What became of the node: replaced by `into` (with `alongside`), or removed outright. */
  into?: string;
  alongside?: string[];
  sentence: string;
}

export interface NodeExplanation {
  node: string;
  /** The node in the model as loaded (absent when only the optimizer's output has it). */
  original?: { opType: string; domain: string; inputs: string[]; outputs: string[] };
  optimizer: OptimizerStep[];
  /** The node that runs in the end, when one does. */
  placement?: NodePlacement;
  /** One line per EP in the priority list. */
  providers: Array<{ ep: string; verdict: 'took it' | 'declined' | 'unavailable' | 'not asked'; reason?: string }>;
  copies: Array<{ value: string; from: string; to: string }>;
  sentences: string[];
}

const BASIC_REASONS: Record<string, string> = {
  'constant-folding': 'its outputs depend only on constants, so they were computed once while optimizing and stored as initializers',
  'identity-elimination': 'it passed its input through unchanged, so readers now take that input directly',
  'common-subexpression-elimination': 'it repeated the computation of an identical node (same op, inputs and attributes), whose outputs its readers now use',
  'dead-code-elimination': 'no graph output depends on it',
};

function placementLabel(p: NodePlacement): string {
  return p.graph ? `${p.graph}/${p.name}` : p.name;
}

function findPlacement(session: InferenceSession, name: string): NodePlacement | undefined {
  return session.placement.nodes.find((p) => p.name === name || placementLabel(p) === name);
}

/** Follows `name` through the optimizer's reports until it reaches a node that runs (or was removed). */
function followOptimizer(session: InferenceSession, name: string): { steps: OptimizerStep[]; final?: string } {
  const steps: OptimizerStep[] = [];
  const passes: readonly PassReport[] = session.optimization.report.passes;
  let current = name;
  const seen = new Set<string>();
  for (;;) {
    if (seen.has(current)) return { steps, final: current };
    seen.add(current);
    // Rewritten in place (a pass lists it, yet it still runs): say so, and stop here.
    const touching = passes.filter((p) => p.nodes.includes(current) && !p.replacements?.some((r) => r.nodes.includes(current)));
    if (findPlacement(session, current)) {
      for (const p of touching) steps.push({ pass: p.name, level: p.level, sentence: `${p.name} (${p.level}) rewrote '${current}' in place.` });
      return { steps, final: current };
    }
    const replacing = passes.find((p) => p.replacements?.some((r) => r.nodes.includes(current)));
    if (replacing) {
      const r = replacing.replacements!.find((x) => x.nodes.includes(current))!;
      const alongside = r.nodes.filter((n) => n !== current);
      const sentence = `${replacing.name} (${replacing.level}) replaced '${current}'${alongside.length ? ` together with ${alongside.map((n) => `'${n}'`).join(', ')}` : ''} by '${r.by}'.`;
      steps.push({ pass: replacing.name, level: replacing.level, into: r.by, alongside, sentence });
      current = r.by;
      continue;
    }
    const removing = passes.find((p) => p.nodes.includes(current));
    if (removing) {
      const why = BASIC_REASONS[removing.name] ?? 'the pass folded its work into other nodes';
      steps.push({ pass: removing.name, level: removing.level, sentence: `${removing.name} (${removing.level}) removed '${current}': ${why}.` });
    }
    return { steps };
  }
}

/** Explains `name` for a session created from the model whose original nodes are `originalNodes`. */
export function explainNode(session: InferenceSession, requested: readonly string[], originalNodes: readonly Node[], name: string): NodeExplanation | undefined {
  const original = originalNodes.find((n) => nodeLabel(n) === name);
  const { steps, final } = followOptimizer(session, name);
  if (!original && steps.length === 0 && !final) return undefined;
  const placement = final ? findPlacement(session, final) : undefined;
  const out: NodeExplanation = {
    node: name,
    original: original && { opType: original.opType, domain: original.domain, inputs: [...original.inputs], outputs: [...original.outputs] },
    optimizer: steps,
    placement,
    providers: [],
    copies: [],
    sentences: [],
  };
  const s = out.sentences;
  s.push(original ? `'${name}' is a${/^[AEIOU]/.test(original.opType) ? 'n' : ''} ${original.domain ? original.domain + '.' : ''}${original.opType} node of the model.` : `'${name}' is not in the model as loaded; the optimizer made it.`);
  for (const st of steps) s.push(st.sentence);
  if (!placement) {
    if (steps.length) s.push(`So '${name}' does not run on any EP.`);
    return out;
  }
  const where = `${placement.ep} (implementation: ${placement.implementation || 'kernel'}${placement.partition ? `, in fused partition ${placement.partition}` : ''})`;
  s.push(final === name ? `It runs on ${where}.` : `'${final}' (${placement.opType}) runs on ${where}.`);
  // The session's EP list: what was requested, with cpu appended as the session appends it.
  const order = [...requested];
  for (const p of session.placement.providers) if (!order.includes(p.name)) order.push(p.name);
  let reached = false;
  for (const ep of order) {
    if (reached) {
      out.providers.push({ ep, verdict: 'not asked' });
      continue;
    }
    if (ep === placement.ep) {
      out.providers.push({ ep, verdict: 'took it' });
      reached = true;
      continue;
    }
    const skipped = session.placement.skipped.find((x) => x.name === ep);
    const declined = placement.declined.find((d) => d.ep === ep);
    if (skipped) {
      out.providers.push({ ep, verdict: 'unavailable', reason: skipped.reason });
      s.push(`${ep} was not available, so it took no node: ${skipped.reason.split('\n')[0]}`);
    } else if (declined) {
      const reason = `${declined.reason.kind}: ${declined.reason.message}`;
      out.providers.push({ ep, verdict: 'declined', reason });
      s.push(`${ep} came earlier in the priority list but declined it (${reason}).`);
    } else {
      out.providers.push({ ep, verdict: 'declined', reason: 'no reason recorded' });
      s.push(`${ep} came earlier in the priority list but did not take it (no reason recorded).`);
    }
  }
  // partitioning 'cost' weighed it: a move is already among the declines above; a node kept is said here.
  if (placement.reason && !placement.declined.some((d) => d.reason.kind === 'cost')) s.push(`Partitioning by cost weighed it: ${placement.reason}.`);
  const finalNode = session.model.graph.nodes.find((n) => nodeLabel(n) === final);
  if (finalNode) {
    const values = new Set([...finalNode.inputs, ...finalNode.outputs]);
    out.copies = session.placement.copies.filter((c) => values.has(c.value)).map((c) => ({ value: c.value, from: c.from, to: c.to }));
    for (const c of out.copies) s.push(`'${c.value}' is copied from ${c.from} to ${c.to} next to it.`);
  }
  return out;
}

/** Node names close to `name`, for "did you mean". */
export function similarNames(names: Iterable<string>, name: string, max = 5): string[] {
  const lower = name.toLowerCase();
  return [...new Set(names)].filter((n) => n.toLowerCase().includes(lower) || lower.includes(n.toLowerCase())).slice(0, max);
}
