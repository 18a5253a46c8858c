/**
 * One self-contained HTML file: the report's data as JSON, dagre's browser build and the viewer script
 * inline, so it opens from disk with no network.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { CliError } from '../cli-error.js';
import type { ReportData } from './report-data.js';
import { VIEWER_SCRIPT } from './viewer-script.js';

/** dagre's browser build (a UMD file defining `dagre`), from the CLI's own dependency. */
export function dagreSource(): string {
  const require = createRequire(import.meta.url);
  let path: string;
  try {
    // The package's exports map hides dist/; its manifest locates the folder.
    path = join(dirname(require.resolve('@dagrejs/dagre/package.json')), 'dist', 'dagre.min.js');
  } catch (err) {
    throw new CliError(`--html needs the @dagrejs/dagre package (a dependency of @switchyard/cli): ${(err as Error).message.split('\n')[0]}`);
  }
  return readFileSync(path, 'utf8');
}

/** `<`, `>` and `&` escaped, so no string inside can close the script element. */
function scriptSafe(text: string): string {
  return text.replace(/</g, '\\u003c').replace(/>/g, '\\u003e').replace(/&/g, '\\u0026');
}

const STYLE = `
* { box-sizing: border-box; }
body { margin: 0; font: 13px/1.4 system-ui, sans-serif; color: #222; display: grid; grid-template-columns: 340px 1fr 360px; height: 100vh; }
aside { overflow: auto; padding: 10px 12px; border-right: 1px solid #ddd; }
#details { border-right: 0; border-left: 1px solid #ddd; }
main { position: relative; overflow: hidden; }
#graph { width: 100%; height: 100%; cursor: grab; background: #fafafa; }
#toolbar { position: absolute; top: 8px; left: 8px; display: flex; gap: 6px; }
h1 { font-size: 15px; word-break: break-all; margin: 0 0 6px; }
h2 { font-size: 14px; word-break: break-all; margin: 0 0 6px; }
h3 { font-size: 12px; margin: 12px 0 4px; text-transform: uppercase; color: #555; }
.row { margin: 4px 0; }
.unavailable { color: #9a3412; }
table { border-collapse: collapse; }
td, th { padding: 1px 6px 1px 0; text-align: left; vertical-align: top; word-break: break-all; }
.swatch { display: inline-block; width: 10px; height: 10px; border-radius: 2px; margin-right: 4px; border: 1px solid #0003; }
.node { cursor: pointer; }
.node .box { stroke: #0005; }
.node .box.partition { stroke: #222; stroke-width: 2; stroke-dasharray: 5 2; }
.node .heat { fill: #d00; pointer-events: none; }
.node text { pointer-events: none; }
.node .op { font-weight: 600; font-size: 11px; }
.node .name { font-size: 10px; fill: #333; }
.node.match .box { stroke: #d00; stroke-width: 3; }
.node.selected .box { stroke: #000; stroke-width: 3; }
.io rect { fill: #fff; stroke: #888; }
.io text { font-size: 11px; }
.edge { fill: none; stroke: #999; stroke-width: 1.2; }
.edge.copy { stroke: #c00; stroke-width: 2; stroke-dasharray: 6 3; }
.copy-label { font-size: 10px; fill: #c00; }
#results a { display: block; padding: 2px 0; color: #124; text-decoration: none; word-break: break-all; }
#results .count { color: #555; margin: 4px 0; }
.dim { color: #777; }
ul { padding-left: 16px; margin: 4px 0; }
.slowest { padding-left: 22px; margin: 4px 0; word-break: break-all; }
`;

export function reportPage(data: ReportData): string {
  const title = `Switchyard — ${data.model}`.replace(/[<&]/g, (c) => (c === '<' ? '&lt;' : '&amp;'));
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>${title}</title>
<link rel="icon" href="data:,">
<style>${STYLE}</style>
</head>
<body>
<aside id="side">
  <div id="summary"></div>
  <h3>Search</h3>
  <input id="search" type="search" placeholder="node name or op (Enter: next)" style="width:100%">
  <div id="results"></div>
</aside>
<main>
  <svg id="graph" xmlns="http://www.w3.org/2000/svg"></svg>
  <div id="toolbar"><button id="fit" type="button">Fit</button></div>
</main>
<aside id="details"><p class="dim">Click a node to see its op, EP, implementation, the reason each earlier EP declined it, its inputs, outputs and attributes.</p></aside>
<script type="application/json" id="switchyard-data">${scriptSafe(JSON.stringify(data))}</script>
<script>${dagreSource()}</script>
<script>${VIEWER_SCRIPT}</script>
</body>
</html>
`;
}
