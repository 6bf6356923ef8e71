"""The official Python SDK clients against the everything example over
Streamable HTTP: 2.x on the stateless 2026-07-28 path and 1.x after the
`initialize` handshake list resources, templates and prompts, read text,
binary and templated resources, subscribe, get a prompt and complete an
argument.

usage: python http_resources.py <modern|handshake> <endpoint URL>
"""

import asyncio
import sys


def check(condition: bool, what: str) -> None:
    if not condition:
        sys.exit(f"http client: {what}")


# The suite's fixtures, after the skill's files (`skill://`, served by the
# example for the skills scenarios).
RESOURCES = [
    "skill://pdf-processing/SKILL.md",
    "skill://pdf-processing/references/FORMS.md",
    "test://static-binary",
    "test://static-text",
    "test://watched-resource",
]


async def modern(url: str) -> None:
    from mcp import Client
    from mcp.types import PromptReference

    async with Client(url, mode="auto", read_timeout_seconds=30) as client:
        check(client.protocol_version == "2026-07-28", f"speaks {client.protocol_version}")
        resources = await client.list_resources()
        check([str(r.uri) for r in resources.resources] == RESOURCES, f"resources {resources}")
        templates = await client.list_resource_templates()
        check([t.uri_template for t in templates.resource_templates] == ["test://template/{id}/data"], f"{templates}")
        text = await client.read_resource("test://static-text")
        check(text.contents[0].text == "This is the content of the static text resource.", f"text {text}")
        binary = await client.read_resource("test://static-binary")
        check(binary.contents[0].mime_type == "image/png" and binary.contents[0].blob, f"binary {binary}")
        data = await client.read_resource("test://template/42/data")
        check('"id":"42"' in data.contents[0].text, f"template {data}")
        async with client.listen(resource_subscriptions=["test://watched-resource"]) as sub:
            check(list(sub.honored.resource_subscriptions or []) == ["test://watched-resource"], f"{sub.honored}")
        prompt = await client.get_prompt("test_prompt_with_arguments", {"arg1": "a", "arg2": "b"})
        check(prompt.messages[0].content.text == "Prompt with arguments: arg1='a', arg2='b'", f"prompt {prompt}")
        ref = PromptReference(type="ref/prompt", name="test_prompt_with_arguments")
        done = await client.complete(ref, {"name": "arg1", "value": "test"})
        check(done.completion.values == ["testValue1", "testValue2"], f"completion {done}")
    print("modern http client: discover path, resources, templates, reads, listen, prompt, completion: ok")


async def handshake(url: str) -> None:
    import mcp.types as types
    from mcp import ClientSession
    from mcp.client.streamable_http import streamablehttp_client

    async with streamablehttp_client(url) as (read, write, _):
        async with ClientSession(read, write) as session:
            init = await session.initialize()
            check(init.capabilities.resources.subscribe, f"{init.capabilities}")
            resources = await session.list_resources()
            check([str(r.uri) for r in resources.resources] == RESOURCES, f"resources {resources}")
            text = await session.read_resource("test://static-text")
            check(text.contents[0].text == "This is the content of the static text resource.", f"text {text}")
            data = await session.read_resource("test://template/7/data")
            check('"id":"7"' in data.contents[0].text, f"template {data}")
            await session.subscribe_resource("test://watched-resource")
            await session.unsubscribe_resource("test://watched-resource")
            prompt = await session.get_prompt("test_prompt_with_image")
            check(prompt.messages[0].content.type == "image", f"prompt {prompt}")
            ref = types.PromptReference(type="ref/prompt", name="test_prompt_with_arguments")
            done = await session.complete(ref, {"name": "arg1", "value": "TEST"})
            check(done.completion.values == ["testValue1", "testValue2"], f"completion {done}")
    print("handshake http client: initialize path, resources, reads, subscribe, prompt, completion: ok")


era, url = sys.argv[1], sys.argv[2]
asyncio.run(modern(url) if era == "modern" else handshake(url))
