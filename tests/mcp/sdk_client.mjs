// Drives `veetbot mcp` with the official MCP TypeScript SDK client over stdio
// (StdioClientTransport), run by tst_mcp_sdk_client against its fixture site:
//   - without --allow-origin: the handshake works and tools/list has no tool;
//   - with the fixture origin: three veetbot_* tools whose input schemas compile and accept
//     or refuse sample arguments like the server does; navigate and observe return
//     projections (valid JSON within the budget); a call aborted by the client never answers
//     and the next call is served; with the default deny approver an act on the current
//     revision is refused (isError, tool.approval_denied) and a malformed one is
//     tool.invalid_arguments;
//   - with --approver elicitation and a client that declares elicitation: an act the client
//     declines is refused (tool.approval_denied), the same act on a fresh observation that it
//     approves runs and returns the settled observation;
//   - with --approver workbench: the test process serves the workbench's approvals socket; the
//     act it approves runs, the one whose card it closes is refused (tool.approval_denied).
//     The test counts the effects at the site.
// Exits 0 and prints one JSON report line on success; any failed check exits non-zero.
// Environment: VEETBOT_BIN, VEETBOT_MCP_ORIGIN, VEETBOT_MCP_URL, VEETBOT_MCP_SLOW_URL,
// VEETBOT_MCP_ACT_URL, VEETBOT_MCP_BUDGET, VEETBOT_MCP_RUNTIME_DIR (where the workbench's
// socket is), VEETBOT_MCP_DATA_DIR (each server gets its own
// data directory, so its own effect ledger), and the fixture's VEETBOT_TEST_RESOLVE /
// VEETBOT_TEST_CA.

import assert from 'node:assert/strict';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport, getDefaultEnvironment } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import Ajv from 'ajv';

function required(name) {
  const value = process.env[name];
  if (!value) {
    throw new Error(`missing environment variable ${name}`);
  }
  return value;
}

const bin = required('VEETBOT_BIN');
const origin = required('VEETBOT_MCP_ORIGIN');
const pageUrl = required('VEETBOT_MCP_URL');
const slowUrl = required('VEETBOT_MCP_SLOW_URL');
const actUrl = required('VEETBOT_MCP_ACT_URL');
const budget = Number(required('VEETBOT_MCP_BUDGET'));
const dataDir = required('VEETBOT_MCP_DATA_DIR');
let servers = 0;

async function connect(args, capabilities = {}) {
  const env = { ...getDefaultEnvironment() };
  servers += 1;
  env.XDG_DATA_HOME = `${dataDir}/server-${servers}`;
  if (process.env.VEETBOT_MCP_RUNTIME_DIR) {
    env.VEETBOT_RUNTIME_DIR = process.env.VEETBOT_MCP_RUNTIME_DIR;
  }
  for (const name of ['VEETBOT_TEST_RESOLVE', 'VEETBOT_TEST_CA']) {
    if (process.env[name]) {
      env[name] = process.env[name];
    }
  }
  const transport = new StdioClientTransport({ command: bin, args: ['mcp', ...args], env, stderr: 'pipe' });
  let stderr = '';
  transport.stderr.on('data', (chunk) => { stderr += chunk.toString('utf8'); });
  const client = new Client({ name: 'veetbot-sdk-client-test', version: '0.0.0' }, { capabilities });
  await client.connect(transport);
  return { client, stderr: () => stderr };
}

function text(result) {
  assert.equal(result.content.length, 1, 'one content item');
  assert.equal(result.content[0].type, 'text');
  return result.content[0].text;
}

function projection(result) {
  assert.notEqual(result.isError, true, `unexpected tool failure: ${result.content?.[0]?.text}`);
  const bytes = text(result);
  assert.ok(Buffer.byteLength(bytes, 'utf8') <= budget, 'projection within the budget');
  const parsed = JSON.parse(bytes);
  assert.equal(parsed.trust, 'EXTERNAL_UNTRUSTED');
  assert.ok(parsed.observation.revision, 'a revision');
  return parsed.observation;
}

function toolError(result) {
  assert.equal(result.isError, true, 'a tool failure');
  const body = JSON.parse(text(result));
  assert.deepEqual(Object.keys(body.error).sort(), ['code', 'message']);
  return body.error;
}

const report = { version: 1 };

