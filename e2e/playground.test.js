// The playground in a real browser (headless Chromium from @sparticuz/chromium, driven by
// puppeteer-core): the page is loaded from the server with every request to another host refused,
// a query is typed into GraphiQL's editor and run, and the result pane must show the data and the
// extensions.dynamodb cost entry. A screenshot goes to E2E_OUTPUT_DIR (default e2e/output).
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import puppeteer from 'puppeteer-core';
import chromium from '@sparticuz/chromium';
import { startServer } from './harness.js';

const outDir = process.env.E2E_OUTPUT_DIR || path.join(path.dirname(fileURLToPath(import.meta.url)), 'output');
const QUERY = '{ organizations(first: 2) { edges { node { name } } } }';
const DEFERRED = '{ organizations(first: 2) { edges { node { name ... @defer(label: "users") { users(first: 1) { edges { node { email } } } } } } } }';

// queryTaken waits until GraphiQL has taken query q from its editor: it works out the operation
// name from the document after a short debounce, and a click before that would send the previous
// document's name. Its saved tab state shows when it has.
function queryTaken(page, q) {
  return page.waitForFunction((q) => {
    const key = Object.keys(localStorage).find((k) => k.endsWith('tabState'));
    const state = key && JSON.parse(localStorage.getItem(key));
    const tab = state?.tabs?.[state.activeTabIndex];
    return tab && tab.query.replace(/\s+/g, ' ').trim() === q && !tab.operationName;
  }, { timeout: 10_000 }, q);
}

