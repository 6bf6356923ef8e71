"""A small FastAPI service for the OpenAPI end-to-end run: FastAPI writes
its own OpenAPI document (`/openapi.json`), which `cargo mcp serve
--openapi` turns into an MCP server. Path, query, header and body
parameters, an error status with a body, a binary response, and a route
that needs the bearer token the MCP server is told to send.

usage: python openapi_backend.py TOKEN   (prints "listening on http://HOST:PORT")
"""

import socket
import sys
from typing import Optional

import uvicorn
from fastapi import FastAPI, Header, HTTPException, Query, Response
from pydantic import BaseModel

TOKEN = sys.argv[1]
app = FastAPI(title="Shelf", version="1.0.0")
BOOKS = {1: {"id": 1, "title": "Dune", "tags": ["sf"]}}


class NewBook(BaseModel):
    title: str
    tags: list[str] = []


@app.get("/books/{book_id}", operation_id="get_book", summary="Get a book by its id")
def get_book(
    book_id: int,
    fields: Optional[str] = Query(None, description="Which fields to return, comma-separated"),
    x_request_id: Optional[str] = Header(None),
):
    if book_id not in BOOKS:
        raise HTTPException(status_code=404, detail=f"no book {book_id}")
    book = BOOKS[book_id]
    if fields:
        book = {k: v for k, v in book.items() if k in fields.split(",")}
    return {"book": book, "request_id": x_request_id}


@app.post("/books", operation_id="add_book", summary="Add a book", status_code=201)
def add_book(book: NewBook):
    new_id = max(BOOKS) + 1
    BOOKS[new_id] = {"id": new_id, "title": book.title, "tags": book.tags}
    return BOOKS[new_id]


@app.get("/books/{book_id}/cover", operation_id="get_cover", summary="The book's cover image",
         responses={200: {"content": {"image/png": {}}}})
def get_cover(book_id: int):
    return Response(content=b"\x89PNG\r\n\x1a\n" + bytes([book_id]), media_type="image/png")


@app.get("/me", operation_id="who_am_i", summary="Who the API thinks is calling")
def who_am_i(authorization: Optional[str] = Header(None)):
    if authorization != f"Bearer {TOKEN}":
        raise HTTPException(status_code=401, detail="not signed in")
    return {"user": "reader"}


sock = socket.socket()
sock.bind(("127.0.0.1", 0))
host, port = sock.getsockname()
print(f"listening on http://{host}:{port}", flush=True)
uvicorn.Server(uvicorn.Config(app, log_level="warning")).run(sockets=[sock])