// 1. No origins: no browser tool.
{
  const { client } = await connect([]);
  assert.equal(client.getServerVersion().name, 'veetbot');
  assert.ok(client.getServerCapabilities().tools, 'tools capability');
  await client.ping();
  const { tools } = await client.listTools();
  assert.deepEqual(tools, []);
  await client.close();
  report.toolsWithoutOrigins = tools.length;
}

// 2. The fixture origin.
{
  const { client, stderr } = await connect(['--allow-origin', origin, '--budget', String(budget)]);
  const { tools } = await client.listTools();
  const names = tools.map((tool) => tool.name);
  assert.deepEqual(names, ['veetbot_navigate', 'veetbot_observe', 'veetbot_act']);
  const ajv = new Ajv({ strict: false });
  const validate = {};
  for (const tool of tools) {
    assert.ok(tool.description.includes(origin), `${tool.name} names the accepted origin`);
    assert.equal(tool.inputSchema.type, 'object');
    validate[tool.name] = ajv.compile(tool.inputSchema);
  }
  const samples = [
    ['veetbot_navigate', { url: pageUrl }, true],
    ['veetbot_navigate', {}, false],
    ['veetbot_navigate', { url: pageUrl, wait: true }, false],
    ['veetbot_observe', {}, true],
    ['veetbot_observe', { after: 'abc.1' }, true],
    ['veetbot_observe', { cursor: 'x'.repeat(32) }, true],
    ['veetbot_observe', { cursor: 'short' }, false],
    ['veetbot_observe', { after: 'a', cursor: 'x'.repeat(32) }, false],
    ['veetbot_observe', { selector: '#buy' }, false],
    ['veetbot_observe', { wait_for: { role: 'button', name: 'Buy', timeout_ms: 1000 } }, true],
    ['veetbot_observe', { wait_for: { role: 'button' } }, false],
    ['veetbot_observe', { extract: { revision: 'r', kind: 'table', index: 0, limit: 5,
                                     columns: [{ name: 'price', type: 'number' }] } }, true],
    ['veetbot_observe', { region_ref: 'g.1', expected_revision: 'r' }, true],
    ['veetbot_act', { kind: 'click', expected_revision: 'r', ref: 'a.1' }, true],
    ['veetbot_act', { kind: 'type', expected_revision: 'r', ref: 'a.1', text: 'hi' }, true],
    ['veetbot_act', { kind: 'press', expected_revision: 'r', ref: 'a.1', key: 'F1' }, false],
    ['veetbot_act', { kind: 'scroll', expected_revision: 'r', ref: 'a.1', delta: 0 }, false],
    ['veetbot_act', { kind: 'scroll', expected_revision: 'r', ref: 'a.1', delta: -2000 }, true],
    ['veetbot_act', { kind: 'click', expected_revision: 'r', ref: 'a.1', text: 'x' }, false],
  ];
  for (const [tool, args, valid] of samples) {
    assert.equal(validate[tool](args), valid, `${tool} ${JSON.stringify(args)}`);
  }
  report.schemaSamples = samples.length;

  const navigated = projection(await client.callTool({ name: 'veetbot_navigate', arguments: { url: pageUrl } }));
  assert.equal(navigated.title, 'Demo shop');

  const observed = projection(await client.callTool({ name: 'veetbot_observe', arguments: {} }));
  assert.ok(observed.text.includes('Fresh coffee beans.'));
  const buy = observed.elements.find((element) => element.name === 'Buy');
  assert.ok(buy, 'the Buy button is observed');

  // A call the client gives up on never answers; the next one does.
  const controller = new AbortController();
  const aborted = client.callTool({ name: 'veetbot_navigate', arguments: { url: slowUrl } }, undefined,
                                  { signal: controller.signal });
  setTimeout(() => controller.abort('test'), 500);
  await assert.rejects(aborted);
  const afterAbort = projection(await client.callTool({ name: 'veetbot_observe', arguments: {} }));
  report.observedAfterAbort = Boolean(afterAbort.revision);

  const stale = toolError(await client.callTool({
    name: 'veetbot_act',
    arguments: { kind: 'click', expected_revision: observed.revision, ref: buy.ref },
  }));
  assert.equal(stale.code, 'tool.browser.page_changed', 'an older revision is not current');
  // The aborted navigation still ran to its end (the server dispatches each call once and
  // never takes a page load back); return to the shop.
  const back = projection(await client.callTool({ name: 'veetbot_navigate', arguments: { url: pageUrl } }));
  const currentBuy = back.elements.find((element) => element.name === 'Buy');
  const denied = toolError(await client.callTool({
    name: 'veetbot_act',
    arguments: { kind: 'click', expected_revision: back.revision, ref: currentBuy.ref },
  }));
  assert.deepEqual(denied, { code: 'tool.approval_denied', message: 'The action was not approved.' });
  const invalid = toolError(await client.callTool({
    name: 'veetbot_act',
    arguments: { kind: 'click', expected_revision: observed.revision },
  }));
  assert.equal(invalid.code, 'tool.invalid_arguments');
  const disallowed = toolError(await client.callTool({
    name: 'veetbot_navigate', arguments: { url: 'https://evil.test/' },
  }));
  assert.equal(disallowed.code, 'tool.browser.url_disallowed');

  await client.close();
  assert.ok(!stderr().includes('CONSOLE-CANARY'), 'page console text never reaches a log');
  report.tools = names;
  report.actRefused = denied.code;
}

