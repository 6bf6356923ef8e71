"""The official Python SDK 1.x client against the notes example over stdio,
after the `initialize` handshake: list resources and templates, read a note
and a missing one, subscribe, and receive the update a tool causes.

usage: python handshake_notes.py <server command> [args...]
"""

import asyncio
import sys

import mcp.types as types
from mcp import ClientSession, McpError, StdioServerParameters
from mcp.client.stdio import stdio_client


def check(condition: bool, what: str) -> None:
    if not condition:
        sys.exit(f"handshake notes client: {what}")


async def main(command: list[str]) -> None:
    updates: asyncio.Queue[str] = asyncio.Queue()

    async def on_message(message) -> None:
        if isinstance(message, types.ServerNotification) and isinstance(message.root, types.ResourceUpdatedNotification):
            await updates.put(str(message.root.params.uri))

    server = StdioServerParameters(command=command[0], args=command[1:])
    async with stdio_client(server) as (read, write):
        async with ClientSession(read, write, message_handler=on_message) as session:
            init = await session.initialize()
            check(init.capabilities.resources is not None and init.capabilities.resources.subscribe, f"{init.capabilities}")
            resources = await session.list_resources()
            check([str(r.uri) for r in resources.resources] == ["notes://index", "ui://notes/editor"], f"resources {resources}")
            templates = await session.list_resource_templates()
            check([t.uriTemplate for t in templates.resourceTemplates] == ["notes://{title}"], f"templates {templates}")
            welcome = await session.read_resource("notes://welcome")
            check(welcome.contents[0].text.startswith("# Welcome"), f"read {welcome}")
            try:
                await session.read_resource("notes://nothing")
                check(False, "a missing note was read")
            except McpError as error:
                check(error.error.code == -32002, f"missing note: {error.error}")
            await session.subscribe_resource("notes://welcome")
            written = await session.call_tool("write_note", {"title": "welcome", "text": "changed"})
            check(not written.isError, f"write_note: {written}")
            uri = await asyncio.wait_for(updates.get(), 10)
            check(uri == "notes://welcome", f"update {uri}")

            prompts = await session.list_prompts()
            check([p.name for p in prompts.prompts] == ["summarize_note"], f"prompts {prompts}")
            summary = await session.get_prompt("summarize_note", {"title": "welcome"})
            check(summary.messages[0].content.type == "resource", f"first message {summary.messages[0]}")
            check("one sentence" in summary.messages[1].content.text, f"second message {summary.messages[1]}")
            try:
                await session.get_prompt("summarize_note", {"style": "bullets"})
                check(False, "a prompt without its required argument was rendered")
            except McpError as error:
                check(error.error.code == -32602 and "title" in error.error.message, f"missing argument: {error.error}")
            ref = types.PromptReference(type="ref/prompt", name="summarize_note")
            titles = await session.complete(ref, {"name": "title", "value": "w"})
            check(titles.completion.values == ["welcome"], f"title completions {titles}")
    print("handshake notes client: initialize path, list, templates, read, not found, subscribe with an update, prompts, completions: ok")


asyncio.run(main(sys.argv[1:]))
