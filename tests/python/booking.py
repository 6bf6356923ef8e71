"""The official Python SDK's clients against the booking example, answering
its questions with callbacks: the user through elicitation, the host's
model through sampling, and the client's roots. 2.x (mode auto) takes the
stateless 2026-07-28 path, where the questions come back as multi-round
results; 1.x takes the handshake, where they arrive as requests.

usage: python booking.py modern|handshake <server command> [args...]
   or: python booking.py modern-http|handshake-http <url>
"""

import asyncio
import sys

import mcp.types as types

asked: dict[str, list] = {"elicit": [], "sample": [], "roots": 0}
decline_next = False


def check(condition: bool, what: str) -> None:
    if not condition:
        sys.exit(f"booking client ({sys.argv[1]}): {what}")


def field(obj, snake: str, camel: str):
    """A field by its 2.x (snake_case) or 1.x (camelCase) name."""
    return getattr(obj, snake, None) if hasattr(obj, snake) else getattr(obj, camel)


async def on_elicit(context, params):
    global decline_next
    asked["elicit"].append(params)
    if decline_next:
        decline_next = False
        return types.ElicitResult(action="decline")
    return types.ElicitResult(action="accept", content={"day": "2026-12-24", "time": "19:30", "window": True})


async def on_sample(context, params):
    asked["sample"].append(params)
    text = "Your table for 4 at Chez Rust is booked for Christmas Eve at 19:30."
    fields = {"role": "assistant", "content": types.TextContent(type="text", text=text), "model": "test-model"}
    return types.CreateMessageResult(**fields)


async def on_roots(context):
    asked["roots"] += 1
    return types.ListRootsResult(roots=[types.Root(uri="file:///tmp/project", name="project")])


async def exercise(call_tool) -> None:
    booked = await call_tool("book", {"restaurant": "Chez Rust", "people": 4})
    text = booked.content[0].text
    check(text == "Your table for 4 at Chez Rust is booked for Christmas Eve at 19:30. (reference R-1028)", f"book: {text}")
    check(len(asked["elicit"]) == 1, f"elicited {len(asked['elicit'])} times")
    form = asked["elicit"][0]
    check(form.message == "When should I book Chez Rust?", f"message {form.message}")
    schema = field(form, "requested_schema", "requestedSchema")
    check(sorted(schema["properties"]) == ["day", "time", "window"], f"form {schema}")
    check(schema["properties"]["day"].get("format") == "date", f"day {schema['properties']['day']}")
    check(schema["required"] == ["day", "time"], f"required {schema}")
    check(len(asked["sample"]) == 1, f"sampled {len(asked['sample'])} times")
    sampling = asked["sample"][0]
    check(field(sampling, "max_tokens", "maxTokens") == 60, f"max tokens {sampling}")
    prompt = sampling.messages[0].content.text
    check("for 4 at Chez Rust on 2026-12-24 at 19:30 by the window" in prompt, f"sampling prompt {prompt}")

    global decline_next
    decline_next = True
    declined = await call_tool("book", {"restaurant": "Chez Rust"})
    check(declined.content[0].text == "Booking cancelled.", f"declined: {declined.content[0].text}")
    check(len(asked["sample"]) == 1, "a declined booking asked the model")

    roots = await call_tool("workspace_roots", {})
    check(roots.content[0].text == "file:///tmp/project", f"roots: {roots.content[0].text}")


async def modern(target: list[str], http: bool) -> None:
    from mcp import Client, StdioServerParameters

    server = target[0] if http else StdioServerParameters(command=target[0], args=target[1:])
    callbacks = {"elicitation_callback": on_elicit, "sampling_callback": on_sample, "list_roots_callback": on_roots}
    async with Client(server, mode="auto", read_timeout_seconds=30, **callbacks) as client:
        check(client.protocol_version == "2026-07-28", f"speaks {client.protocol_version}")
        await exercise(client.call_tool)
    print(f"booking client (modern{' over HTTP' if http else ''}): multi-round elicitation, sampling, roots: ok")


async def handshake(target: list[str], http: bool) -> None:
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
        callbacks = {"elicitation_callback": on_elicit, "sampling_callback": on_sample, "list_roots_callback": on_roots}
        async with ClientSession(read, write, **callbacks) as session:
            init = await session.initialize()
            check(init.protocolVersion == "2025-11-25", f"negotiated {init.protocolVersion}")
            await exercise(session.call_tool)
            # The session keeps the roots: asked once for two calls.
            await session.call_tool("workspace_roots", {})
            check(asked["roots"] == 1, f"roots asked {asked['roots']} times")
    print(f"booking client (handshake{' over HTTP' if http else ''}): elicitation, sampling and roots requests: ok")


era, target = sys.argv[1], sys.argv[2:]
if era.startswith("handshake"):
    asyncio.run(handshake(target, http=era == "handshake-http"))
else:
    asyncio.run(modern(target, http=era == "modern-http"))
