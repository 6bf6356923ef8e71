"""The official Python SDK 2.x client against one of our servers over stdio.

It starts as new official clients do (mode="auto": probe `server/discover`,
fall back to `initialize` only if that fails) and must take the stateless
2026-07-28 path, list the calculator's tools and call them.

usage: python modern_client.py <server command> [args...]
"""

import asyncio
import sys

from mcp import Client, StdioServerParameters


def check(condition: bool, what: str) -> None:
    if not condition:
        sys.exit(f"modern client: {what}")


async def main(command: list[str]) -> None:
    server = StdioServerParameters(command=command[0], args=command[1:])
    async with Client(server, mode="auto", read_timeout_seconds=30) as client:
        session = client.session
        check(session.initialize_result is None, "fell back to initialize instead of server/discover")
        check(session.discover_result is not None, "no server/discover result")
        check(client.protocol_version == "2026-07-28", f"speaks {client.protocol_version}")
        check(client.server_info.name == "calculator", f"server info {client.server_info}")

        tools = await client.list_tools()
        names = [tool.name for tool in tools.tools]
        check(names == ["calculator", "text_analyzer"], f"tools {names}")

        added = await client.call_tool("calculator", {"operation": "add", "a": 3, "b": 5})
        check(not added.is_error and added.content[0].text == "result: 8", f"add: {added}")
        divided = await client.call_tool("calculator", {"operation": "divide", "a": 1, "b": 0})
        check(divided.is_error, f"divide by zero is not a tool error: {divided}")
        bad = await client.call_tool("calculator", {"operation": "add", "a": "three", "b": 5})
        check(bad.is_error and "`a`" in bad.content[0].text, f"bad argument: {bad}")
        version = client.protocol_version
    print(f"modern client: discover path, {version}, {len(names)} tools, 3 calls: ok")


asyncio.run(main(sys.argv[1:]))
