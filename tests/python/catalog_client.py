"""The official Python SDK clients against the catalog example (the
reference servers' tools behind tool search): 2.x on the stateless
2026-07-28 path and 1.x after the `initialize` handshake, over stdio or
Streamable HTTP. Each lists only `search_tools` and `call_tool`, finds a
Slack tool by what it does, calls it through `call_tool` and directly, and
gets its arguments back.

usage: python catalog_client.py <modern|handshake> <stdio <server command> [args...] | http <endpoint URL>>
"""

import asyncio
import json
import sys


def check(condition: bool, what: str) -> None:
    if not condition:
        sys.exit(f"catalog client: {what}")


def failed(result) -> bool:
    # 2.x names it `is_error`; 1.x keeps the wire's `isError`.
    return bool(getattr(result, "is_error", None) or getattr(result, "isError", None))


async def exercise(client, label: str) -> None:
    tools = await client.list_tools()
    names = sorted(tool.name for tool in tools.tools)
    check(names == ["call_tool", "search_tools"], f"{label}: listed {names}")
    found = await client.call_tool("search_tools", {"query": "send a message to a slack channel", "limit": 3})
    check(not failed(found), f"{label}: search failed: {found}")
    hits = [tool["name"] for tool in json.loads(found.content[0].text)["tools"]]
    check(hits and hits[0] == "slack_post_message", f"{label}: search found {hits}")
    arguments = {"channel_id": "C1", "text": "hello"}
    called = await client.call_tool("call_tool", {"name": "slack_post_message", "arguments": arguments})
    check(json.loads(called.content[0].text) == arguments, f"{label}: call_tool answered {called}")
    direct = await client.call_tool("git_status", {"repo_path": "/src"})
    check(json.loads(direct.content[0].text) == {"repo_path": "/src"}, f"{label}: direct call answered {direct}")
    empty = await client.call_tool("search_tools", {"query": " "})
    check(failed(empty) and "empty" in empty.content[0].text, f"{label}: empty query: {empty}")
    print(f"catalog client ({label}): listed 2, searched, called through call_tool and directly: ok")


async def modern(target: list[str]) -> None:
    from mcp import Client, StdioServerParameters

    server = target[1] if target[0] == "http" else StdioServerParameters(command=target[1], args=target[2:])
    async with Client(server, mode="auto", read_timeout_seconds=30) as client:
        check(client.protocol_version == "2026-07-28", f"speaks {client.protocol_version}")
        await exercise(client, f"modern {target[0]}")


async def handshake(target: list[str]) -> None:
    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client
    from mcp.client.streamable_http import streamablehttp_client

    if target[0] == "http":
        async with streamablehttp_client(target[1]) as (read, write, _):
            async with ClientSession(read, write) as session:
                await session.initialize()
                await exercise(session, "handshake http")
    else:
        server = StdioServerParameters(command=target[1], args=target[2:])
        async with stdio_client(server) as (read, write):
            async with ClientSession(read, write) as session:
                await session.initialize()
                await exercise(session, "handshake stdio")


era, target = sys.argv[1], sys.argv[2:]
asyncio.run(modern(target) if era == "modern" else handshake(target))
