// The load bench's second peer: an @a2a-js/sdk 1.3.0 JSON-RPC server (Express 5, one Node
// process, the SDK's InMemoryTaskStore) whose executor completes a trivial task: the task,
// one text artifact, then TASK_STATE_COMPLETED. The same work as sdk_peer.py's executor, so
// the "trivial task" rows of the two SDKs and skillgate's describe_skill compare.
//
// Usage: node js_peer.mjs [--listen 127.0.0.1:0]
// Prints `listening on http://HOST:PORT` on stdout once the socket accepts.
import express from "express";
import { AgentEvent, DefaultRequestHandler, InMemoryTaskStore } from "@a2a-js/sdk/server";
import { agentCardHandler, jsonRpcHandler, UserBuilder } from "@a2a-js/sdk/server/express";
import { TaskState } from "@a2a-js/sdk";

const args = process.argv.slice(2);
const at = args.indexOf("--listen");
const listen = at >= 0 ? args[at + 1] : "127.0.0.1:0";
const [host, portText] = [listen.slice(0, listen.lastIndexOf(":")), listen.slice(listen.lastIndexOf(":") + 1)];

class TrivialExecutor {
  async execute(ctx, bus) {
    bus.publish(AgentEvent.task({
      id: ctx.taskId, contextId: ctx.contextId, artifacts: [], history: [ctx.userMessage],
      metadata: undefined,
      status: { state: TaskState.TASK_STATE_WORKING, message: undefined, timestamp: new Date().toISOString() },
    }));
    bus.publish(AgentEvent.artifactUpdate({
      taskId: ctx.taskId, contextId: ctx.contextId, append: false, lastChunk: true, metadata: undefined,
      artifact: {
        artifactId: "bench", name: "bench", description: "", extensions: [], metadata: undefined,
        parts: [{ content: { $case: "text", value: "done" }, metadata: undefined, filename: "", mediaType: "" }],
      },
    }));
    bus.publish(AgentEvent.statusUpdate({
      taskId: ctx.taskId, contextId: ctx.contextId, metadata: undefined,
      status: { state: TaskState.TASK_STATE_COMPLETED, message: undefined, timestamp: new Date().toISOString() },
    }));
    bus.finished();
  }

  async cancelTask() {}
}

const app = express();
let card;
const server = app.listen(Number(portText), host, () => {
  const { port } = server.address();
  const url = `http://${host}:${port}`;
  card = {
    name: "js-bench-peer", description: "@a2a-js/sdk trivial agent for the load bench", version: "1.0.0",
    supportedInterfaces: [{ url, protocolBinding: "JSONRPC", protocolVersion: "1.0", tenant: "" }],
    capabilities: { streaming: false, pushNotifications: false, extensions: [] },
    defaultInputModes: ["text/plain"], defaultOutputModes: ["text/plain"],
    skills: [{ id: "trivial", name: "trivial", description: "completes", tags: ["bench"], examples: [],
      inputModes: [], outputModes: [], securityRequirements: [] }],
    securitySchemes: {}, securityRequirements: [], signatures: [],
  };
  const handler = new DefaultRequestHandler(card, new InMemoryTaskStore(), new TrivialExecutor());
  app.use("/.well-known/agent-card.json", agentCardHandler({ agentCardProvider: () => Promise.resolve(card) }));
  app.use("/", jsonRpcHandler({ requestHandler: handler, userBuilder: UserBuilder.noAuthentication }));
  console.log(`listening on ${url}`);
});
