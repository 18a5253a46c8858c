/** `switchyard explain MODEL --node NAME [--ep …] [--json]`: why that node landed where it did. */
import { InferenceSession, loadModel, nodeLabel } from '@switchyard/core';
import { CliError } from '../cli-error.js';
import { explainNode, similarNames } from '../explain-node.js';
import { feedsFor } from '../feeds.js';
import { finishProfile, sessionOptionsFrom, type SessionArgs } from '../session-args.js';

export interface ExplainArgs extends SessionArgs {
  model: string;
  node: string;
  inputs: string[];
  json: boolean;
}

export async function explainCommand(args: ExplainArgs): Promise<void> {
  const { options, names } = sessionOptionsFrom(args);
  // The session rewrites its model in place: a second load keeps the nodes as the file has them.
  const original = await loadModel(args.model);
  const session = await InferenceSession.create(args.model, options);
  try {
    const explanation = explainNode(session, names, original.graph.nodes, args.node);
    if (!explanation) {
      const known = [...original.graph.nodes.map(nodeLabel), ...session.placement.nodes.map((p) => p.name)];
      const close = similarNames(known, args.node);
      throw new CliError(`no node '${args.node}' in ${args.model}${close.length ? `; similar: ${close.join(', ')}` : ''}`);
    }
    let timing: string | undefined;
    if (args.profile) {
      await session.run(feedsFor(session.inputMetadata, args.inputs));
      const target = explanation.placement?.name;
      const events = session.profileEvents.filter((e) => e.name === target || (explanation.placement?.partition && e.name === explanation.placement.partition));
      if (events.length) timing = `One profiled run: ${events.reduce((a, e) => a + e.end - e.start, 0).toFixed(3)} ms in '${events[0].name}'.`;
      finishProfile(session, args.profile);
    }
    if (args.json) {
      process.stdout.write(JSON.stringify({ model: args.model, eps: names, ...explanation, timing }, null, 2) + '\n');
      return;
    }
    const lines = [`Switchyard explain — ${args.node} in ${args.model} on [${names.join(', ')}]`, '', ...explanation.sentences.map((l) => `  ${l}`)];
    if (explanation.original) lines.push('', `  inputs: ${explanation.original.inputs.filter(Boolean).join(', ')}`, `  outputs: ${explanation.original.outputs.join(', ')}`);
    if (timing) lines.push('', `  ${timing}`);
    process.stdout.write(lines.join('\n') + '\n');
  } finally {
    await session.release();
  }
}
