"""The official Python SDK's clients against the gateway example, which
mounts our calculator, notes and booking examples, the Python SDK's own
server (tests/python/server.py, under mcp 1.x: FastMCP, handshake only)
and the TypeScript SDK's (tests/ts/server.mjs), each under its name: every
call through the gateway must be right, questions (elicitation,
sampling) included. 2.x (mode auto) takes the stateless 2026-07-28 path,
1.x the handshake.

usage: python gateway_client.py modern|handshake <gateway command> [args...]
   or: python gateway_client.py modern-http|handshake-http <url>
"""

import asyncio
import sys

import mcp.types as types

BOOKED = "Your table for 4 at Chez Rust is booked for Christmas Eve at 19:30."


def check(condition: bool, what: str) -> None:
    if not condition:
        sys.exit(f"gateway client ({sys.argv[1]}): {what}")


def field(obj, snake: str, camel: str):
    """A field by its 2.x (snake_case) or 1.x (camelCase) name."""
    return getattr(obj, snake, None) if hasattr(obj, snake) else getattr(obj, camel)


async def on_elicit(context, params):
    message = params.message
    if message == "Which day?":
        return types.ElicitResult(action="accept", content={"day": "friday"})
    return types.ElicitResult(action="accept", content={"day": "2026-12-24", "time": "19:30", "window": True})


async def on_sample(context, params):
    fields = {"role": "assistant", "content": types.TextContent(type="text", text=BOOKED), "model": "test-model"}
    return types.CreateMessageResult(**fields)


async def on_roots(context):
    return types.ListRootsResult(roots=[types.Root(uri="file:///tmp/project", name="project")])


CALLBACKS = {"elicitation_callback": on_elicit, "sampling_callback": on_sample, "list_roots_callback": on_roots}


def text(result) -> str:
    return result.content[0].text


async def exercise(c, servers: list[str]) -> None:
    tools = [tool.name for tool in (await c.list_tools()).tools]
    for name in ["calc_calculator", "calc_text_analyzer", "notes_write_note", "notes_delete_note", "booking_book"]:
        check(name in tools, f"{name} is not listed: {tools}")
    for server in servers:
        for name in ["add", "split", "book", "haiku"]:
            check(f"{server}_{name}" in tools, f"{server}_{name} is not listed: {tools}")

    # Our calculator.
    added = await c.call_tool("calc_calculator", {"operation": "add", "a": 2, "b": 3})
    check(not field(added, "is_error", "isError") and text(added) == "result: 5", f"add: {added}")
    divided = await c.call_tool("calc_calculator", {"operation": "divide", "a": 1, "b": 0})
    check(field(divided, "is_error", "isError"), f"divide by zero is no tool error: {divided}")

    # Our notes: a tool, a resource, a template, a prompt.
    written = await c.call_tool("notes_write_note", {"title": "gateway", "text": "through the gateway"})
    check(not field(written, "is_error", "isError"), f"write_note: {written}")
    resources = [str(r.uri) for r in (await c.list_resources()).resources]
    check("notes://notes/index" in resources, f"resources {resources}")
    templates = field(await c.list_resource_templates(), "resource_templates", "resourceTemplates")
    uris = [field(t, "uri_template", "uriTemplate") for t in templates]
    check("notes://notes/{title}" in uris, f"templates {uris}")
    note = await c.read_resource("notes://notes/gateway")
    check(note.contents[0].text == "through the gateway", f"read {note}")
    check(str(note.contents[0].uri) == "notes://notes/gateway", f"the contents name {note.contents[0].uri}")
    index = await c.read_resource("notes://notes/index")
    check("gateway" in index.contents[0].text.split("\n"), f"index {index}")
    prompt = await c.get_prompt("notes_summarize_note", {"title": "gateway"})
    check(len(prompt.messages) == 2, f"prompt {prompt}")

    # Our booking example: the user's form and the host's model, through the gateway.
    booked = await c.call_tool("booking_book", {"restaurant": "Chez Rust", "people": 4})
    check(text(booked) == f"{BOOKED} (reference R-1028)", f"book: {text(booked)}")

    # The Python and TypeScript SDKs' servers.
    for server in servers:
        added = await c.call_tool(f"{server}_add", {"a": 2, "b": 3})
        structured = field(added, "structured_content", "structuredContent")
        check(structured == {"result": 5.0} or structured == {"result": 5}, f"{server}_add: {added}")
        split = await c.call_tool(f"{server}_split", {"text": "through the gateway"})
        structured = field(split, "structured_content", "structuredContent")
        check(structured["words"] == ["through", "the", "gateway"], f"{server}_split: {split}")
        day = await c.call_tool(f"{server}_book", {})
        check(text(day) == "booked for friday", f"{server}_book: {text(day)}")
        haiku = await c.call_tool(f"{server}_haiku", {})
        check(text(haiku) == f"test-model wrote: {BOOKED}", f"{server}_haiku: {text(haiku)}")
        config = await c.read_resource(f"config://{server}/app")
        check(config.contents[0].text == '{"debug": true}', f"{server} config: {config}")
        greeting = await c.get_prompt(f"{server}_greet", {"name": "Ada"})
        check("Hello, Ada!" in greeting.messages[0].content.text, f"{server}_greet: {greeting}")


async def modern(target: list[str], http: bool, servers: list[str]) -> None:
    from mcp import Client, StdioServerParameters

    server = target[0] if http else StdioServerParameters(command=target[0], args=target[1:])
    async with Client(server, mode="auto", read_timeout_seconds=60, **CALLBACKS) as client:
        check(client.protocol_version == "2026-07-28", f"speaks {client.protocol_version}")
        await exercise(client, servers)


async def handshake(target: list[str], http: bool, servers: list[str]) -> None:
    from contextlib import asynccontextmanager

    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client
    from mcp.client.streamable_http import streamablehttp_client

    @asynccontextmanager
    async def connect():
        if http:
            async with streamablehttp_client(target[0]) as (read, write, _):
                yield read, write
        else:
            async with stdio_client(StdioServerParameters(command=target[0], args=target[1:])) as (read, write):
                yield read, write

    async with connect() as (read, write):
        async with ClientSession(read, write, **CALLBACKS) as session:
            init = await session.initialize()
            check(init.protocolVersion == "2025-11-25", f"negotiated {init.protocolVersion}")
            await exercise(session, servers)


era, target = sys.argv[1], sys.argv[2:]
upstreams = ["py", "ts"]
run = handshake if era.startswith("handshake") else modern
asyncio.run(run(target, http=era.endswith("-http"), servers=upstreams))
print(f"gateway client ({era}): calculator, notes, booking, Python and TypeScript SDK servers through one gateway: ok")
