"""The page's `<head>` as the server writes it. gradio adds a page's `head=` from a script: too late for a site that
shows a link (it runs no script, and read gradio's own `og:` and `twitter:` tags, "Gradio", "Click to try out the
app!") and for a script that must run before gradio's. An ASGI middleware (given to the server as
`app_kwargs={"middleware": ...}`) writes `head` into every HTML page served, with its link preview alone. It reads
the HTML's tags and attributes, never gradio's words."""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable
from html.parser import HTMLParser

META_TAG = re.compile(r"<meta\b[^>]*>", re.IGNORECASE)
HEAD_END = re.compile(r"</head\s*>", re.IGNORECASE)
PREVIEW_PREFIXES = ("og:", "twitter:")
"""The link preview's properties (Open Graph, Twitter cards): only `head`'s are kept."""


class _TagAttributes(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.attributes: dict[str, str] = {}

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.attributes = {name: value or "" for name, value in attrs}


def meta_property(tag: str) -> tuple[str, str]:
    """(its `property` or `name`, its `content`) of one `<meta>` tag."""
    parser = _TagAttributes()
    parser.feed(tag)
    parser.close()
    attributes = parser.attributes
    return attributes.get("property") or attributes.get("name", ""), attributes.get("content", "")


def with_head(html: str, head: str) -> str:
    """`html` with `head` at the end of its `<head>` and the link preview of `head` alone: every `og:` and
    `twitter:` `<meta>` and every other one naming a property of `head` dropped first."""
    names = {meta_property(tag)[0] for tag in META_TAG.findall(head)}

    def kept(match: re.Match) -> str:
        name = meta_property(match.group(0))[0]
        return "" if name in names or name.startswith(PREVIEW_PREFIXES) else match.group(0)

    html = META_TAG.sub(kept, html)
    closed = HEAD_END.search(html)
    if closed is None:
        return html
    return html[: closed.start()] + head + "\n" + html[closed.start() :]


class ServedHead:
    """ASGI middleware: every HTML response goes through `with_head`; anything else as it is."""

    def __init__(self, app: Callable[..., Awaitable[None]], head: str) -> None:
        self.app = app
        self.head = head

    async def __call__(self, scope: dict, receive: Callable, send: Callable) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started: dict | None = None
        body: list[bytes] = []

        async def rewritten(message: dict) -> None:
            nonlocal started
            if message["type"] == "http.response.start":
                headers = dict(message.get("headers", []))
                html = headers.get(b"content-type", b"").startswith(b"text/html")
                if html and b"content-encoding" not in headers:
                    started = message  # held until the whole page is here
                    return
            elif message["type"] == "http.response.body" and started is not None:
                body.append(message.get("body", b""))
                if message.get("more_body"):
                    return
                page: str | bytes = with_head(b"".join(body).decode("utf-8", "surrogateescape"), self.head)
                page = page.encode("utf-8", "surrogateescape")
                headers = [(key, value) for key, value in started.get("headers", []) if key != b"content-length"]
                await send({**started, "headers": [*headers, (b"content-length", str(len(page)).encode())]})
                await send({"type": "http.response.body", "body": page})
                return
            await send(message)

        await self.app(scope, receive, rewritten)
