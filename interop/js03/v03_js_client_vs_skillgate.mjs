// The official @a2a-js/sdk 0.3 client (0.3.14) against `skillgate serve`, over A2A 0.3 JSON-RPC
// and over A2A 0.3 HTTP+JSON (its RestTransport, `/v1/...` in ProtoJSON): the card,
// describe_skill, a governed call blocking and streaming, get task, an invalid call seeing
// input_invalid, a slow task canceled and resubscribed to, push config set/get (and, on
// HTTP+JSON, list and delete), an unknown task as not found.
// Usage: node v03_js_client_vs_skillgate.mjs PATH/TO/skillgate   (exits non-zero on any failure)
import { spawn } from "node:child_process";
import { createInterface } from "node:readline";
import { randomUUID } from "node:crypto";
import { ClientFactory, ClientFactoryOptions } from "@a2a-js/sdk/client";

const EXT = "https://agentic-network-management.github.io/agent-schema-interfaces/extensions/schema-interface/v1";
const SKILL = "evaluate_resource_condition";
const SLOW = "test-resubscribe-message-id"; // the conformance agent keeps this task working ~4.5 s
const checks = [];
const failures = [];

function check(cond, what) {
  checks.push(what);
  if (cond) console.log(`  ok: ${what}`);
  else {
    failures.push(what);
    console.log(`  FAIL: ${what}`);
  }
}

function startAgent(binary) {
  const proc = spawn(binary, ["serve", "--listen", "127.0.0.1:0", "--store", "memory",
    "--conformance-agent", "--push", "--push-allow-cidr", "127.0.0.0/8"], { stdio: ["ignore", "pipe", "ignore"] });
  return new Promise((resolve, reject) => {
    const lines = createInterface({ input: proc.stdout });
    lines.once("line", (line) => {
      const m = /^listening on (\S+)/.exec(line);
      if (m) resolve([proc, m[1]]);
      else { proc.kill(); reject(new Error(`skillgate serve did not start: ${line}`)); }
    });
  });
}

const opts = { serviceParameters: { "X-A2A-Extensions": EXT } };
const dataMessage = (data, messageId = randomUUID()) =>
  ({ kind: "message", messageId, role: "user", parts: [{ kind: "data", data }] });
const textMessage = (text, messageId) => ({ kind: "message", messageId, role: "user", parts: [{ kind: "text", text }] });

