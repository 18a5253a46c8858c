/**
 * `switchyard inspect --html` in a real browser: Debian's chromium driven by puppeteer-core. The page
 * must load offline without console errors, draw every node coloured by EP, show a node's reasons on
 * click, and find nodes by name or op.
 */
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import puppeteer, { type Browser, type Page } from 'puppeteer-core';
import { Tensor, encodeModel } from '@switchyard/core';
import { buildModel } from '@switchyard/core/testing';
import { cli, hasBuiltCli, repo, resnet50, tinyCnn, wrongReluEp } from '../cli-process.test-util.js';

const CHROMIUM = '/usr/bin/chromium';
const dir = mkdtempSync(join(tmpdir(), 'sy-html-'));

interface Loaded {
  page: Page;
  errors: string[];
  requests: string[];
}

/** A chain of `n` alternating Relu/Neg/Sigmoid nodes: a large graph for responsiveness. */
function chainModel(n: number): Uint8Array {
  const ops = ['Relu', 'Neg', 'Sigmoid'];
  const nodes = Array.from({ length: n }, (_, i) => ({ op: ops[i % 3], name: `n${i}`, inputs: [i === 0 ? 'x' : `v${i - 1}`], outputs: [i === n - 1 ? 'y' : `v${i}`] }));
  return encodeModel(buildModel({ inputs: [['x', 'float32', [4]]], outputs: [['y', 'float32', [4]]], nodes, initializers: { unused: new Tensor('float32', new Float32Array(1), [1]) } }));
}

