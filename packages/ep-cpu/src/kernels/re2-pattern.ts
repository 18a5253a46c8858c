/**
 * RE2 patterns (what ONNX's RegexFullMatch specifies) as JavaScript RegExps. The two syntaxes share
 * most of their grammar; where they part, this either rewrites the RE2 form into the JS form that
 * means the same, or refuses the pattern with a coded error rather than match differently:
 *
 * - `.` is any code point but `\n` in RE2 (JS also excludes `\r`, U+2028, U+2029): written `[^\n]`.
 * - `\s` is `[\t\n\f\r ]` in RE2 (JS: all Unicode space): written out; `\S` likewise.
 * - `\pL` (one-letter class without braces) becomes `\p{L}`; `(?P<name>` becomes `(?<name>`.
 * - A leading `(?i)`, `(?s)` or `(?is)` becomes the RegExp's flags (`m` is refused: JS's multiline
 *   anchors also break lines at `\r`, U+2028 and U+2029).
 * - `\x{HHHH}` becomes `\u{HHHH}`.
 * - A backslash before punctuation is a literal in both; JS's `u` mode rejects some, so those are
 *   written bare (or escaped where JS gives them meaning).
 * - Refused: backreferences and lookaround (RE2 has none), `\A \z \Q \E \C`, POSIX `[[:class:]]`,
 *   flag groups other than a leading one, and anything else JS cannot compile.
 *
 * RE2 runs in linear time; a JS RegExp backtracks. The patterns are the model's, not the user's
 * input, but a model with a pathological pattern can still run slowly on long strings.
 */
import { SwitchyardError } from '@switchyard/core';

/** Punctuation JS gives meaning to (and so accepts escaped in `u` mode). */
const JS_SYNTAX = new Set('^$\\.*+?()[]{}|/'.split(''));
/** Letter escapes that mean the same in both (`\s`, `\S`, `\p` are handled apart). */
const SAME_LETTER_ESCAPES = new Set('dDwWbBnrtfv'.split(''));
const RE2_SPACE = '\\t\\n\\f\\r ';

function refuse(op: string, pattern: string, why: string): never {
  throw new SwitchyardError('UNSUPPORTED', `${op}: pattern '${pattern}' ${why}; only RE2 syntax that JavaScript matches the same way is supported`);
}

/** Compiles an RE2 pattern into a RegExp that matches whole strings only. */
export function compileRe2FullMatch(pattern: string, op: string): RegExp {
  let flags = 'u';
  let i = 0;
  const lead = /^\(\?([is]+)\)/.exec(pattern);
  if (lead) {
    for (const f of lead[1]) if (!flags.includes(f)) flags += f;
    i = lead[0].length;
  }
  const dotAll = flags.includes('s');
  let out = '';
  let inClass = false;
  while (i < pattern.length) {
    const c = pattern[i];
    if (c === '\\') {
      const e = pattern[i + 1];
      if (e === undefined) refuse(op, pattern, 'ends in a lone backslash');
      i += 2;
      if (/[0-9]/.test(e)) refuse(op, pattern, `uses \\${e} (a backreference or octal escape)`);
      if (e === 's' || e === 'S') {
        if (inClass && e === 'S') refuse(op, pattern, 'uses \\S inside a character class');
        out += inClass ? RE2_SPACE : e === 's' ? `[${RE2_SPACE}]` : `[^${RE2_SPACE}]`;
      } else if (e === 'p' || e === 'P') {
        if (pattern[i] === '{') {
          const close = pattern.indexOf('}', i);
          if (close < 0) refuse(op, pattern, 'has an unclosed \\p{');
          out += `\\${e}${pattern.slice(i, close + 1)}`;
          i = close + 1;
        } else {
          if (!/[A-Za-z]/.test(pattern[i] ?? '')) refuse(op, pattern, 'has a malformed \\p class');
          out += `\\${e}{${pattern[i]}}`;
          i++;
        }
      } else if (e === 'x') {
        out += pattern[i] === '{' ? '\\u' : '\\x';
      } else if (SAME_LETTER_ESCAPES.has(e)) {
        if (inClass && (e === 'b' || e === 'B')) refuse(op, pattern, `uses \\${e} inside a character class`);
        out += `\\${e}`;
      } else if (/[A-Za-z]/.test(e)) {
        refuse(op, pattern, `uses \\${e}`);
      } else if (JS_SYNTAX.has(e) || (inClass && e === '-')) {
        out += `\\${e}`;
      } else {
        out += e; // other punctuation: a plain literal either way (JS's u mode rejects it escaped)
      }
      continue;
    }
    if (inClass) {
      if (c === '[' && pattern[i + 1] === ':') refuse(op, pattern, 'uses a POSIX [[:class:]]');
      if (c === ']') inClass = false;
      out += c === '[' ? '\\[' : c;
      i++;
      continue;
    }
    if (c === '[') {
      inClass = true;
      out += c;
      i++;
      // A ']' first in a class (or after '^') is a literal in RE2; JS would end the class there.
      if (pattern[i] === '^') {
        out += '^';
        i++;
      }
      if (pattern[i] === ']') {
        out += '\\]';
        i++;
      }
      continue;
    }
    if (c === '(' && pattern[i + 1] === '?') {
      const rest = pattern.slice(i + 2);
      if (rest.startsWith(':')) out += '(?:';
      else if (rest.startsWith('P<')) out += '(?<';
      else if (rest.startsWith('<') && !rest.startsWith('<=') && !rest.startsWith('<!')) out += '(?<';
      else refuse(op, pattern, 'uses a (? group other than (?:, (?P<name> or a leading flag group');
      i += rest.startsWith('P<') ? 4 : 3; // past '(?P<', or past '(?:' / '(?<'
      continue;
    }
    if (c === '.' && !dotAll) out += '[^\\n]';
    else out += c;
    i++;
  }
  try {
    return new RegExp(`^(?:${out})$`, flags);
  } catch (err) {
    return refuse(op, pattern, `does not compile (${(err as Error).message})`);
  }
}
