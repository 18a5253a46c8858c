/**
 * The report page's own script, run in the browser: lays the main graph out with dagre (inlined beside
 * it), draws it as SVG, and wires pan, zoom, click-for-details and search. Kept as source text so the
 * page needs nothing but itself; it uses no backticks or `${`, which end or interpolate this template.
 */
export const VIEWER_SCRIPT = String.raw`
(function () {
  'use strict';
  var data = JSON.parse(document.getElementById('switchyard-data').textContent);
  var SVGNS = 'http://www.w3.org/2000/svg';
  var PALETTE = ['#f4a261', '#2a9d8f', '#e9c46a', '#8ecae6', '#b5838d', '#90be6d', '#cdb4db'];
  var colorOf = {};
  data.providers.forEach(function (p, i) { colorOf[p.name] = PALETTE[i % PALETTE.length]; });

  function el(tag, attrs, parent) {
    var e = document.createElementNS(SVGNS, tag);
    for (var k in attrs) e.setAttribute(k, attrs[k]);
    if (parent) parent.appendChild(e);
    return e;
  }
  function esc(s) {
    return String(s).replace(/[&<>"']/g, function (c) { return { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' }[c]; });
  }
  function pct(x) { return (x * 100).toFixed(1) + '%'; }
  function bytes(n) {
    if (n === undefined || n === null) return 'unknown';
    var units = ['B', 'KiB', 'MiB', 'GiB'];
    var i = 0;
    while (n >= 1024 && i < units.length - 1) { n /= 1024; i++; }
    return (i ? n.toFixed(1) : String(n)) + ' ' + units[i];
  }
  function short(s, n) { return s.length > n ? s.slice(0, n - 1) + '\u2026' : s; }

  // ---- header -------------------------------------------------------------------------------------
  var head = [];
  head.push('<h1>' + esc(data.model) + '</h1>');
  head.push('<div class="row">EPs requested: ' + esc(data.requested.join(', ')) + '</div>');
  head.push('<table class="coverage"><tr><th></th><th>EP</th><th>device</th><th>nodes</th><th>of nodes</th><th>of FLOPs</th></tr>');
  data.providers.forEach(function (p) {
    head.push('<tr><td><span class="swatch" style="background:' + colorOf[p.name] + '"></span></td><td>' + esc(p.name) + '</td><td>' + esc(p.device) + '</td><td>' + p.nodes + '</td><td>' + pct(p.nodeCoverage) + '</td><td>' + (data.totalFlops ? pct(p.flopCoverage) : 'n/a') + '</td></tr>');
  });
  head.push('</table>');
  data.skipped.forEach(function (s) { head.push('<div class="row unavailable">' + esc(s.name) + ' unavailable: ' + esc(s.reason.split('\n')[0]) + '</div>'); });
  head.push('<div class="row">Copies between devices: ' + data.copies.length + (data.copies.length ? ', ' + bytes(data.copyBytes) + ' per run' : '') + '</div>');
  var m = data.memory;
  var plan = m.peakBytes === undefined || m.peakBytes === null ? 'off (enableMemPattern: false)'
    : !m.naiveBytes ? 'no intermediate value has a static size; buffers are allocated per run'
    : 'arena ' + bytes(m.peakBytes) + ' (' + bytes(m.naiveBytes) + ' without reuse)';
  head.push('<div class="row">Host memory plan: ' + plan + '</div>');
  var mp = data.memoryPlan;
  if (mp) {
    var dims = Object.keys(mp.dims).map(function (k) { return k + '=' + mp.dims[k]; }).join(', ');
    head.push('<div class="row">Memory before running' + (dims ? ' (' + esc(dims) + ')' : '') + ': ' + bytes(mp.totalBytes) + '</div>');
    head.push('<table class="memory"><tr><th>device</th><th>weights</th><th>peak activations</th><th>per run</th><th>workspace</th></tr>');
    mp.devices.forEach(function (d) {
      head.push('<tr><td>' + esc(d.device) + '</td><td>' + bytes(d.weightsBytes) + '</td><td>' + bytes(d.activationBytes) + ' <span class="dim">(' + esc(d.activationSource) + ')</span></td><td>' + bytes(d.perRunBytes) + '</td><td>' + (d.workspaceReportedBy.length ? bytes(d.workspaceBytes) : '\u2014') + '</td></tr>');
    });
    head.push('</table>');
    if (mp.unresolvedDims.length) head.push('<div class="row unavailable">Unresolved dims: ' + esc(mp.unresolvedDims.join(', ')) + ' (' + mp.unsized.length + ' values not counted)</div>');
    mp.notes.forEach(function (note) { head.push('<div class="row dim">' + esc(note) + '</div>'); });
  }
  head.push('<div class="row">Optimizer (' + esc(data.optimizer.level) + '): ' + data.optimizer.nodesBefore + ' \u2192 ' + data.optimizer.nodesAfter + ' nodes' + (data.optimizer.passes.length ? '; ' + esc(data.optimizer.passes.map(function (p) { return p.name + ' ' + p.count; }).join(', ')) : '') + '</div>');
  var timed = data.nodes.filter(function (n) { return typeof n.ms === 'number'; });
  var maxMs = 0;
  timed.forEach(function (n) { if (n.ms > maxMs) maxMs = n.ms; });
  if (data.profile) {
    var slow = timed.slice().sort(function (a, b) { return b.ms - a.ms; }).slice(0, 10);
    head.push('<div class="row">Profile: ' + esc(data.profile.file) + ' (' + data.profile.runs + ' run' + (data.profile.runs === 1 ? '' : 's') + '); ten slowest nodes:</div><ol class="slowest">');
    slow.forEach(function (n) { head.push('<li><a href="#" data-node="' + n.id + '">' + esc(n.name) + '</a> ' + esc(n.op) + ', ' + n.ms.toFixed(3) + ' ms</li>'); });
    head.push('</ol>');
  }
  document.getElementById('summary').innerHTML = head.join('');

  // ---- layout -------------------------------------------------------------------------------------
  var g = new dagre.graphlib.Graph({ multigraph: true });
  g.setGraph({ rankdir: 'TB', nodesep: 16, ranksep: 28, marginx: 20, marginy: 20 });
  g.setDefaultEdgeLabel(function () { return {}; });
  var mainNodes = data.nodes.filter(function (n) { return n.graph === ''; });
  mainNodes.forEach(function (n) {
    var label = short(n.name, 28);
    g.setNode(String(n.id), { width: Math.max(n.op.length, label.length) * 6.6 + 20, height: 34 });
  });
  data.inputs.forEach(function (v) { g.setNode('in:' + v.name, { width: v.name.length * 6.6 + 20, height: 22 }); });
  data.outputs.forEach(function (v) { g.setNode('out:' + v.name, { width: v.name.length * 6.6 + 20, height: 22 }); });
  data.edges.forEach(function (e, i) { if (g.hasNode(e.from) && g.hasNode(e.to)) g.setEdge(e.from, e.to, { i: i }, String(i)); });
  dagre.layout(g);

  // ---- drawing ------------------------------------------------------------------------------------
  var svg = document.getElementById('graph');
  var view = el('g', { id: 'viewport' }, svg);
  var edgeLayer = el('g', {}, view);
  var nodeLayer = el('g', {}, view);
  var shapes = {};
  g.edges().forEach(function (ref) {
    var e = data.edges[g.edge(ref).i];
    var pts = g.edge(ref).points;
    var d = 'M' + pts.map(function (p) { return p.x.toFixed(1) + ',' + p.y.toFixed(1); }).join(' L');
    var path = el('path', { d: d, class: e.copy ? 'edge copy' : 'edge' }, edgeLayer);
    var title = el('title', {}, path);
    title.textContent = e.value + (e.copy ? ' (copied ' + e.copy + ')' : '');
    if (e.copy) {
      var mid = pts[Math.floor(pts.length / 2)];
      var t = el('text', { x: mid.x + 4, y: mid.y, class: 'copy-label' }, edgeLayer);
      t.textContent = 'copy';
    }
  });
  function drawValue(id, name, cls) {
    var p = g.node(id);
    var grp = el('g', { class: 'io ' + cls, transform: 'translate(' + (p.x - p.width / 2) + ',' + (p.y - p.height / 2) + ')' }, nodeLayer);
    el('rect', { width: p.width, height: p.height, rx: 11 }, grp);
    var t = el('text', { x: p.width / 2, y: 15, 'text-anchor': 'middle' }, grp);
    t.textContent = name;
  }
  data.inputs.forEach(function (v) { drawValue('in:' + v.name, v.name, 'input'); });
  data.outputs.forEach(function (v) { drawValue('out:' + v.name, v.name, 'output'); });
  mainNodes.forEach(function (n) {
    var p = g.node(String(n.id));
    var grp = el('g', { class: 'node', 'data-id': n.id, transform: 'translate(' + (p.x - p.width / 2) + ',' + (p.y - p.height / 2) + ')' }, nodeLayer);
    el('rect', { width: p.width, height: p.height, rx: 4, fill: colorOf[n.ep] || '#ccc', class: n.partition ? 'box partition' : 'box' }, grp);
    if (maxMs > 0 && typeof n.ms === 'number') el('rect', { width: p.width, height: p.height, rx: 4, class: 'heat', 'fill-opacity': (0.7 * n.ms / maxMs).toFixed(3) }, grp);
    var op = el('text', { x: p.width / 2, y: 14, 'text-anchor': 'middle', class: 'op' }, grp);
    op.textContent = n.op;
    var nm = el('text', { x: p.width / 2, y: 27, 'text-anchor': 'middle', class: 'name' }, grp);
    nm.textContent = short(n.name, 28);
    var title = el('title', {}, grp);
    title.textContent = n.name + ' (' + n.op + ') on ' + n.ep;
    grp.addEventListener('click', function (ev) { ev.stopPropagation(); select(n.id); });
    shapes[n.id] = { group: grp, x: p.x, y: p.y };
  });

  // ---- pan and zoom -------------------------------------------------------------------------------
  var size = g.graph();
  var state = { x: 0, y: 0, k: 1 };
  function apply() { view.setAttribute('transform', 'translate(' + state.x + ',' + state.y + ') scale(' + state.k + ')'); }
  function fit() {
    var w = svg.clientWidth || 800, h = svg.clientHeight || 600;
    state.k = Math.min(1, w / (size.width || 1), h / (size.height || 1));
    state.x = (w - size.width * state.k) / 2;
    state.y = 10;
    apply();
  }
  function centerOn(id) {
    var s = shapes[id];
    if (!s) return;
    var w = svg.clientWidth || 800, h = svg.clientHeight || 600;
    state.k = Math.max(state.k, 0.8);
    state.x = w / 2 - s.x * state.k;
    state.y = h / 2 - s.y * state.k;
    apply();
  }
  svg.addEventListener('wheel', function (ev) {
    ev.preventDefault();
    var r = svg.getBoundingClientRect();
    var mx = ev.clientX - r.left, my = ev.clientY - r.top;
    var k = Math.min(4, Math.max(0.02, state.k * Math.exp(-ev.deltaY * 0.0015)));
    state.x = mx - (mx - state.x) * (k / state.k);
    state.y = my - (my - state.y) * (k / state.k);
    state.k = k;
    apply();
  }, { passive: false });
  var drag = null;
  svg.addEventListener('mousedown', function (ev) { drag = { x: ev.clientX - state.x, y: ev.clientY - state.y }; });
  window.addEventListener('mousemove', function (ev) { if (drag) { state.x = ev.clientX - drag.x; state.y = ev.clientY - drag.y; apply(); } });
  window.addEventListener('mouseup', function () { drag = null; });
  document.getElementById('fit').addEventListener('click', fit);
  fit();

  // ---- details ------------------------------------------------------------------------------------
  var selected = null;
  function valueRows(list) {
    return list.filter(function (v) { return v.name; }).map(function (v) { return '<tr><td>' + esc(v.name) + '</td><td>' + esc(v.type || '?') + '</td></tr>'; }).join('');
  }
  function select(id) {
    var n = data.nodes[id];
    if (selected !== null && shapes[selected]) shapes[selected].group.classList.remove('selected');
    selected = id;
    if (shapes[id]) shapes[id].group.classList.add('selected');
    var h = [];
    h.push('<h2>' + esc(n.name) + '</h2>');
    h.push('<table class="kv">');
    h.push('<tr><th>op</th><td>' + esc((n.domain ? n.domain + '.' : '') + n.op) + '</td></tr>');
    if (n.graph) h.push('<tr><th>subgraph</th><td>' + esc(n.graph) + '</td></tr>');
    h.push('<tr><th>EP</th><td><span class="swatch" style="background:' + (colorOf[n.ep] || '#ccc') + '"></span>' + esc(n.ep) + '</td></tr>');
    h.push('<tr><th>implementation</th><td>' + esc(n.impl || 'kernel') + '</td></tr>');
    if (n.partition) h.push('<tr><th>partition</th><td>' + esc(n.partition) + '</td></tr>');
    if (n.flops) h.push('<tr><th>FLOPs</th><td>' + n.flops.toLocaleString('en') + '</td></tr>');
    if (typeof n.ms === 'number') h.push('<tr><th>time</th><td>' + n.ms.toFixed(3) + ' ms</td></tr>');
    h.push('</table>');
    h.push('<h3>Why not an earlier EP</h3>');
    var reasons = data.skipped.filter(function (s) { return data.requested.indexOf(s.name) >= 0 && data.requested.indexOf(s.name) < Math.max(0, data.requested.indexOf(n.ep)); })
      .map(function (s) { return '<li class="reason"><b>' + esc(s.name) + '</b>: unavailable \u2014 ' + esc(s.reason.split('\n')[0]) + '</li>'; })
      .concat(n.declined.filter(function (d) { return d.kind !== 'ep-unavailable'; }).map(function (d) { return '<li class="reason"><b>' + esc(d.ep) + '</b>: declined (' + esc(d.kind) + ') \u2014 ' + esc(d.message) + '</li>'; }));
    h.push(reasons.length ? '<ul>' + reasons.join('') + '</ul>' : '<p>none: ' + esc(n.ep) + ' is the first EP in the list that could take it.</p>');
    if (n.reason && !n.declined.some(function (d) { return d.kind === 'cost'; })) h.push('<p class="reason">Partitioning by cost: ' + esc(n.reason) + '</p>');
    h.push('<h3>Inputs</h3><table class="kv">' + valueRows(n.inputs) + '</table>');
    h.push('<h3>Outputs</h3><table class="kv">' + valueRows(n.outputs) + '</table>');
    if (n.attributes.length) h.push('<h3>Attributes</h3><table class="kv">' + n.attributes.map(function (a) { return '<tr><td>' + esc(a[0]) + '</td><td>' + esc(a[1]) + '</td></tr>'; }).join('') + '</table>');
    document.getElementById('details').innerHTML = h.join('');
  }
  svg.addEventListener('click', function () {});
  document.getElementById('summary').addEventListener('click', function (ev) {
    var a = ev.target.closest('a[data-node]');
    if (!a) return;
    ev.preventDefault();
    var id = Number(a.getAttribute('data-node'));
    select(id);
    centerOn(id);
  });

  // ---- search -------------------------------------------------------------------------------------
  var search = document.getElementById('search');
  var results = document.getElementById('results');
  var matches = [];
  var cursor = -1;
  function runSearch() {
    var q = search.value.trim().toLowerCase();
    mainNodes.forEach(function (n) { shapes[n.id].group.classList.remove('match'); });
    matches = q ? data.nodes.filter(function (n) { return n.name.toLowerCase().indexOf(q) >= 0 || n.op.toLowerCase().indexOf(q) >= 0; }) : [];
    cursor = -1;
    matches.forEach(function (n) { if (shapes[n.id]) shapes[n.id].group.classList.add('match'); });
    results.innerHTML = q ? '<div class="count">' + matches.length + ' match' + (matches.length === 1 ? '' : 'es') + '</div>' + matches.slice(0, 50).map(function (n) {
      return '<a href="#" data-node="' + n.id + '">' + esc(n.name) + ' <span class="dim">' + esc(n.op) + (n.graph ? ' in ' + esc(n.graph) : '') + '</span></a>';
    }).join('') : '';
  }
  search.addEventListener('input', runSearch);
  search.addEventListener('keydown', function (ev) {
    if (ev.key !== 'Enter' || !matches.length) return;
    cursor = (cursor + 1) % matches.length;
    select(matches[cursor].id);
    centerOn(matches[cursor].id);
  });
  results.addEventListener('click', function (ev) {
    var a = ev.target.closest('a[data-node]');
    if (!a) return;
    ev.preventDefault();
    var id = Number(a.getAttribute('data-node'));
    select(id);
    centerOn(id);
  });
  document.body.setAttribute('data-ready', 'true');
})();
`;
