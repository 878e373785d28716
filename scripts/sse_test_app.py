"""The event streams Courier's streaming tests read, served by sse-starlette (PyPI) under uvicorn.

Started by scripts/sse-test-server. Every stream but /no-line-end and /ndjson is made by sse-starlette's
EventSourceResponse, so the bytes on the wire are its encoding of the events, not Courier's idea of them.
"""
import asyncio
import json

from sse_starlette.sse import EventSourceResponse, ServerSentEvent
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Route

# The Last-Event-ID headers /resume received, by ?stream= and in order (None for a request without one).
seen_last_event_ids = {}


def separator(request: Request):
    return {"crlf": "\r\n", "cr": "\r", "lf": "\n"}[request.query_params.get("sep", "lf")]


async def multiline(request: Request):
    """A multi-line event with a type and an id, a comment, an event with retry only, an event with an empty id."""
    async def events():
        yield ServerSentEvent(data="line one\nline two", event="greeting", id="1")
        yield ServerSentEvent(comment="a comment the client ignores")
        yield ServerSentEvent(data="plain", retry=1500)
        yield ServerSentEvent(data="after an empty id", id="")
    return EventSourceResponse(events(), sep=separator(request))


async def resume(request: Request):
    """Events 1-3, then a dropped connection; with Last-Event-ID 3, events 4-6 and an end; then 204: stop."""
    last = request.headers.get("last-event-id")
    seen_last_event_ids.setdefault(request.query_params.get("stream", ""), []).append(last)
    if last == "6":
        return Response(status_code=204)

    async def events():
        start = 4 if last == "3" else 1
        for number in range(start, start + 3):
            yield ServerSentEvent(data=json.dumps({"n": number}), event="tick", id=str(number), retry=100)
        if start == 1:
            raise RuntimeError("the connection drops here, before the stream's end")
    return EventSourceResponse(events())


async def seen(request: Request):
    return JSONResponse(seen_last_event_ids.get(request.query_params.get("stream", ""), []))


async def many(request: Request):
    count = int(request.query_params.get("count", "100000"))
    payload = "x" * int(request.query_params.get("size", "64"))

    async def events():
        for number in range(count):
            yield ServerSentEvent(data=payload, id=str(number))
            # A send to a client that has gone does not suspend: without a pause now and then, a stream that does
            # not end would hold the event loop, and uvicorn would never see the disconnect.
            if number % 64 == 0:
                await asyncio.sleep(0)
    return EventSourceResponse(events())


async def no_line_end(request: Request):
    """An event stream whose one line never ends (until 256 MiB)."""
    async def body():
        yield b"data: "
        for _ in range(4096):
            yield b"x" * 65536
            await asyncio.sleep(0)
    return StreamingResponse(body(), media_type="text/event-stream")


async def ndjson(request: Request):
    """COUNT JSON lines, CRLF-ended when ?crlf=1, the last one without a line end, a blank line in the middle."""
    count = int(request.query_params.get("count", "5"))
    end = "\r\n" if request.query_params.get("crlf") == "1" else "\n"

    async def body():
        for number in range(count):
            line = json.dumps({"n": number, "text": f"line {number} \u00e9"})
            yield (line + (end if number < count - 1 else "")).encode()
            if number == count // 2:
                yield end.encode()
    return StreamingResponse(body(), media_type="application/x-ndjson")


app = Starlette(routes=[
    Route("/multiline", multiline), Route("/resume", resume), Route("/seen", seen), Route("/many", many),
    Route("/no-line-end", no_line_end), Route("/ndjson", ndjson),
])
