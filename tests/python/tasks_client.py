"""The official Python SDK 1.x client's experimental tasks API
(`session.experimental`, SEP-1686) against the everything example's task
fixtures, as a 2025-11-25 client: a task asked for, polled, its result
fetched, listed, cancelled, and a task that asks the client a question
tied to it. Run by .ci/tasks-interop.

usage: python tasks_client.py stdio <everything binary>
       python tasks_client.py http <url>
"""

import asyncio
import sys
import warnings

from mcp import ClientSession, StdioServerParameters, types
from mcp.client.stdio import stdio_client
from mcp.client.streamable_http import streamablehttp_client
from mcp.shared.exceptions import McpError

# 1.x warns that these experimental calls leave in 2.0; they are what is tested.
warnings.simplefilter("ignore", DeprecationWarning)

RELATED = "io.modelcontextprotocol/related-task"


def check(condition: bool, what: str) -> None:
    if not condition:
        sys.exit(f"tasks client: {what}")


async def until_ended(session: ClientSession, task_id: str) -> types.GetTaskResult:
    while True:
        task = await session.experimental.get_task(task_id)
        if task.status in ("completed", "failed", "cancelled"):
            return task
        await asyncio.sleep((task.pollInterval or 100) / 1000)


async def error_code(call) -> int | None:
    try:
        await call
    except McpError as error:
        return error.error.code
    return None


async def drive(session: ClientSession, questions: list) -> None:
    init = await session.initialize()
    check(init.protocolVersion == "2025-11-25", f"negotiated {init.protocolVersion}")
    tasks = init.capabilities.tasks
    check(tasks is not None and tasks.requests.tools.call is not None, f"capabilities.tasks {tasks}")
    tools = {tool.name: tool for tool in (await session.list_tools()).tools}
    support = tools["slow_compute"].execution.taskSupport if tools["slow_compute"].execution else None
    check(support == "optional", f"slow_compute taskSupport {support}")

    created = await session.experimental.call_tool_as_task("slow_compute", {"seconds": 1, "label": "py"}, ttl=30_000)
    task_id = created.task.taskId
    check(created.task.status == "working" and created.task.ttl == 30_000, f"created {created}")
    ended = await until_ended(session, task_id)
    check(ended.status == "completed", f"ended {ended}")
    result = await session.experimental.get_task_result(task_id, types.CallToolResult)
    check(result.content[0].text == "computed 'py' in 1 s", f"result {result}")
    check((result.meta or {}).get(RELATED, {}).get("taskId") == task_id, f"result _meta {result.meta}")
    listed = await session.experimental.list_tasks()
    check(any(t.taskId == task_id for t in listed.tasks), f"list {listed}")

    running = await session.experimental.call_tool_as_task("slow_compute", {"seconds": 30})
    cancelled = await session.experimental.cancel_task(running.task.taskId)
    check(cancelled.status == "cancelled", f"cancel {cancelled}")
    again = await error_code(session.experimental.cancel_task(running.task.taskId))
    check(again == -32602, f"cancelling a cancelled task: {again}")
    unknown = await error_code(session.experimental.get_task("no-such-task"))
    check(unknown == -32602, f"unknown task: {unknown}")
    required = await error_code(session.call_tool("failing_job", {}))
    check(required == -32601, f"a required-task tool called directly: {required}")

    asking = await session.experimental.call_tool_as_task("confirm_delete", {"filename": "notes.txt"})
    result = await session.experimental.get_task_result(asking.task.taskId, types.CallToolResult)
    check(result.content[0].text == "deleted notes.txt", f"confirm_delete {result}")
    check(len(questions) == 1, f"questions {questions}")
    related = (questions[0].meta.model_extra or {}).get(RELATED) if questions[0].meta else None
    check((related or {}).get("taskId") == asking.task.taskId, f"question _meta {questions[0].meta}")


async def main(mode: str, target: str) -> None:
    questions = []

    async def elicit(context, params: types.ElicitRequestParams) -> types.ElicitResult:
        questions.append(params)
        return types.ElicitResult(action="accept", content={"confirm": True})

    if mode == "stdio":
        async with stdio_client(StdioServerParameters(command=target)) as (read, write):
            async with ClientSession(read, write, elicitation_callback=elicit) as session:
                await drive(session, questions)
    else:
        async with streamablehttp_client(target) as (read, write, _):
            async with ClientSession(read, write, elicitation_callback=elicit) as session:
                await drive(session, questions)
    print(f"tasks client ({mode}): created, polled, fetched, listed, cancelled, asked: ok")


asyncio.run(main(sys.argv[1], sys.argv[2]))
