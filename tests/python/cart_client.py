"""The official Python SDK clients against the cart example (per-user state
without sessions): 2.x on the stateless 2026-07-28 path, where no user is
known and a cart lives at a handle the server mints (a forged handle is
refused); 1.x after the `initialize` handshake, where the session owns its
cart, and over HTTP a second session has its own and cannot open the
first one's handles. Over stdio or Streamable HTTP.

usage: python cart_client.py <modern|handshake> <stdio <server command> [args...] | http <endpoint URL>>
"""

import asyncio
import sys


def check(condition: bool, what: str) -> None:
    if not condition:
        sys.exit(f"cart client: {what}")


def failed(result) -> bool:
    # 2.x names it `is_error`; 1.x keeps the wire's `isError`.
    return bool(getattr(result, "is_error", None) or getattr(result, "isError", None))


async def said(client, tool: str, arguments: dict, label: str) -> str:
    result = await client.call_tool(tool, arguments)
    check(not failed(result), f"{label}: {tool} {arguments} failed: {result}")
    return result.content[0].text


async def refused(client, tool: str, arguments: dict, label: str) -> str:
    result = await client.call_tool(tool, arguments)
    check(failed(result), f"{label}: {tool} {arguments} was not refused: {result}")
    return result.content[0].text


async def handles(client, label: str) -> str:
    """A cart at a handle: kept between calls, a forged handle refused."""
    handle = await said(client, "new_cart", {}, label)
    check(handle.startswith("st1."), f"{label}: handle {handle}")
    check(await said(client, "add_to_cart", {"item": "tea", "cart": handle}, label) == "tea", f"{label}: first add")
    check(await said(client, "add_to_cart", {"item": "jam", "cart": handle}, label) == "tea, jam", f"{label}: second add")
    check(await said(client, "show_cart", {"cart": handle}, label) == "tea, jam", f"{label}: show")
    forged = handle[:-2] + ("AA" if not handle.endswith("AA") else "BB")
    why = await refused(client, "show_cart", {"cart": forged}, label)
    check("refused" in why, f"{label}: forged handle: {why}")
    other = await said(client, "new_cart", {}, label)
    check(other != handle, f"{label}: two carts, one handle")
    check(await said(client, "show_cart", {"cart": other}, label) == "the cart is empty", f"{label}: a new cart")
    return handle


async def modern(target: list[str]) -> None:
    from mcp import Client, StdioServerParameters

    server = target[1] if target[0] == "http" else StdioServerParameters(command=target[1], args=target[2:])
    label = f"modern {target[0]}"
    async with Client(server, mode="auto", read_timeout_seconds=30) as client:
        check(client.protocol_version == "2026-07-28", f"speaks {client.protocol_version}")
        why = await refused(client, "add_to_cart", {"item": "tea"}, label)
        check("no user to keep state for" in why, f"{label}: without a user: {why}")
        await handles(client, label)
    print(f"cart client ({label}): no user, so a handle; kept between calls; a forged one refused: ok")


async def session_cart(session, label: str) -> None:
    check(await said(session, "add_to_cart", {"item": "tea"}, label) == "tea", f"{label}: first add")
    check(await said(session, "add_to_cart", {"item": "jam"}, label) == "tea, jam", f"{label}: second add")
    check(await said(session, "show_cart", {}, label) == "tea, jam", f"{label}: show")


async def handshake(target: list[str]) -> None:
    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client
    from mcp.client.streamable_http import streamablehttp_client

    label = f"handshake {target[0]}"
    if target[0] == "stdio":
        server = StdioServerParameters(command=target[1], args=target[2:])
        async with stdio_client(server) as (read, write):
            async with ClientSession(read, write) as session:
                await session.initialize()
                await session_cart(session, label)
                await handles(session, label)
    else:
        async with streamablehttp_client(target[1]) as (read, write, _):
            async with ClientSession(read, write) as ann:
                await ann.initialize()
                await session_cart(ann, label)
                handle = await handles(ann, label)
                async with streamablehttp_client(target[1]) as (bob_read, bob_write, _):
                    async with ClientSession(bob_read, bob_write) as bob:
                        await bob.initialize()
                        check(await said(bob, "show_cart", {}, label) == "the cart is empty", f"{label}: bob's own cart")
                        why = await refused(bob, "show_cart", {"cart": handle}, label)
                        check("belongs to another user" in why, f"{label}: ann's handle in bob's session: {why}")
                check(await said(ann, "show_cart", {}, label) == "tea, jam", f"{label}: ann's cart is intact")
    print(f"cart client ({label}): the session's own cart, handles, another session's refused: ok")


era, target = sys.argv[1], sys.argv[2:]
asyncio.run(modern(target) if era == "modern" else handshake(target))
