// The official TypeScript SDK's client, with its experimental tasks API
// (`client.experimental.tasks`), against the everything example's task
// fixtures, as a 2025-11-25 client sees them (SEP-1686: the client asks for
// a task with `params.task`). Run by .ci/ts-tasks; plain ES modules, no
// build step:
//
//     NODE_PATH=<dir with node_modules> node tasks_client.mjs stdio <everything binary>
//     NODE_PATH=<dir with node_modules> node tasks_client.mjs http <url>
//
// Exits non-zero, saying which check failed, when the server is wrong.

import assert from "node:assert/strict";
import { createRequire } from "node:module";
import { pathToFileURL } from "node:url";
import { join } from "node:path";

// The SDK is installed outside the repository (under the cargo target
// directory): find it through NODE_PATH, as `require` would.
const require = createRequire(join(process.env.NODE_PATH ?? process.cwd(), "x.js"));
const sdk = (path) => import(pathToFileURL(require.resolve(`@modelcontextprotocol/sdk/${path}`)).href);
const { Client } = await sdk("client/index.js");
const { StdioClientTransport } = await sdk("client/stdio.js");
const { StreamableHTTPClientTransport } = await sdk("client/streamableHttp.js");
const { CallToolResultSchema, ElicitRequestSchema } = await sdk("types.js");

const [mode, target] = process.argv.slice(2);
if (!["stdio", "http"].includes(mode) || !target) {
    console.error("usage: node tasks_client.mjs stdio <server binary> | http <url>");
    process.exit(2);
}

const RELATED = "io.modelcontextprotocol/related-task";
const step = (what) => console.log(`-- ${what}`);

const client = new Client(
    { name: "ts-tasks-client", version: "1.0.0" },
    // 2025-11-25 has clients declare `tasks` for their own side; the SDK
    // refuses to send tasks/* requests without it.
    { capabilities: { elicitation: {}, tasks: { list: {}, cancel: {} } } },
);
const questions = [];
client.setRequestHandler(ElicitRequestSchema, async (request) => {
    questions.push(request);
    return { action: "accept", content: { confirm: true } };
});
const transport =
    mode === "stdio" ? new StdioClientTransport({ command: target, stderr: "inherit" }) : new StreamableHTTPClientTransport(new URL(target));
await client.connect(transport);

/// Every message of a task-augmented call, in order.
async function stream(name, args, onCreated) {
    const messages = [];
    for await (const message of client.experimental.tasks.callToolStream({ name, arguments: args }, CallToolResultSchema)) {
        messages.push(message);
        if (message.type === "taskCreated" && onCreated) {
            await onCreated(message.task);
        }
    }
    return messages;
}

step("the server declares 2025-11-25 tasks and the tools' task support");
assert.equal(client.getServerVersion().name, "everything");
const tasks = client.getServerCapabilities().tasks;
assert.deepEqual(tasks, { list: {}, cancel: {}, requests: { tools: { call: {} } } });
const { tools } = await client.listTools();
const support = (name) => tools.find((t) => t.name === name)?.execution?.taskSupport;
assert.equal(support("slow_compute"), "optional");
assert.equal(support("failing_job"), "required");
assert.equal(support("greet"), undefined);

step("callToolStream: a task created, polled to its end, its result fetched");
let messages = await stream("slow_compute", { seconds: 1, label: "ts" });
assert.deepEqual(messages.map((m) => m.type).filter((t, i, all) => t !== all[i - 1]), ["taskCreated", "taskStatus", "result"]);
const created = messages[0].task;
assert.equal(created.status, "working");
assert.ok(typeof created.ttl === "number" && typeof created.createdAt === "string" && typeof created.lastUpdatedAt === "string");
const result = messages.at(-1).result;
assert.equal(result.content[0].text, "computed 'ts' in 1 s");
assert.equal(messages.at(-2).task.status, "completed");

step("getTask, getTaskResult (with the related-task _meta) and listTasks on the ended task");
const got = await client.experimental.tasks.getTask(created.taskId);
assert.equal(got.status, "completed");
assert.equal(got.taskId, created.taskId);
const again = await client.experimental.tasks.getTaskResult(created.taskId, CallToolResultSchema);
assert.equal(again.content[0].text, "computed 'ts' in 1 s");
assert.equal(again._meta?.[RELATED]?.taskId, created.taskId);
const listed = await client.experimental.tasks.listTasks();
assert.ok(listed.tasks.some((t) => t.taskId === created.taskId && t.status === "completed"));

step("a tool without task support is called directly, through the same API");
messages = await stream("greet", { name: "TS" });
assert.deepEqual(messages.map((m) => m.type), ["result"]);
assert.equal(messages[0].result.content[0].text, "Hello, TS!");

step("a tool that requires tasks, called without one: -32601");
await assert.rejects(
    client.request({ method: "tools/call", params: { name: "failing_job", arguments: {} } }, CallToolResultSchema),
    (error) => error.code === -32601,
);

step("a tool's error result fails the task; its result is still the error result");
messages = await stream("failing_job", {});
const failed = messages.find((m) => m.type === "taskCreated").task;
assert.equal(messages.at(-1).type, "error");
assert.equal((await client.experimental.tasks.getTask(failed.taskId)).status, "failed");
const failure = await client.experimental.tasks.getTaskResult(failed.taskId, CallToolResultSchema);
assert.equal(failure.isError, true);

step("cancelTask stops a running task; cancelling it again is refused with -32602");
let cancelled;
messages = await stream("slow_compute", { seconds: 30 }, async (task) => {
    cancelled = await client.experimental.tasks.cancelTask(task.taskId);
});
assert.equal(cancelled.status, "cancelled");
assert.equal(messages.at(-1).type, "error");
assert.equal((await client.experimental.tasks.getTask(cancelled.taskId)).status, "cancelled");
await assert.rejects(client.experimental.tasks.cancelTask(cancelled.taskId), (error) => error.code === -32602);

step("an unknown task id: -32602");
await assert.rejects(client.experimental.tasks.getTask("no-such-task"), (error) => error.code === -32602);

step("a task that asks the client: input_required, an elicitation tied to the task, then its result");
messages = await stream("confirm_delete", { filename: "notes.txt" });
const asking = messages.find((m) => m.type === "taskCreated").task;
assert.equal(messages.at(-1).type, "result", JSON.stringify(messages.at(-1)));
assert.equal(messages.at(-1).result.content[0].text, "deleted notes.txt");
assert.equal(questions.length, 1);
assert.equal(questions[0].params._meta?.[RELATED]?.taskId, asking.taskId);

await client.close();
console.log(`ok: the TypeScript SDK's tasks client (${mode}) agrees with the server`);
