"""The official Python SDK clients against an MCP server made by `cargo mcp
serve --openapi` from the FastAPI service's own document
(openapi_backend.py): 2.x on the stateless 2026-07-28 path and 1.x after
the `initialize` handshake list the tools and call each one, with path,
query, header and body parameters, an error status, a binary response and
the bearer token the server forwards.

usage: python openapi_client.py <modern|handshake> <endpoint URL>
"""

import asyncio
import base64
import json
import sys


def check(condition: bool, what: str) -> None:
    if not condition:
        sys.exit(f"openapi client: {what}")


TOOLS = ["add_book", "get_book", "get_cover", "who_am_i"]


def field(thing, snake: str, camel: str):
    # 2.x names fields in snake_case; 1.x keeps the wire's camelCase.
    return getattr(thing, snake, None) if hasattr(thing, snake) else getattr(thing, camel, None)


def text(result) -> str:
    return "".join(c.text for c in result.content if c.type == "text")


def failed(result) -> bool:
    return bool(field(result, "is_error", "isError"))


def body(result):
    return field(result, "structured_content", "structuredContent") or json.loads(text(result))


async def exercise(call, tools) -> None:
    names = sorted(t.name for t in tools)
    check(names == TOOLS, f"tools {names}")
    get_book = next(t for t in tools if t.name == "get_book")
    properties = field(get_book, "input_schema", "inputSchema")["properties"]
    check({"book_id", "fields", "x-request-id"} <= set(properties), f"get_book's parameters {properties}")

    book = await call("get_book", {"book_id": 1, "fields": "title", "x-request-id": "r-7"})
    check(not failed(book), f"get_book failed: {text(book)}")
    check(body(book) == {"book": {"title": "Dune"}, "request_id": "r-7"}, f"get_book {body(book)}")

    added = await call("add_book", {"title": "Solaris", "tags": ["sf", "classic"]})
    check(not failed(added), f"add_book failed: {text(added)}")
    check(body(added)["title"] == "Solaris" and body(added)["tags"] == ["sf", "classic"], f"add_book {text(added)}")

    missing = await call("get_book", {"book_id": 999})
    check(failed(missing) and "404" in text(missing) and "no book 999" in text(missing), f"404: {text(missing)}")

    cover = await call("get_cover", {"book_id": 5})
    check(not failed(cover), f"get_cover failed: {cover}")
    image = next(c for c in cover.content if c.type == "image")
    check(field(image, "mime_type", "mimeType") == "image/png" and base64.b64decode(image.data).endswith(b"\n\x05"), f"cover {image}")

    me = await call("who_am_i", {})
    check(not failed(me), f"the bearer token was not forwarded: {text(me)}")
    check(body(me) == {"user": "reader"}, f"who_am_i {text(me)}")

    wrong = await call("get_book", {"book_id": "one"})
    check(failed(wrong) and "book_id" in text(wrong), f"a bad argument: {text(wrong)}")


async def modern(url: str) -> None:
    from mcp import Client

    async with Client(url, mode="auto", read_timeout_seconds=30) as client:
        check(client.protocol_version == "2026-07-28", f"speaks {client.protocol_version}")
        tools = await client.list_tools()
        await exercise(client.call_tool, tools.tools)
    print("modern openapi client: list, path/query/header/body parameters, 404, binary, bearer: ok")


async def handshake(url: str) -> None:
    from mcp import ClientSession
    from mcp.client.streamable_http import streamablehttp_client

    async with streamablehttp_client(url) as (read, write, _):
        async with ClientSession(read, write) as session:
            await session.initialize()
            tools = await session.list_tools()
            await exercise(session.call_tool, tools.tools)
    print("handshake openapi client: list, path/query/header/body parameters, 404, binary, bearer: ok")


era, url = sys.argv[1], sys.argv[2]
asyncio.run(modern(url) if era == "modern" else handshake(url))
