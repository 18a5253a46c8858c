/**
 * `--ep rocm:enableHipGraph=1,deviceId=0,cpu` and `--ep-options file.json` → the session's
 * `executionProviders`. Values are typed by the EP's `optionTypes` where its factory declares them,
 * else read as booleans, numbers or JSON when they look like one; the EP still validates them.
 */
import { readFileSync } from 'node:fs';
import { registeredExecutionProviders, type ExecutionProviderOption, type ExecutionProviderOptionType } from '@switchyard/core';
import { CliError } from './cli-error.js';

export const DEFAULT_EPS = ['rocm', 'migraphx', 'cpu'];

export interface EpSpec {
  name: string;
  options: Record<string, unknown>;
}

const TRUE = ['1', 'true', 'yes', 'on'];
const FALSE = ['0', 'false', 'no', 'off'];

function optionTypeOf(ep: string, option: string): ExecutionProviderOptionType | undefined {
  const factory = registeredExecutionProviders().find((f) => f.name === ep);
  // onnxruntime's name for an option (`device_id`) reads as the option it stands for; the registry renames it.
  const alias = factory?.optionAliases?.[option];
  const name = alias === undefined ? option : typeof alias === 'string' ? alias : alias.name;
  return factory?.optionTypes?.[name];
}

/** Reads one `key=value` for `ep` as the type the EP declares (or the type it looks like). */
export function parseOptionValue(ep: string, key: string, text: string): unknown {
  const type = optionTypeOf(ep, key);
  const where = `--ep ${ep}:${key}`;
  switch (type) {
    case 'boolean': {
      const t = text.toLowerCase();
      if (TRUE.includes(t)) return true;
      if (FALSE.includes(t)) return false;
      throw new CliError(`${where} takes a boolean (1/0, true/false), got '${text}'`);
    }
    case 'integer': {
      const n = Number(text);
      if (text.trim() === '' || !Number.isSafeInteger(n)) throw new CliError(`${where} takes an integer, got '${text}'`);
      return n;
    }
    case 'number': {
      const n = Number(text);
      if (text.trim() === '' || Number.isNaN(n)) throw new CliError(`${where} takes a number, got '${text}'`);
      return n;
    }
    case 'string':
      return text;
    case 'json':
      return parseJson(text, where);
    default:
      // No declared type: the EP is custom or the option unknown (the EP will say so).
      if (text === 'true' || text === 'false') return text === 'true';
      if (/^-?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/.test(text)) return Number(text);
      if (/^[[{]/.test(text)) return parseJson(text, where);
      return text;
  }
}

function parseJson(text: string, where: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch (err) {
    throw new CliError(`${where}: not valid JSON (${(err as Error).message}); values with commas go in --ep-options FILE`);
  }
}

/** `rocm:enableHipGraph=1,deviceId=0,cpu` (one or more `--ep` values) → EP specs in order. */
export function parseEpArgs(values: readonly string[]): EpSpec[] {
  const specs: EpSpec[] = [];
  for (const value of values) {
    let current: EpSpec | undefined;
    for (const raw of value.split(',')) {
      const token = raw.trim();
      if (!token) continue;
      const colon = token.indexOf(':');
      const eq = token.indexOf('=');
      let option = token;
      if (colon > 0 && (eq < 0 || colon < eq)) {
        current = addSpec(specs, token.slice(0, colon));
        option = token.slice(colon + 1);
        if (!option) continue;
      } else if (eq < 0) {
        current = addSpec(specs, token);
        continue;
      }
      const at = option.indexOf('=');
      if (!current) throw new CliError(`--ep: option '${option}' comes before any EP name (write --ep name:${option})`);
      if (at <= 0) throw new CliError(`--ep ${current.name}: options are key=value, got '${option}'`);
      const key = option.slice(0, at);
      current.options[key] = parseOptionValue(current.name, key, option.slice(at + 1));
    }
  }
  return specs;
}

function addSpec(specs: EpSpec[], name: string): EpSpec {
  if (!/^[\w.-]+$/.test(name)) throw new CliError(`--ep: '${name}' is not an EP name`);
  if (specs.some((s) => s.name === name)) throw new CliError(`--ep lists '${name}' twice`);
  const spec = { name, options: {} };
  specs.push(spec);
  return spec;
}

/**
 * A JSON file of EP options: either `{ "rocm": { "deviceId": 1 }, … }` (options per EP named in
 * `--ep`, or the EP list itself when `--ep` is absent), or the whole `executionProviders` list:
 * `["rocm", { "name": "migraphx", "fp16": true }, "cpu"]`.
 */
export function readEpOptionsFile(path: string, fromArgs: EpSpec[] | undefined): EpSpec[] {
  let json: unknown;
  try {
    json = JSON.parse(readFileSync(path, 'utf8'));
  } catch (err) {
    throw new CliError(`--ep-options ${path}: ${(err as Error).message}`);
  }
  const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
  if (Array.isArray(json)) {
    if (fromArgs) throw new CliError(`--ep-options ${path} lists the EPs itself; leave out --ep`);
    return json.map((entry) => {
      if (typeof entry === 'string') return { name: entry, options: {} };
      if (isObject(entry) && typeof entry.name === 'string') {
        const { name, ...options } = entry;
        return { name: name as string, options };
      }
      throw new CliError(`--ep-options ${path}: each entry is an EP name or { "name": …, options }, got ${JSON.stringify(entry)}`);
    });
  }
  if (!isObject(json)) throw new CliError(`--ep-options ${path}: expected an object of options per EP or a list of EPs`);
  const specs = fromArgs ?? Object.keys(json).map((name) => ({ name, options: {} }));
  for (const [name, options] of Object.entries(json)) {
    const spec = specs.find((s) => s.name === name);
    if (!spec) throw new CliError(`--ep-options ${path} has options for '${name}', which --ep does not list (${specs.map((s) => s.name).join(', ')})`);
    if (!isObject(options)) throw new CliError(`--ep-options ${path}: options for '${name}' must be an object`);
    // Options written on the command line win over the file's.
    spec.options = { ...options, ...spec.options };
  }
  return specs;
}

/** The `executionProviders` value for a session, and the EP names in order for display. */
export function resolveEpSpecs(epArgs: readonly string[] | undefined, optionsFile: string | undefined): { configs: Array<string | ExecutionProviderOption>; names: string[] } {
  let specs = epArgs && epArgs.length ? parseEpArgs(epArgs) : undefined;
  if (optionsFile) specs = readEpOptionsFile(optionsFile, specs);
  specs ??= DEFAULT_EPS.map((name) => ({ name, options: {} }));
  if (specs.length === 0) throw new CliError('--ep lists no EP');
  return {
    configs: specs.map((s) => (Object.keys(s.options).length ? { name: s.name, ...s.options } : s.name)),
    names: specs.map((s) => s.name),
  };
}
