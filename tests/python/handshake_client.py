"""The official Python SDK 1.x client against one of our servers over stdio:
the `initialize` handshake, then list and call tools.

usage: python handshake_client.py <server command> [args...]
"""

import asyncio
import sys

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client


def check(condition: bool, what: str) -> None:
    if not condition:
        sys.exit(f"handshake client: {what}")


async def main(command: list[str]) -> None:
    server = StdioServerParameters(command=command[0], args=command[1:])
    async with stdio_client(server) as (read, write):
        async with ClientSession(read, write) as session:
            init = await session.initialize()
            check(init.protocolVersion == "2025-11-25", f"negotiated {init.protocolVersion}")
            check(init.serverInfo.name == "calculator", f"server info {init.serverInfo}")
            tools = await session.list_tools()
            names = [tool.name for tool in tools.tools]
            check(names == ["calculator", "text_analyzer"], f"tools {names}")
            added = await session.call_tool("calculator", {"operation": "add", "a": 3, "b": 5})
            check(not added.isError and added.content[0].text == "result: 8", f"add: {added}")
            divided = await session.call_tool("calculator", {"operation": "divide", "a": 1, "b": 0})
            check(divided.isError, f"divide by zero is not a tool error: {divided}")
    print(f"handshake client: initialize path, {init.protocolVersion}, {len(names)} tools, 2 calls: ok")


asyncio.run(main(sys.argv[1:]))