describe.skipIf(!hasBuiltCli || !existsSync(CHROMIUM))('inspect --html in Chromium', { timeout: 180_000 }, () => {
  let browser: Browser;
  beforeAll(async () => {
    browser = await puppeteer.launch({ executablePath: CHROMIUM, headless: true, args: ['--no-sandbox', '--disable-gpu'] });
  });
  afterAll(async () => {
    await browser?.close();
  });

  async function open(file: string, viewport = { width: 1400, height: 900 }): Promise<Loaded> {
    const page = await browser.newPage();
    await page.setViewport(viewport);
    const errors: string[] = [];
    const requests: string[] = [];
    page.on('console', (m) => {
      if (m.type() === 'error' || m.type() === 'warn') errors.push(m.text());
    });
    page.on('pageerror', (e) => errors.push(String(e)));
    page.on('request', (r) => requests.push(r.url()));
    await page.goto(pathToFileURL(file).href, { waitUntil: 'load' });
    // The viewer runs inline before 'load': a script error shows here rather than as a timeout.
    expect(errors).toEqual([]);
    await page.waitForSelector('body[data-ready="true"]', { timeout: 30_000 });
    return { page, errors, requests };
  }

  async function report(model: string, name: string, extra: string[] = []): Promise<string> {
    const file = join(dir, name);
    const r = await cli(['inspect', model, '--html', file, ...extra]);
    expect(r.code, r.stderr).toBe(0);
    return file;
  }

  it('the demo model: no console errors, no network, every node drawn in its EP colour, reasons on click, search', async () => {
    const file = await report(tinyCnn, 'tiny.html', ['--load-ep', wrongReluEp, '--ep', 'rocm,wrongrelu,cpu']);
    const { page, errors, requests } = await open(file);
    expect(errors).toEqual([]);
    expect(requests.every((u) => u.startsWith('file:') || u.startsWith('data:'))).toBe(true);
    const nodes = await page.$$eval('g.node', (gs) => gs.map((g) => ({ op: g.querySelector('.op')!.textContent, fill: g.querySelector('rect.box')!.getAttribute('fill') })));
    // The CPU EP fuses what the custom EP does not take: 2 Relus on wrongrelu, the rest on cpu.
    expect(nodes.filter((n) => n.op === 'Relu')).toHaveLength(2);
    const fills = new Set(nodes.map((n) => n.fill));
    expect(fills.size).toBe(2);
    expect(await page.$eval('#summary', (e) => e.textContent)).toMatch(/rocm unavailable: no AMD GPU/);
    // Click the Gemm: its details name the op and each earlier EP's reason.
    const gemm = await page.$$('g.node');
    let clicked = false;
    for (const g of gemm) {
      if ((await g.$eval('.op', (e) => e.textContent)) === 'Gemm') {
        await g.click();
        clicked = true;
        break;
      }
    }
    expect(clicked).toBe(true);
    const details = await page.$eval('#details', (e) => e.textContent ?? '');
    expect(details).toMatch(/\/fc\/Gemm/);
    expect(details).toMatch(/rocm: unavailable/);
    expect(details).toMatch(/wrongrelu: declined \(op\)/);
    expect(details).toMatch(/float32\[1, 10\]/);
    expect(details).toMatch(/transB1/);
    // Search by op: the match is highlighted and listed; Enter selects it.
    await page.type('#search', 'softmax');
    expect(await page.$$eval('g.node.match', (gs) => gs.length)).toBe(1);
    expect(await page.$eval('#results', (e) => e.textContent)).toMatch(/1 match/);
    await page.keyboard.press('Enter');
    expect(await page.$eval('#details h2', (e) => e.textContent)).toBe('/Softmax');
    await page.close();
  });

  it('ResNet-50 with a profile: no console errors, nodes shaded by time, the ten slowest listed, reasons on click, search; a screenshot for the docs', async () => {
    const trace = join(dir, 'rn-trace.json');
    // Relative to the CLI's working folder (the repository), so the page's title reads well in the docs.
    const file = await report(relative(repo, resnet50()), 'resnet50.html', ['--ep', 'rocm,cpu', '--profile', trace]);
    const { page, errors } = await open(file);
    expect(errors).toEqual([]);
    const count = await page.$$eval('g.node', (gs) => gs.length);
    expect(count).toBeGreaterThan(50); // 122 ONNX nodes, fused by the CPU EP's passes
    expect(await page.$$eval('.slowest li', (li) => li.length)).toBe(10);
    expect(await page.$$eval('rect.heat', (r) => r.length)).toBe(count);
    // Clicking a slowest-list entry selects that node: its time, and why the earlier EP declined it.
    await page.click('.slowest li a');
    const details = await page.$eval('#details', (e) => e.textContent ?? '');
    expect(details).toMatch(/time\s*[\d.]+ ms/);
    expect(details).toMatch(/rocm: unavailable/);
    // Search by name finds the classifier.
    await page.type('#search', '/fc/Gemm');
    expect(await page.$$eval('g.node.match', (gs) => gs.length)).toBe(1);
    await page.keyboard.press('Enter');
    expect(await page.$eval('#details h2', (e) => e.textContent)).toBe('/fc/Gemm');
    if (process.env.SWITCHYARD_SCREENSHOT) await page.screenshot({ path: join(repo, 'docs/images/inspect-html-resnet50.png') });
    await page.close();
  });

  it('a 1,000-node graph lays out and stays responsive', async () => {
    const model = join(dir, 'chain.onnx');
    writeFileSync(model, chainModel(1000));
    const file = await report(model, 'chain.html', ['--ep', 'cpu', '--level', 'disabled']);
    const started = Date.now();
    const { page, errors } = await open(file);
    const loadMs = Date.now() - started;
    expect(errors).toEqual([]);
    expect(await page.$$eval('g.node', (gs) => gs.length)).toBe(1000);
    expect(loadMs).toBeLessThan(30_000);
    // Search and select among 1,000 nodes answer within a second.
    const t0 = Date.now();
    await page.type('#search', 'n999');
    await page.keyboard.press('Enter');
    expect(await page.$eval('#details h2', (e) => e.textContent)).toBe('n999');
    expect(Date.now() - t0).toBeLessThan(5000);
    await page.close();
  });
});
