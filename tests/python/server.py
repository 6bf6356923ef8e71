"""An MCP server written with the official Python SDK's high-level API, for
our client to drive (.ci/server-interop, tests/client_interop.rs).

    python server.py stdio
    python server.py http      # prints "listening at http://127.0.0.1:PORT/mcp"

Works with mcp 2.x (`MCPServer`: 2026-07-28 and the handshake versions) and
mcp 1.x (`FastMCP`: handshake only). What it offers:

- tools: `add` (a number, structured as `{"result": ...}`), `split` (an
  object with an output schema), `book` (elicits a day), `haiku` (samples
  the client's model), `roots` (lists the client's roots), `touch` (says a
  resource changed), `chatter` (logs one message at each of four levels);
- the resource `config://app` and the template `notes://{title}`;
- the prompt `greet`, whose `name` completes;
- handshake versions: `resources/subscribe`/`unsubscribe` and
  `logging/setLevel` (the level filters what `chatter` sends); 2026-07-28:
  `subscriptions/listen`, and the per-request log level of the request's
  `_meta`. (1.x answers `resources/subscribe` but never declares
  `resources.subscribe`, so a client, ours included, does not use it.)
"""

import sys
from typing import Annotated

from pydantic import BaseModel

import mcp.types as types

try:
    from mcp.server.mcpserver import Context, Elicit, ListRoots, MCPServer, Resolve, Sample

    MODERN = True
except ImportError:  # mcp 1.x
    from mcp.server.fastmcp import Context, FastMCP as MCPServer

    MODERN = False

LEVELS = ["debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"]

mcp = MCPServer("python-interop-server", instructions="A server for interop tests.")
lowlevel = mcp._lowlevel_server if MODERN else mcp._mcp_server

# Per connection (handshake era): the level asked for, the URIs followed.
log_levels: dict[int, str] = {}
subscribed: dict[int, set[str]] = {}


def connection(session) -> int:
    """A key for the connection a request came on: 2.x builds a session
    object per request, but each connection keeps its `initialize` params."""
    return id(session.client_params)


@mcp.tool()
def add(a: float, b: float) -> float:
    """Add two numbers."""
    return a + b


class Split(BaseModel):
    words: list[str]
    first: str | None


@mcp.tool()
def split(text: str) -> Split:
    """Split text into words."""
    words = text.split()
    return Split(words=words, first=words[0] if words else None)


class When(BaseModel):
    day: str


if MODERN:
    # Resolvers: in 2026-07-28 the SDK asks through input-required results,
    # in the handshake versions through requests to the client.
    def ask_day() -> Elicit[When]:
        return Elicit("Which day?", When)

    def ask_model() -> Sample:
        text = types.TextContent(type="text", text="Write a haiku about Rust")
        return Sample([types.SamplingMessage(role="user", content=text)], max_tokens=50)

    def ask_roots() -> ListRoots:
        return ListRoots()

    @mcp.tool()
    def book(when: Annotated[When, Resolve(ask_day)]) -> str:
        """Book a table on a day the user picks."""
        return f"booked for {when.day}"

    @mcp.tool()
    def haiku(answer: Annotated[types.CreateMessageResult, Resolve(ask_model)]) -> str:
        """Ask the client's model for a haiku."""
        return f"{answer.model} wrote: {answer.content.text}"

    @mcp.tool()
    def roots(listed: Annotated[types.ListRootsResult, Resolve(ask_roots)]) -> str:
        """The client's roots."""
        return ", ".join(f"{root.name}={root.uri}" for root in listed.roots)

else:

    @mcp.tool()
    async def book(ctx: Context) -> str:
        """Book a table on a day the user picks."""
        answer = await ctx.elicit("Which day?", When)
        if answer.action != "accept":
            raise ValueError(f"the user chose {answer.action}")
        return f"booked for {answer.data.day}"

    @mcp.tool()
    async def haiku(ctx: Context) -> str:
        """Ask the client's model for a haiku."""
        text = types.TextContent(type="text", text="Write a haiku about Rust")
        answer = await ctx.session.create_message(
            [types.SamplingMessage(role="user", content=text)], max_tokens=50
        )
        return f"{answer.model} wrote: {answer.content.text}"

    @mcp.tool()
    async def roots(ctx: Context) -> str:
        """The client's roots."""
        listed = await ctx.session.list_roots()
        return ", ".join(f"{root.name}={root.uri}" for root in listed.roots)


