"""The official Python SDK 2.x client against the notes example over stdio,
on the stateless 2026-07-28 path: list resources and templates, read a
note, and follow it on a `subscriptions/listen` stream while a tool changes
it.

usage: python modern_notes.py <server command> [args...]
"""

import asyncio
import sys

from mcp import Client, StdioServerParameters
from mcp.shared.subscriptions import ResourceUpdated
from mcp.types import PromptReference


def check(condition: bool, what: str) -> None:
    if not condition:
        sys.exit(f"modern notes client: {what}")


async def main(command: list[str]) -> None:
    server = StdioServerParameters(command=command[0], args=command[1:])
    async with Client(server, mode="auto", read_timeout_seconds=30) as client:
        check(client.protocol_version == "2026-07-28", f"speaks {client.protocol_version}")
        resources = await client.list_resources()
        uris = [str(r.uri) for r in resources.resources]
        check(uris == ["notes://index", "ui://notes/editor"], f"resources {uris}")
        templates = await client.list_resource_templates()
        check([t.uri_template for t in templates.resource_templates] == ["notes://{title}"], f"templates {templates}")
        welcome = await client.read_resource("notes://welcome")
        check(welcome.contents[0].text.startswith("# Welcome"), f"read {welcome}")
        check(welcome.contents[0].mime_type == "text/markdown", f"mime type {welcome}")

        async with client.listen(resource_subscriptions=["notes://welcome"]) as sub:
            check(list(sub.honored.resource_subscriptions or []) == ["notes://welcome"], f"honored {sub.honored}")
            written = await client.call_tool("write_note", {"title": "welcome", "text": "changed"})
            check(not written.is_error, f"write_note: {written}")
            event = await asyncio.wait_for(sub.__anext__(), 10)
            check(event == ResourceUpdated(uri="notes://welcome"), f"event {event}")
        again = await client.read_resource("notes://welcome")
        check(again.contents[0].text == "changed", f"read after write {again}")

        prompts = await client.list_prompts()
        check([p.name for p in prompts.prompts] == ["summarize_note"], f"prompts {prompts}")
        arguments = {a.name: a.required for a in prompts.prompts[0].arguments}
        check(arguments == {"title": True, "style": False}, f"arguments {arguments}")
        summary = await client.get_prompt("summarize_note", {"title": "welcome", "style": "bullets"})
        check(summary.messages[0].content.type == "resource", f"first message {summary.messages[0]}")
        check("bulleted list" in summary.messages[1].content.text, f"second message {summary.messages[1]}")
        ref = PromptReference(type="ref/prompt", name="summarize_note")
        titles = await client.complete(ref, {"name": "title", "value": "WEL"})
        check(titles.completion.values == ["welcome"], f"title completions {titles}")
        styles = await client.complete(ref, {"name": "style", "value": "b"})
        check(styles.completion.values == ["brief", "bullets"], f"style completions {styles}")
    print("modern notes client: discover path, list, templates, read, listen with an update, prompts, completions: ok")


asyncio.run(main(sys.argv[1:]))
