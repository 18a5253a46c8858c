/**
 * com.switchyard::FusedElementwise, the node the elementwise fusion writes for a chain of elementwise
 * ops: its inputs are the chain's outside inputs, its one output the chain's last value, and its
 * program travels as attributes (so an optimized model saved to disk keeps it):
 *   ops: strings, one instruction name each; args: ints, every instruction's arguments in order
 *   (their count is the op's arity); alphas, betas: floats, one each (a const instruction's value is
 *   its alpha).
 * Program inputs are float32 or bool, by the node's input types; the output is float32.
 */
import { AttributeReader, SwitchyardError, nodeLabel, type AttributeValue, type Node } from '@switchyard/core';
import { arityOf, isElementwiseOp, programFault, type ElementwiseInstruction, type ElementwiseProgram, type ProgramElementType } from './program.js';

export const FUSED_ELEMENTWISE_DOMAIN = 'com.switchyard';
export const FUSED_ELEMENTWISE_OP = 'FusedElementwise';

export function isFusedElementwise(node: Node): boolean {
  return node.opType === FUSED_ELEMENTWISE_OP && node.domain === FUSED_ELEMENTWISE_DOMAIN;
}

/** The attributes that carry `instructions`. */
export function fusedAttributes(instructions: readonly ElementwiseInstruction[]): Map<string, AttributeValue> {
  const ops = instructions.map((i) => i.op);
  return new Map<string, AttributeValue>([
    ['ops', { type: 'strings', value: ops }],
    ['args', { type: 'ints', value: instructions.flatMap((i) => i.args) }],
    ['alphas', { type: 'floats', value: instructions.map((i) => (i.op === 'const' ? i.value ?? 0 : i.alpha ?? 0)) }],
    ['betas', { type: 'floats', value: instructions.map((i) => i.beta ?? 0) }],
  ]);
}

/** The instructions a FusedElementwise node carries; INVALID_MODEL when its attributes are malformed. */
export function fusedInstructions(node: Node): ElementwiseInstruction[] {
  const attrs = new AttributeReader(node);
  const ops = attrs.strings('ops');
  const args = attrs.ints('args');
  const alphas = attrs.floats('alphas');
  const betas = attrs.floats('betas');
  const bad = (why: string) => new SwitchyardError('INVALID_MODEL', `node '${nodeLabel(node)}' (FusedElementwise): ${why}`);
  if (alphas.length !== ops.length || betas.length !== ops.length) throw bad('alphas and betas need one value per op');
  const instructions: ElementwiseInstruction[] = [];
  let at = 0;
  for (let k = 0; k < ops.length; k++) {
    const op = ops[k];
    if (!isElementwiseOp(op)) throw bad(`unknown op '${op}'`);
    const n = arityOf(op);
    if (at + n > args.length) throw bad('args ends before every op has its arguments');
    const ins: ElementwiseInstruction = { op, args: args.slice(at, at + n) };
    if (op === 'const') ins.value = alphas[k];
    else [ins.alpha, ins.beta] = [alphas[k], betas[k]];
    instructions.push(ins);
    at += n;
  }
  if (at !== args.length) throw bad(`args has ${args.length - at} value(s) no op reads`);
  return instructions;
}

/** The node's program for inputs of `inputTypes`; INVALID_MODEL when it is malformed. */
export function fusedProgram(node: Node, inputTypes: ProgramElementType[]): ElementwiseProgram {
  const program: ElementwiseProgram = { inputTypes, instructions: fusedInstructions(node), outputType: 'float32' };
  const fault = programFault(program);
  if (fault) throw new SwitchyardError('INVALID_MODEL', `node '${nodeLabel(node)}' (FusedElementwise): ${fault}`);
  return program;
}