@mcp.tool()
async def touch(uri: str, ctx: Context) -> str:
    """Say the resource at `uri` changed."""
    if MODERN and ctx.protocol_version == "2026-07-28":
        await ctx.notify_resource_updated(uri)
    elif uri in subscribed.get(connection(ctx.session), set()):
        await ctx.session.send_resource_updated(uri)
    return f"touched {uri}"


@mcp.tool()
async def chatter(ctx: Context) -> str:
    """Log one message at each of debug, info, warning and error."""
    # Handshake versions: the level `logging/setLevel` asked for (all when
    # none); 2026-07-28: the SDK drops what the request's `_meta` did not ask for.
    least = log_levels.get(connection(ctx.session), "debug")
    for level in ["debug", "info", "warning", "error"]:
        if LEVELS.index(level) >= LEVELS.index(least):
            await ctx.session.send_log_message(level=level, data=f"a {level} message", logger="chatter")
    return "chattered"


@mcp.resource("config://app", mime_type="application/json")
def config() -> str:
    """The app's settings."""
    return '{"debug": true}'


@mcp.resource("notes://{title}")
def note(title: str) -> str:
    """A note by title."""
    return f"note {title}"


@mcp.prompt()
def greet(name: str) -> str:
    """Greet someone."""
    return f"Hello, {name}!"


NAMES = ["Ada", "Alan", "Grace"]


@mcp.completion()
async def complete(ref, argument, context):
    if isinstance(ref, types.PromptReference) and ref.name == "greet" and argument.name == "name":
        return types.Completion(values=[n for n in NAMES if n.startswith(argument.value)])
    if isinstance(ref, types.ResourceTemplateReference) and argument.name == "title":
        return types.Completion(values=[t for t in ["today", "tomorrow"] if t.startswith(argument.value)])
    return None


# The handshake era's subscriptions and log level: the high-level API has
# no decorator for them, the low-level server takes handlers.
if MODERN:

    async def on_subscribe(ctx, params):
        subscribed.setdefault(connection(ctx.session), set()).add(str(params.uri))
        return types.EmptyResult()

    async def on_unsubscribe(ctx, params):
        subscribed.get(connection(ctx.session), set()).discard(str(params.uri))
        return types.EmptyResult()

    async def on_set_level(ctx, params):
        log_levels[connection(ctx.session)] = params.level
        return types.EmptyResult()

    lowlevel.add_request_handler("resources/subscribe", types.SubscribeRequestParams, on_subscribe)
    lowlevel.add_request_handler("resources/unsubscribe", types.UnsubscribeRequestParams, on_unsubscribe)
    lowlevel.add_request_handler("logging/setLevel", types.SetLevelRequestParams, on_set_level)
else:

    @lowlevel.subscribe_resource()
    async def on_subscribe(uri):
        subscribed.setdefault(connection(lowlevel.request_context.session), set()).add(str(uri))

    @lowlevel.unsubscribe_resource()
    async def on_unsubscribe(uri):
        subscribed.get(connection(lowlevel.request_context.session), set()).discard(str(uri))

    @lowlevel.set_logging_level()
    async def on_set_level(level):
        log_levels[connection(lowlevel.request_context.session)] = level


def serve_http() -> None:
    import socket

    import anyio
    import uvicorn

    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", 0))
    sock.listen(128)  # connections wait in the backlog until uvicorn accepts
    port = sock.getsockname()[1]
    app = mcp.streamable_http_app()
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning"))
    print(f"listening at http://127.0.0.1:{port}/mcp", file=sys.stderr, flush=True)
    anyio.run(lambda: server.serve(sockets=[sock]))


if __name__ == "__main__":
    if sys.argv[1:] == ["stdio"]:
        mcp.run("stdio")
    elif sys.argv[1:] == ["http"]:
        serve_http()
    else:
        sys.exit("usage: server.py stdio|http")
