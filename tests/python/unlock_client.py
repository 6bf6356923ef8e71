"""The official Python SDK clients against the unlock example (a support
desk whose refund tools a caller unlocks for itself, and whose
`lookup_order` has two versions): 2.x on the stateless
2026-07-28 path and 1.x after the `initialize` handshake, over stdio or
Streamable HTTP. The caller lists the public tools, signs in, is told its
tool list changed (2.x, which caches lists for the minute the server
allows, drops its cached list when told), lists and calls `refund`, finds
the unlocked prompt through the `list_prompts` tool and reads a resource
through `read_resource`, and signs out. Over HTTP a
second client, connected all along, never sees `refund` nor hears of a
change; a 2026-07-28 HTTP request without a token has no caller to unlock
for and says so.

usage: python unlock_client.py <modern|handshake> <stdio <server command> [args...] | http <endpoint URL>>
"""

import asyncio
import json
import sys

PUBLIC = sorted(
    ["lookup_order", "sign_in_as_admin", "sign_out", "list_resources", "list_resource_templates", "read_resource"]
    + ["list_prompts", "get_prompt"]
)


def check(condition: bool, what: str) -> None:
    if not condition:
        sys.exit(f"unlock client: {what}")


def failed(result) -> bool:
    # 2.x names it `is_error`; 1.x keeps the wire's `isError`.
    return bool(getattr(result, "is_error", None) or getattr(result, "isError", None))


async def names(client) -> list[str]:
    return sorted(tool.name for tool in (await client.list_tools()).tools)


async def versions(client, label: str) -> None:
    """`lookup_order` is listed once, as version 2, called as 2 unless a call names 1."""
    listed = [t for t in (await client.list_tools()).tools if t.name == "lookup_order"]
    meta = getattr(listed[0], "meta", None) or {}
    check(len(listed) == 1 and meta.get("version") == "2", f"{label}: lookup_order listed as {listed}")
    newest = await client.call_tool("lookup_order", {"order": 3})
    check(newest.content[0].text == "order 3: shipped by post", f"{label}: version 2 answered {newest}")
    first = await client.call_tool("lookup_order", {"order": 3}, meta={"version": "1"})
    check(first.content[0].text == "order 3: shipped", f"{label}: version 1 answered {first}")


async def unlocked(client, label: str, changed) -> None:
    """Sign in (`changed` waits for the list change it causes), use `refund`, sign out."""
    check(await names(client) == PUBLIC, f"{label}: listed {await names(client)}")
    await versions(client, label)
    signed = await client.call_tool("sign_in_as_admin", {})
    check(not failed(signed), f"{label}: sign in failed: {signed}")
    await asyncio.wait_for(changed(), 10)
    check(await names(client) == sorted(PUBLIC + ["refund"]), f"{label}: after sign in {await names(client)}")
    refunded = await client.call_tool("refund", {"order": 7})
    check(refunded.content[0].text == "refunded order 7", f"{label}: refund answered {refunded}")
    prompts = [p.name for p in (await client.list_prompts()).prompts]
    check(prompts == ["audit"], f"{label}: prompts {prompts}")
    as_tool = await client.call_tool("list_prompts", {})
    listed = [p["name"] for p in json.loads(as_tool.content[0].text)["prompts"]]
    check(listed == ["audit"], f"{label}: list_prompts as a tool {as_tool}")
    policy = await client.call_tool("read_resource", {"uri": "desk://policy"})
    check("30 days" in policy.content[0].text, f"{label}: read_resource as a tool {policy}")
    out = await client.call_tool("sign_out", {})
    check(not failed(out), f"{label}: sign out failed: {out}")
    await asyncio.wait_for(changed(), 10)
    check(await names(client) == PUBLIC, f"{label}: after sign out {await names(client)}")
    as_tool = await client.call_tool("list_prompts", {})
    check(json.loads(as_tool.content[0].text)["prompts"] == [], f"{label}: list_prompts after sign out {as_tool}")


async def modern(target: list[str]) -> None:
    from mcp import Client, StdioServerParameters
    from mcp.shared.subscriptions import ToolsListChanged

    server = target[1] if target[0] == "http" else StdioServerParameters(command=target[1], args=target[2:])
    async with Client(server, mode="auto", read_timeout_seconds=30) as client:
        check(client.protocol_version == "2026-07-28", f"speaks {client.protocol_version}")
        label = f"modern {target[0]}"
        if target[0] == "http":
            # Stateless and without a token: no caller to keep a view for.
            refused = await client.call_tool("sign_in_as_admin", {})
            check(failed(refused) and "no caller" in refused.content[0].text, f"{label}: {refused}")
            check(await names(client) == PUBLIC, f"{label}: listed {await names(client)}")
            await versions(client, label)
            print(f"unlock client ({label}): versions; no caller without a token, nothing changed: ok")
            return
        async with client.listen(tools_list_changed=True) as sub:

            async def changed() -> None:
                event = await sub.__anext__()
                check(event == ToolsListChanged(), f"{label}: event {event}")

            await unlocked(client, label, changed)
    print(f"unlock client ({label}): listed (the newest version, the first on request), signed in, told of the change, refunded, signed out: ok")


async def handshake(target: list[str]) -> None:
    import mcp.types as types
    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client
    from mcp.client.streamable_http import streamablehttp_client

    def listener(queue: asyncio.Queue):
        async def on_message(message) -> None:
            if isinstance(message, types.ServerNotification) and isinstance(message.root, types.ToolListChangedNotification):
                await queue.put("tools")

        return on_message

    ann_heard: asyncio.Queue = asyncio.Queue()
    label = f"handshake {target[0]}"
    if target[0] == "stdio":
        server = StdioServerParameters(command=target[1], args=target[2:])
        async with stdio_client(server) as (read, write):
            async with ClientSession(read, write, message_handler=listener(ann_heard)) as ann:
                await ann.initialize()
                await unlocked(ann, label, ann_heard.get)
    else:
        bob_heard: asyncio.Queue = asyncio.Queue()
        async with streamablehttp_client(target[1]) as (read, write, _):
            async with ClientSession(read, write, message_handler=listener(ann_heard)) as ann:
                await ann.initialize()
                async with streamablehttp_client(target[1]) as (bob_read, bob_write, _):
                    async with ClientSession(bob_read, bob_write, message_handler=listener(bob_heard)) as bob:
                        await bob.initialize()
                        await unlocked(ann, label, ann_heard.get)
                        check(bob_heard.empty(), f"{label}: bob heard of ann's changes")
                        signed = await ann.call_tool("sign_in_as_admin", {})
                        check(not failed(signed), f"{label}: second sign in {signed}")
                        await asyncio.wait_for(ann_heard.get(), 10)
                        check(await names(bob) == PUBLIC, f"{label}: bob listed {await names(bob)}")
                        check(bob_heard.empty(), f"{label}: bob heard of ann's changes")
    print(f"unlock client ({label}): listed (the newest version, the first on request), signed in, told of the change, refunded, signed out: ok")


era, target = sys.argv[1], sys.argv[2:]
asyncio.run(modern(target) if era == "modern" else handshake(target))