async function calls(client, adv, label) {
  const tcheck = (cond, what) => check(cond, `[${label}] ${what}`);
  let task = await client.sendMessage({ message: dataMessage({ skill: "describe_skill", arguments: { skill_id: SKILL } }) }, opts);
  tcheck(task.kind === "task" && task.status.state === "completed", "describe_skill completes");
  const doc = task.artifacts?.[0]?.parts?.[0]?.data;
  tcheck(doc && adv && doc.interface_digest === adv.interface_digest, "the returned interface_digest equals the advertised one");

  const request = { skill: SKILL, skill_version: adv?.skill_version, interface_digest: adv?.interface_digest,
    arguments: { resource_id: "lo", condition: { metric: "rx_bytes_per_second", operator: "gte", threshold: 0, unit: "bytes_per_second" }, window_ms: 200 } };
  task = await client.sendMessage({ message: dataMessage(request), configuration: { blocking: true } }, opts);
  tcheck(task.status.state === "completed", `${SKILL} completes (${task.status.state})`);
  const names = (task.artifacts || []).map((a) => a.name).sort();
  tcheck(JSON.stringify(names) === JSON.stringify([SKILL, "resource-observation"].sort()), `artifacts named skill and record kind (${names})`);
  const got = await client.getTask({ id: task.id });
  tcheck(got.id === task.id && got.status.state === "completed", "tasks/get returns the completed task");

  task = await client.sendMessage({ message: dataMessage({ ...request, arguments: { resource_id: "lo" } }) }, opts);
  const err = task.status.message?.parts?.[0]?.data ?? {};
  tcheck(task.status.state === "rejected" && err.code === "input_invalid", `invalid arguments are input_invalid (${task.status.state}, ${err.code})`);
  tcheck((err.details || []).some((d) => d.instance_path === "/condition"), "details name /condition");

  const events = [];
  for await (const ev of client.sendMessageStream({ message: dataMessage(request) }, opts)) events.push(ev);
  const statuses = events.filter((e) => e.kind === "status-update");
  const last = statuses[statuses.length - 1];
  tcheck(last && last.final === true && last.status.state === "completed", "the stream ends with a final completed status update");

  const slow = await client.sendMessage({ message: textMessage("slow", `${SLOW}-${randomUUID()}`), configuration: { blocking: false } });
  tcheck(["submitted", "working"].includes(slow.status.state), `a non-blocking send answers before the end (${slow.status.state})`);
  const seen = [];
  for await (const ev of client.resubscribeTask({ id: slow.id })) seen.push(ev);
  const end = seen[seen.length - 1];
  tcheck(end && (end.status?.state === "completed"), "tasks/resubscribe follows the task to completed");

  const other = await client.sendMessage({ message: textMessage("slow", `${SLOW}-${randomUUID()}`), configuration: { blocking: false } });
  const canceled = await client.cancelTask({ id: other.id });
  tcheck(canceled.status.state === "canceled", `tasks/cancel cancels (${canceled.status.state})`);
  const set = await client.setTaskPushNotificationConfig({ taskId: other.id,
    pushNotificationConfig: { id: "hook-js", url: "https://127.0.0.1:9/hook" } });
  tcheck(set.pushNotificationConfig.id === "hook-js", "tasks/pushNotificationConfig/set stores the config");
  // The REST transport needs the config id; JSON-RPC 0.3 may leave it out (the oldest config).
  const back = await client.getTaskPushNotificationConfig(
    label === "HTTP+JSON" ? { id: other.id, pushNotificationConfigId: "hook-js" } : { id: other.id });
  tcheck(back.pushNotificationConfig.url === "https://127.0.0.1:9/hook", "push config get returns it");
  if (label === "HTTP+JSON") {
    const listed = await client.listTaskPushNotificationConfig({ id: other.id });
    tcheck(listed.length === 1 && listed[0].pushNotificationConfig.id === "hook-js", `push config list (${JSON.stringify(listed)})`);
    await client.deleteTaskPushNotificationConfig({ id: other.id, pushNotificationConfigId: "hook-js" });
    let gone = null;
    try { await client.getTaskPushNotificationConfig({ id: other.id, pushNotificationConfigId: "hook-js" }); } catch (e) { gone = e; }
    tcheck(gone !== null, `a deleted push config is gone (${gone})`);
  }
  let notFound = null;
  try { await client.getTask({ id: "nope" }); } catch (e) { notFound = e; }
  tcheck(notFound !== null && /not found/i.test(String(notFound)), `tasks/get of an unknown task fails as not found (${notFound})`);
}

async function main(binary) {
  const [proc, base] = await startAgent(binary);
  try {
    const client = await new ClientFactory().createFromUrl(base);
    const card = await client.getAgentCard();
    check(card.url.startsWith(base) && card.protocolVersion.startsWith("0.3"),
      `the 0.3 card names the JSON-RPC url (${card.url}, ${card.protocolVersion})`);
    const ext = (card.capabilities.extensions || []).find((e) => e.uri === EXT);
    const adv = ext ? ext.params.skills.find((s) => s.skill_id === SKILL) : undefined;
    check(adv !== undefined, `the card advertises ${SKILL}`);

    await calls(client, adv, "JSONRPC");
    // The same client library over HTTP+JSON, chosen from the card's additionalInterfaces.
    const rest = await new ClientFactory(ClientFactoryOptions.createFrom(ClientFactoryOptions.default,
      { preferredTransports: ["HTTP+JSON"] })).createFromUrl(base);
    await calls(rest, adv, "HTTP+JSON");
  } finally {
    proc.kill("SIGTERM");
  }
  console.log(`v03_js_client_vs_skillgate: ${checks.length - failures.length} of ${checks.length} checks passed`);
  if (failures.length) {
    for (const f of failures) console.log(`  failed: ${f}`);
    process.exit(1);
  }
}

if (process.argv.length !== 3) {
  console.error("usage: node v03_js_client_vs_skillgate.mjs PATH/TO/skillgate");
  process.exit(2);
}
main(process.argv[2]).catch((e) => { console.error(e); process.exit(1); });
