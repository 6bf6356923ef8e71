"""The official Python SDK clients against the outside crate, a server made
as a new user makes one: its tools live in a library (one in a module of
it), with `Option` at every depth in arguments and in `Json<T>` output.

Both SDK lines validate `structuredContent` against the listed
`outputSchema` themselves; the script first proves that check is live (the
SDK's own validator refuses a value the schema does not allow), then that
every call passes it.

usage: python drive.py <modern|handshake> <stdio|http> <server binary | endpoint URL>
"""

import asyncio
import sys

passed = 0


def check(condition: bool, what: str) -> None:
    global passed
    if not condition:
        print(f"outside crate: {passed} passed, 1 failed")
        sys.exit(f"outside crate: {what}")
    passed += 1


def structured(result) -> dict:
    """The structured content, as either SDK line names it."""
    value = getattr(result, "structured_content", None)
    return value if value is not None else getattr(result, "structuredContent", None)


def text(result) -> str:
    return result.content[0].text


async def exercise(call, list_tools, read, get_prompt, validate, make_result) -> None:
    tools = await list_tools()
    names = sorted(tool.name for tool in tools.tools)
    check(names == ["greet", "item", "lookup"], f"tools from lib.rs and its module: {names}")

    # The SDK's own check is live: a wrong value is refused.
    wrong = make_result({"id": "seven", "tags": []})
    try:
        await validate("item", wrong)
        refused = False
    except RuntimeError:
        refused = True
    check(refused, "the SDK did not refuse structured content that breaks the output schema")

    greeted = await call("greet", {"name": "Ada", "title": None})
    check(not greeted.isError if hasattr(greeted, "isError") else not greeted.is_error, f"greet: {greeted}")
    check(text(greeted) == "Hello, Ada", f"a null top-level Option: {text(greeted)}")

    looked = await call(
        "lookup",
        {"query": {"name": "x", "note": None, "counts": [1, None, 2], "filter": {"min": None}}},
    )
    value = structured(looked)
    check(value is not None, f"lookup has structured content: {looked}")
    check(value["id"] == 3 and value["tags"] == ["1", None, "2"], f"lookup: {value}")
    check(value.get("note") is None and value["inner"].get("label") is None, f"lookup's empty parts: {value}")

    item = await call("item", {"id": 5})
    value = structured(item)
    check(value is not None, f"item has structured content: {item}")
    check(value["id"] == 5 and value["tags"] == [None, "x"], f"item: {value}")
    check(value.get("note") is None and value["inner"]["count"] == 0, f"item's empty parts: {value}")

    about = await read("outside://about")
    check(about.contents[0].text == "a server made outside the workspace", f"resource: {about}")
    prompt = await get_prompt("review", {"code": "fn main() {}"})
    check(prompt.messages[0].content.text == "Review this:\nfn main() {}", f"prompt: {prompt}")


async def modern(transport: str, target: str) -> None:
    from mcp import Client, StdioServerParameters
    from mcp.types import CallToolResult, TextContent

    server = StdioServerParameters(command=target, args=[]) if transport == "stdio" else target
    async with Client(server, mode="auto", read_timeout_seconds=30) as client:
        check(client.protocol_version == "2026-07-28", f"speaks {client.protocol_version}")

        def make_result(value):
            return CallToolResult(content=[TextContent(type="text", text="x")], structured_content=value)

        await exercise(
            client.call_tool,
            client.list_tools,
            client.read_resource,
            client.get_prompt,
            client.session.validate_tool_result,
            make_result,
        )


async def handshake(transport: str, target: str) -> None:
    import mcp.types as types
    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client
    from mcp.client.streamable_http import streamablehttp_client

    def make_result(value):
        return types.CallToolResult(content=[types.TextContent(type="text", text="x")], structuredContent=value)

    async def run(session: ClientSession) -> None:
        await session.initialize()
        await exercise(
            session.call_tool,
            session.list_tools,
            session.read_resource,
            session.get_prompt,
            session._validate_tool_result,
            make_result,
        )

    if transport == "stdio":
        async with stdio_client(StdioServerParameters(command=target, args=[])) as (read, write):
            async with ClientSession(read, write) as session:
                await run(session)
    else:
        async with streamablehttp_client(target) as (read, write, _):
            async with ClientSession(read, write) as session:
                await run(session)


era, transport, target = sys.argv[1], sys.argv[2], sys.argv[3]
asyncio.run(modern(transport, target) if era == "modern" else handshake(transport, target))
print(f"outside crate ({era} client over {transport}): {passed} passed, 0 failed")