// 3. Elicitation: the client is the owner's voice. It declines the first act, approves the
// second.
{
  const { client } = await connect(['--allow-origin', origin, '--budget', String(budget),
                                    '--approver', 'elicitation'], { elicitation: {} });
  const answers = ['decline', 'approve'];
  const asked = [];
  client.setRequestHandler(ElicitRequestSchema, async (request) => {
    const schema = request.params.requestedSchema;
    assert.deepEqual(schema.required, ['approve']);
    assert.equal(schema.properties.approve.type, 'boolean');
    asked.push(request.params.message);
    const answer = answers.shift();
    if (answer === 'approve') {
      return { action: 'accept', content: { approve: true } };
    }
    return { action: 'decline' };
  });

  projection(await client.callTool({ name: 'veetbot_navigate', arguments: { url: actUrl } }));
  const first = projection(await client.callTool({ name: 'veetbot_observe', arguments: {} }));
  const pay = first.elements.find((element) => element.name === 'Pay');
  assert.ok(pay, 'the Pay button is observed');
  const declined = toolError(await client.callTool({
    name: 'veetbot_act',
    arguments: { kind: 'click', expected_revision: first.revision, ref: pay.ref },
  }));
  assert.equal(declined.code, 'tool.approval_denied');

  const second = projection(await client.callTool({ name: 'veetbot_observe', arguments: {} }));
  const payAgain = second.elements.find((element) => element.name === 'Pay');
  const approved = projection(await client.callTool({
    name: 'veetbot_act',
    arguments: { kind: 'click', expected_revision: second.revision, ref: payAgain.ref },
  }));
  assert.notEqual(approved.revision, second.revision, 'the act returns a new revision');
  assert.equal(asked.length, 2, 'one question per act');
  for (const message of asked) {
    assert.ok(message.includes('Pay'), 'the question names the element');
    assert.ok(!message.includes(second.revision) && !message.includes(payAgain.ref),
              'never the revision or the ref');
  }
  await client.close();
  report.elicitations = asked.length;
  report.declined = declined.code;
  report.approvedAct = true;
}

// 4. The workbench: the owner answers in the running workbench's cards (the test process
// serves them on VEETBOT_MCP_RUNTIME_DIR's approvals socket). It approves the first act and
// closes the second card, which denies.
{
  const { client } = await connect(['--allow-origin', origin, '--budget', String(budget),
                                    '--approver', 'workbench']);
  projection(await client.callTool({ name: 'veetbot_navigate', arguments: { url: actUrl } }));
  const first = projection(await client.callTool({ name: 'veetbot_observe', arguments: {} }));
  const pay = first.elements.find((element) => element.name === 'Pay');
  assert.ok(pay, 'the Pay button is observed');
  const approved = projection(await client.callTool({
    name: 'veetbot_act',
    arguments: { kind: 'click', expected_revision: first.revision, ref: pay.ref },
  }));
  assert.notEqual(approved.revision, first.revision, 'the act returns a new revision');
  const second = projection(await client.callTool({ name: 'veetbot_observe', arguments: {} }));
  const payAgain = second.elements.find((element) => element.name === 'Pay');
  const closed = toolError(await client.callTool({
    name: 'veetbot_act',
    arguments: { kind: 'click', expected_revision: second.revision, ref: payAgain.ref },
  }));
  await client.close();
  report.workbenchApproved = true;
  report.workbenchClosed = closed.code;
}

process.stdout.write(`${JSON.stringify({ ok: true, ...report })}\n`);
