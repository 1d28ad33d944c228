// Starts the real server for an end-to-end test: the binary scripts/e2e.sh built (E2E_SERVER_BIN),
// on a port the kernel picks, against the DynamoDB Local that scripts/with-dynamodb-local.sh
// started (AWS_ENDPOINT_URL_DYNAMODB), with a table of its own so test files can run in parallel.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';

// ---------------------------------------------------------------------------------------------
// THE ONE PLACE THE TESTS GET THEIR BEARER TOKEN.
// Today: the optional env E2E_TOKEN. When the server requires a JWT, mint one here (for the
// admin principal) and every test puts it in the playground's headers editor and in the
// audit's requests.
// ---------------------------------------------------------------------------------------------
export function bearerToken() {
  return process.env.E2E_TOKEN || '';
}

/** The headers every test request carries: Authorization when a token is configured. */
export function authHeaders() {
  const token = bearerToken();
  return token ? { Authorization: `Bearer ${token}` } : {};
}

/**
 * Starts the server with -create-table -seed (and extraArgs) and resolves once it listens.
 * @returns {Promise<{url: string, stop: () => Promise<void>, logs: string[]}>}
 */
export async function startServer(name, extraArgs = []) {
  const bin = process.env.E2E_SERVER_BIN;
  if (!bin) throw new Error('E2E_SERVER_BIN is not set: run the end-to-end tests through scripts/e2e.sh');
  if (!process.env.AWS_ENDPOINT_URL_DYNAMODB) throw new Error('AWS_ENDPOINT_URL_DYNAMODB is not set: run through scripts/e2e.sh');
  const table = `e2e-${name}-${process.pid}`;
  const child = spawn(bin, ['-create-table', '-seed', '-port', '0', ...extraArgs], {
    // ADMIN_ADDR on a port the kernel picks: the test servers run side by side.
    env: { ...process.env, DYNAMODB_TABLE: table, LOG_LEVEL: 'info', ADMIN_ADDR: '127.0.0.1:0', HOST: '127.0.0.1' },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  // The server never outlives the test process, however the test ends.
  const killOnExit = () => child.kill('SIGKILL');
  process.once('exit', killOnExit);
  child.once('exit', () => process.off('exit', killOnExit));
  const logs = [];
  const lines = createInterface({ input: child.stderr });
  const listening = new Promise((resolve, reject) => {
    lines.on('line', (line) => {
      logs.push(line);
      try {
        const rec = JSON.parse(line);
        if (rec.msg === 'listening') resolve(rec.addr);
      } catch { /* not JSON: kept in logs */ }
    });
    child.once('exit', (code) => reject(new Error(`server exited (${code}) before listening:\n${logs.join('\n')}`)));
  });
  const timeout = setTimeout(() => child.kill('SIGKILL'), 120_000);
  let addr;
  try {
    addr = await listening;
  } finally {
    clearTimeout(timeout);
  }
  const port = addr.slice(addr.lastIndexOf(':') + 1);
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = once(child, 'exit');
    child.kill('SIGTERM');
    const t = setTimeout(() => child.kill('SIGKILL'), 20_000);
    await exited;
    clearTimeout(t);
  };
  return { url: `http://127.0.0.1:${port}`, stop, logs };
}