describe('playground in headless Chromium', () => {
  let server;
  let browser;
  before(async () => {
    // As make run starts it: -dev-tokens puts an admin token in the playground's headers editor.
    server = await startServer('playground', ['-dev-tokens']);
    browser = await puppeteer.launch({
      executablePath: await chromium.executablePath(),
      args: puppeteer.defaultArgs({ args: chromium.args, headless: 'shell' }),
      headless: 'shell',
      defaultViewport: { width: 1400, height: 900 },
    });
  });
  after(async () => {
    await browser?.close();
    await server?.stop();
  });

  it('runs a typed query offline and shows data and extensions.dynamodb', async (t) => {
    const t0 = Date.now();
    const step = (what) => t.diagnostic(`${what} after ${Date.now() - t0} ms`);
    const page = await browser.newPage();
    const origin = new URL(server.url).origin;
    const refused = [];
    const problems = [];
    const queryRequests = [];
    page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
    page.on('console', (m) => { if (m.type() === 'error') problems.push(`console: ${m.text()}`); });
    await page.setRequestInterception(true);
    page.on('request', (req) => {
      const url = req.url();
      if (url.startsWith('data:')) return req.continue(); // inline fonts/icons of GraphiQL's CSS: no host
      if (new URL(url).origin !== origin) {
        refused.push(url);
        return req.abort('blockedbyclient');
      }
      if (new URL(url).pathname === '/query' && req.method() === 'POST') queryRequests.push(req.headers());
      return req.continue();
    });

    const resp = await page.goto(`${server.url}/`, { waitUntil: 'load' });
    assert.equal(resp.status(), 200);
    assert.match(resp.headers()['content-security-policy'], /default-src 'self'.*frame-ancestors 'none'/);
    await page.waitForSelector('.graphiql-query-editor .CodeMirror', { timeout: 30_000 });
    step('GraphiQL ready');

    // The headers editor holds the admin token the server minted (-dev-tokens), so the page's own
    // schema fetch and the typed query are authorized without the user pasting anything.
    await page.click('.graphiql-editor-tools button[data-name="headers"]');
    const headersEditor = '.graphiql-editor-tool .graphiql-editor:not(.hidden) .CodeMirror';
    await page.waitForFunction((sel) => document.querySelector('.graphiql-editor-tools button[data-name="headers"].active')
      && document.querySelectorAll(sel).length === 1, { timeout: 10_000 }, headersEditor);
    const headers = JSON.parse(await page.evaluate((sel) => document.querySelector(sel).CodeMirror.getValue(), headersEditor));
    assert.match(headers.Authorization ?? '', /^Bearer [\w-]+\.[\w-]+\.[\w-]+$/, 'the headers editor holds a bearer token');

    // Type the query as a user would: focus the editor, clear it, type.
    await page.click('.graphiql-query-editor .CodeMirror');
    await page.evaluate(() => document.querySelector('.graphiql-query-editor .CodeMirror').CodeMirror.setValue(''));
    await page.keyboard.type(QUERY);
    await page.keyboard.press('Escape'); // closes an autocompletion popup, if one is open
    const typed = await page.evaluate(() => document.querySelector('.graphiql-query-editor .CodeMirror').CodeMirror.getValue());
    assert.equal(typed.replace(/\s+/g, ' ').trim(), QUERY, 'the editor holds the typed query');

    await queryTaken(page, QUERY);
    step('query typed');
    await page.click('.graphiql-execute-button');
    await page.waitForFunction(() => {
      const cm = document.querySelector('.graphiql-response .CodeMirror');
      return cm && cm.CodeMirror.getValue().includes('"dynamodb"');
    }, { timeout: 30_000 });
    step('result shown');
    const shown = await page.$eval('.graphiql-response', (e) => e.innerText);
    const result = JSON.parse(await page.evaluate(() => document.querySelector('.graphiql-response .CodeMirror').CodeMirror.getValue()));
    await mkdir(outDir, { recursive: true });
    await page.screenshot({ path: path.join(outDir, 'playground.png') });

    assert.equal(result.errors, undefined, JSON.stringify(result.errors));
    assert.deepEqual(result.data.organizations.edges.map((e) => e.node.name), ['Acme Corporation', 'Globex']);
    assert.ok(result.extensions.dynamodb.totalCalls >= 1, JSON.stringify(result.extensions));
    assert.match(shown, /"dynamodb"/, 'the result pane shows the cost extension');
    assert.match(shown, /Acme Corporation/, 'the result pane shows the data');
    const sent = queryRequests.at(-1);
    for (const [k, v] of Object.entries(headers)) assert.equal(sent[k.toLowerCase()], v, `header ${k} from the headers editor`);
    assert.deepEqual(refused, [], 'the page asked another host for something');
    assert.deepEqual(problems, [], 'errors in the page (a CSP violation shows here)');
  });

  // The Explain preset: "X-Explain": "true" in the headers editor asks for the plan instead of the
  // data; the request carries "extensions": {"explain": true} in its body, not the header, and the
  // result pane shows extensions.plan with nothing run.
  // A query with @defer: GraphiQL's fetcher asks for multipart/mixed, the server answers in
  // payloads, and the result pane merges the deferred users into the organizations.
  it('shows the deferred payloads of a query with @defer', async () => {
    const page = await browser.newPage();
    const accepts = [];
    const types = [];
    page.on('request', (req) => {
      if (new URL(req.url()).pathname === '/query' && req.method() === 'POST') accepts.push(req.headers().accept ?? '');
    });
    page.on('response', (resp) => {
      if (new URL(resp.url()).pathname === '/query' && resp.request().method() === 'POST') types.push(resp.headers()['content-type'] ?? '');
    });
    await page.goto(`${server.url}/`, { waitUntil: 'load' });
    await page.waitForSelector('.graphiql-query-editor .CodeMirror', { timeout: 30_000 });
    await page.evaluate((q) => document.querySelector('.graphiql-query-editor .CodeMirror').CodeMirror.setValue(q), DEFERRED);
    await queryTaken(page, DEFERRED);
    await page.click('.graphiql-execute-button');
    await page.waitForFunction(() => (document.querySelector('.graphiql-response .CodeMirror')?.CodeMirror.getValue().match(/"email"/g) ?? []).length === 2, { timeout: 30_000 });
    const result = JSON.parse(await page.evaluate(() => document.querySelector('.graphiql-response .CodeMirror').CodeMirror.getValue()));
    await mkdir(outDir, { recursive: true });
    await page.screenshot({ path: path.join(outDir, 'playground-defer.png') });
    assert.equal(result.errors, undefined, JSON.stringify(result.errors));
    for (const e of result.data.organizations.edges) assert.equal(e.node.users.edges.length, 1, JSON.stringify(e.node));
    assert.match(accepts.at(-1), /multipart\/mixed/, 'the fetcher asks for incremental delivery');
    assert.match(types.at(-1), /^multipart\/mixed/, 'the server answers in payloads');
  });

  it('shows the plan with the X-Explain preset', async () => {
    const page = await browser.newPage();
    const bodies = [];
    const sentHeaders = [];
    await page.setRequestInterception(true);
    page.on('request', (req) => {
      if (new URL(req.url()).pathname === '/query' && req.method() === 'POST') {
        bodies.push(JSON.parse(req.postData()));
        sentHeaders.push(req.headers());
      }
      return req.continue();
    });
    await page.goto(`${server.url}/`, { waitUntil: 'load' });
    await page.waitForSelector('.graphiql-query-editor .CodeMirror', { timeout: 30_000 });
    const headersEditor = '.graphiql-editor-tool .graphiql-editor:not(.hidden) .CodeMirror';
    await page.waitForSelector(headersEditor, { timeout: 30_000 });
    await page.evaluate((sel) => {
      const cm = document.querySelector(sel).CodeMirror;
      const h = JSON.parse(cm.getValue());
      h['X-Explain'] = 'true';
      cm.setValue(JSON.stringify(h, null, 2));
    }, headersEditor);
    await page.evaluate((q) => document.querySelector('.graphiql-query-editor .CodeMirror').CodeMirror.setValue(q), QUERY);
    await queryTaken(page, QUERY);
    await page.click('.graphiql-execute-button');
    await page.waitForFunction(() => document.querySelector('.graphiql-response .CodeMirror')?.CodeMirror.getValue().includes('"plan"'), { timeout: 30_000 });
    const result = JSON.parse(await page.evaluate(() => document.querySelector('.graphiql-response .CodeMirror').CodeMirror.getValue()));
    await mkdir(outDir, { recursive: true });
    await page.screenshot({ path: path.join(outDir, 'playground-explain.png') });
    assert.equal(result.data, undefined, 'an explain runs nothing');
    assert.equal(result.extensions.dynamodb.totalCalls, 0);
    assert.deepEqual(result.extensions.plan.maxCalls, { Query: 1 });
    assert.equal(result.extensions.plan.steps[0].accessPattern, 'AP7');
    assert.deepEqual(bodies.at(-1).extensions, { explain: true });
    assert.equal(sentHeaders.at(-1)['x-explain'], undefined, 'the preset is not sent as a header');
  });

  // A subscription runs in the playground (over Server-Sent Events) and shows a change made by
  // another request: an order placed through /query by this test, not by the page.
  it('shows a subscription event after a mutation in another request', async () => {
    const page = await browser.newPage();
    await page.goto(`${server.url}/`, { waitUntil: 'load' });
    await page.waitForSelector('.graphiql-query-editor .CodeMirror', { timeout: 30_000 });
    const headersEditor = '.graphiql-editor-tool .graphiql-editor:not(.hidden) .CodeMirror';
    await page.waitForSelector(headersEditor, { timeout: 30_000 });
    const headers = JSON.parse(await page.evaluate((sel) => document.querySelector(sel).CodeMirror.getValue(), headersEditor));
    const SUB = 'subscription { orderChanged { kind order { status totalCents } } }';
    await page.evaluate((q) => document.querySelector('.graphiql-query-editor .CodeMirror').CodeMirror.setValue(q), SUB);
    await queryTaken(page, SUB);
    await page.click('.graphiql-execute-button');
    // The stream is open once the server answers its headers; give the hub a moment to see it.
    await new Promise((r) => setTimeout(r, 1500));
    const placed = await fetch(`${server.url}/query`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Authorization: headers.Authorization },
      body: JSON.stringify({
        query: 'mutation($c: ID!, $k: String!) { placeOrder(input: {customerId: $c, idempotencyKey: $k, items: [{sku: "E2E", productName: "Browser test", quantity: 1, unitPriceCents: 4242}]}) { id } }',
        variables: { c: 'Q3VzdG9tZXI6MDFLR0VXUFk4MDQ4V1E4TTJDSlZDWkcwUEc', k: `e2e-${Date.now()}` },
      }),
    });
    assert.equal(placed.status, 200);
    assert.equal((await placed.json()).errors, undefined);
    await page.waitForFunction(() => document.querySelector('.graphiql-response .CodeMirror')?.CodeMirror.getValue().includes('4242'), { timeout: 30_000 });
    const shown = JSON.parse(await page.evaluate(() => document.querySelector('.graphiql-response .CodeMirror').CodeMirror.getValue()));
    await mkdir(outDir, { recursive: true });
    await page.screenshot({ path: path.join(outDir, 'playground-subscription.png') });
    assert.deepEqual(shown.data.orderChanged, { kind: 'CREATED', order: { status: 'OPEN', totalCents: 4242 } });
  });

  // The server passes PlaygroundHeaders to the page in the data-headers attribute (Go tests
  // check that); this checks the other half, that the page's script puts them in the headers
  // editor and GraphiQL sends them. The page is the server's own, with the attribute filled in.
  it('prefills the headers editor from the page', async () => {
    const page = await browser.newPage();
    const original = await fetch(`${server.url}/`);
    const html = (await original.text()).replace(/data-headers="[^"]*"/, 'data-headers="{&#34;X-Prefilled&#34;: &#34;yes&#34;}"');
    assert.match(html, /X-Prefilled/);
    const sent = [];
    await page.setRequestInterception(true);
    page.on('request', (req) => {
      const url = new URL(req.url());
      if (url.pathname === '/' && url.origin === new URL(server.url).origin) {
        return req.respond({ status: 200, headers: Object.fromEntries(original.headers), body: html });
      }
      if (url.pathname === '/query') sent.push(req.headers());
      return req.continue();
    });
    await page.goto(`${server.url}/`, { waitUntil: 'load' });
    const headersEditor = '.graphiql-editor-tool .graphiql-editor:not(.hidden) .CodeMirror';
    await page.waitForSelector(headersEditor, { timeout: 30_000 });
    const shown = await page.evaluate((sel) => document.querySelector(sel).CodeMirror.getValue(), headersEditor);
    assert.deepEqual(JSON.parse(shown), { 'X-Prefilled': 'yes' });
    await page.click('.graphiql-execute-button');
    await page.waitForFunction(() => document.querySelector('.graphiql-response .CodeMirror')?.CodeMirror.getValue().includes('"dynamodb"'), { timeout: 30_000 });
    assert.equal(sent.at(-1)['x-prefilled'], 'yes');
  });
});
