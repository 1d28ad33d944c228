// The GraphQL-over-HTTP audit of the graphql-http package, run against the real server: every
// MUST and every SHOULD has to pass (a SHOULD that fails is reported as a warning, and fails here).
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { serverAudits } from 'graphql-http';
import { authHeaders, startServer } from './harness.js';

const server = await startServer('audit');

/** fetch with the test's Authorization header added to every request. */
function authFetch(input, init = {}) {
  const headers = new Headers(init.headers);
  for (const [k, v] of Object.entries(authHeaders())) headers.set(k, v);
  return fetch(input, { ...init, headers });
}

describe('graphql-http server audits', () => {
  after(() => server.stop());
  const audits = serverAudits({ url: `${server.url}/query`, fetchFn: authFetch });
  before(() => assert.ok(audits.length > 50, `only ${audits.length} audits`));
  for (const audit of audits) {
    if (!audit.name.startsWith('MUST') && !audit.name.startsWith('SHOULD')) continue;
    it(`${audit.id} ${audit.name}`, async () => {
      const result = await audit.fn();
      if (result.status !== 'ok') {
        let body = '';
        try { body = await result.response.text(); } catch { /* already read */ }
        assert.fail(`${result.status}: ${result.reason}\n  status ${result.response.status} ${result.response.headers.get('content-type')}\n  ${body.slice(0, 300)}`);
      }
    });
  }
  // MAY items are optional: their outcome is reported, not asserted.
  it('MAY audits (reported only)', async (t) => {
    const mays = audits.filter((a) => a.name.startsWith('MAY'));
    let ok = 0;
    for (const audit of mays) {
      const result = await audit.fn();
      if (result.status === 'ok') ok++;
      else t.diagnostic(`${audit.id} ${audit.name}: ${result.reason}`);
    }
    t.diagnostic(`MAY: ${ok}/${mays.length} ok`);
  });
});
