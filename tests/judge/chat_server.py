"""A local chat-completions server for tests and benchmarks (127.0.0.1 only).

It speaks the OpenAI-compatible protocol (``POST .../chat/completions`` with a
bearer key) and answers with recorded, realistic replies in the formats real
models use: bare dict literals, fenced JSON, JSON inside prose, and malformed
replies. Faults can be injected by request number: ``"429"`` (with
``Retry-After``), ``"500"``, ``"drop"`` (connection closed without an answer),
``"slow"`` (answer after ``slow_seconds``), ``"garbage"`` (HTTP 200 with a
body that is not JSON), ``"trickle"`` (the answer's body sent one byte every
``trickle_seconds``: a server that never stops sending yet never finishes) and
``"usage=TEXT"`` (the answer's ``usage`` is the JSON text TEXT, e.g.
``usage="lots"``, or missing for ``usage=omit``); ``usage`` does the same for
every answer. ``encoding`` compresses every answer: ``"gzip"``,
``"deflate"`` (zlib-wrapped), ``"raw-deflate"`` (sent as ``deflate`` without
the zlib wrapper, as some servers do) or ``"br"`` (labelled so, but never
asked for).

Its 2AFC "model" is a brightness judge: it prefers the brighter of the two
stylised images, whatever their position, unless the style text asks
otherwise: a style containing ``LEFTY`` always answers left, ``UNREADABLE``
answers the final ArtCoT turn in prose (and the format reminder in JSON),
``HOPELESS`` never answers in a readable format.

It also speaks the batch protocol of OpenAI-compatible endpoints:
``POST /files`` (a JSONL upload), ``POST /batches``, ``GET /batches`` (list),
``GET /batches/{id}`` and ``GET /files/{id}/content``. A batch job answers
each line with the same model; ``batch_mode`` makes every job ``"partial"``
(every third request fails), ``"expire"`` (only the first half is answered),
``"fail"`` (the job fails validation) or ``"hold"`` (it stays in progress
until :meth:`ChatServer.release_batches`). ``GET /models`` lists the models.

Run ``python tests/judge/chat_server.py --latency 0.1`` to serve until
interrupted; it prints its base URL on the first line.
"""

from __future__ import annotations

import argparse
import base64
import email
import email.policy
import functools
import hashlib
import io
import json
import socket
import threading
import time
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

API_KEY = "test-key-0123456789"
MODEL = "judge-model"

ANALYSER = (
    "{{'style_reason': 'The {side} image carries the requested palette and brushwork "
    "across the whole surface; the other keeps photographic gradients in the sky.', "
    "'content_reason': 'Both keep the layout of the source; the {side} one keeps the "
    "outlines of the main figure sharper.', 'style_winner': {w}, 'content_winner': {w}}}"
)
CRITIC = (
    '```json\n{{"reflection": "The style calls for flat colour fields and clear contours. '
    "The {side} image has both; the other shows smeared edges and a colour cast in the "
    'corners. No large distortion in either."}}\n```'
)
SUMMARY_FORMATS = (
    "{{'winner': {w}}}",
    '```json\n{{"winner": {w}}}\n```',
    'After weighing the analysis, the answer is {{"winner": {w}}}.',
)
COT = (
    "{{'thinking': \"Let's think step by step. The {side} image renders the brushwork "
    "more evenly and keeps the figure intact, so it is the better artwork.\", 'winner': {w}}}"
)


def _texts(body: dict[str, Any]) -> tuple[str, list[str]]:
    """Last user text and the image URLs of the first user message."""
    msgs = body.get("messages", [])
    last = ""
    for m in reversed(msgs):
        if m.get("role") == "user":
            c = m.get("content")
            last = (
                c
                if isinstance(c, str)
                else " ".join(p.get("text", "") for p in c if p.get("type") == "text")
            )
            break
    images: list[str] = []
    for m in msgs:
        c = m.get("content")
        if m.get("role") == "user" and isinstance(c, list):
            images = [p["image_url"]["url"] for p in c if p.get("type") == "image_url"]
            if images:
                break
    return last, images


def _all_text(body: dict[str, Any]) -> str:
    out = []
    for m in body.get("messages", []):
        c = m.get("content")
        out.append(
            c
            if isinstance(c, str)
            else " ".join(p.get("text", "") for p in c if p.get("type") == "text")
        )
    return "\n".join(out)


def brighter_side(images: list[str]) -> int:
    """0 if the left candidate is brighter, 1 if the right one is (ties: left)."""
    return _brighter_side(tuple(images))


@functools.lru_cache(maxsize=64)
def _brighter_side(images: tuple[str, ...]) -> int:
    """:func:`brighter_side`, decoded once per set of images (each turn of a conversation
    and each rerun sends the same images again)."""
    from PIL import Image, ImageStat

    def load(url: str) -> Any:
        return Image.open(io.BytesIO(base64.b64decode(url.split(",", 1)[1]))).convert("L")

    if len(images) >= 3:
        left, right = load(images[1]), load(images[2])
    else:
        img = load(images[0])
        w, h = img.size
        top = int(h * 0.55)
        left = img.crop((0, top, w // 2, h))
        right = img.crop((w // 2, top, w, h))
    return 0 if ImageStat.Stat(left).mean[0] >= ImageStat.Stat(right).mean[0] else 1


def recorded_answer(body: dict[str, Any]) -> str:
    """The default "model": recorded 2AFC answers driven by the images and the style."""
    last, images = _texts(body)
    everything = _all_text(body)
    pick = int(hashlib.sha256(json.dumps(body, sort_keys=True).encode()).hexdigest(), 16)
    if "LEFTY" in everything:
        w = 0
    elif images:
        w = brighter_side(images)
    else:
        w = 0
    side = "left" if w == 0 else "right"
    if "could not be read" in last:
        if "HOPELESS" in everything:
            return "As I said, I prefer that one."
        return f'{{"winner": {w}}}'
    if "Step 1 of 3" in last:
        return ANALYSER.format(side=side, w=w)
    if "Step 2 of 3" in last:
        return CRITIC.format(side=side)
    if "Step 3 of 3" in last or "the better artwork overall? Reply" in last:
        if "UNREADABLE" in everything or "HOPELESS" in everything:
            return f"Overall I would go with the {side} one; it is more convincing."
        return SUMMARY_FORMATS[pick % len(SUMMARY_FORMATS)].format(w=w)
    if "step by step" in last:
        return COT.format(side=side, w=w)
    if "Answer with the letter" in last:  # multiple choice: a model with a habit
        return "A"
    return "I am not sure what you are asking."


def cheap_answer(body: dict[str, Any]) -> str:
    """Recorded 2AFC answers without decoding images (for throughput benchmarks)."""
    last, _ = _texts(body)
    w = len(body.get("messages", [])) // 2 % 2
    side = "left" if w == 0 else "right"
    if "Step 1 of 3" in last:
        return ANALYSER.format(side=side, w=w)
    if "Step 2 of 3" in last:
        return CRITIC.format(side=side)
    return SUMMARY_FORMATS[len(last) % len(SUMMARY_FORMATS)].format(w=w)


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: _Server

    def log_message(self, *args: Any) -> None:
        pass

    def setup(self) -> None:
        super().setup()
        with self.server.owner._lock:
            self.server.owner._connections.add(self.connection)

    def _send(self, status: int, payload: Any, headers: dict[str, str] | None = None) -> None:
        data = payload if isinstance(payload, bytes) else json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        for k, v in (headers or {}).items():
            self.send_header(k, v)
        self.end_headers()
        self.wfile.write(data)

    def _authorised(self) -> bool:
        owner = self.server.owner
        if owner.api_key and self.headers.get("Authorization") != f"Bearer {owner.api_key}":
            self._send(
                401,
                {
                    "error": {
                        "message": "Incorrect API key provided.",
                        "type": "invalid_request_error",
                        "code": "invalid_api_key",
                    }
                },
            )
            return False
        return True

    def do_GET(self) -> None:
        owner = self.server.owner
        path = self.path.split("?", 1)[0].rstrip("/")
        if not self._authorised():
            return
        if path.endswith("/models"):
            self._send(200, {"object": "list", "data": [{"id": m} for m in owner.models]})
        elif path.endswith("/batches"):
            with owner._lock:
                listed = [dict(b) for b in reversed(owner.batches.values())]
            self._send(200, {"object": "list", "data": listed})
        elif "/batches/" in path:
            batch = owner._batch_status(path.rsplit("/", 1)[1])
            self._send(*((200, batch) if batch else (404, {"error": {"message": "no batch"}})))
        elif path.endswith("/content") and "/files/" in path:
            file_id = path.split("/files/", 1)[1].rsplit("/", 1)[0]
            data = owner.files.get(file_id)
            if data is None:
                self._send(404, {"error": {"message": "no such file"}})
            else:
                self._send(200, data)
        else:
            self._send(404, {"error": {"message": f"no route {self.path}"}})

    def do_POST(self) -> None:
        owner = self.server.owner
        raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        path = self.path.rstrip("/")
        if path.endswith("/files"):
            if self._authorised():
                self._send(200, owner._upload(self.headers.get("Content-Type", ""), raw))
            return
        if path.endswith("/batches"):
            if self._authorised():
                status, created = owner._create_batch(json.loads(raw))
                if status == 200 and owner.lose_batch_answers > 0:
                    owner.lose_batch_answers -= 1  # the job exists; the answer is lost
                    self._send(500, {"error": {"message": "upstream timeout"}})
                else:
                    self._send(status, created)
            return
        if not path.endswith("/chat/completions"):
            self._send(404, {"error": {"message": f"no route {self.path}"}})
            return
        n = owner._count()
        if not self._authorised():
            return
        body = json.loads(raw)
        if body.get("model") not in owner.models:
            self._send(
                404,
                {
                    "error": {
                        "message": f"The model `{body.get('model')}` does not "
                        "exist or you do not have access to it.",
                        "code": "model_not_found",
                    }
                },
            )
            return
        fault = owner.faults.get(n)
        owner._enter()
        try:
            self._answer(owner, n, body, fault)
        finally:
            owner._leave()

    def _answer(self, owner: ChatServer, n: int, body: dict[str, Any], fault: str | None) -> None:
        if fault == "429":
            self._send(
                429,
                {"error": {"message": "Rate limit reached, retry later."}},
                {"Retry-After": f"{owner.retry_after:g}"},
            )
            return
        if fault == "500":
            self._send(500, {"error": {"message": "The server had an error."}})
            return
        if fault == "drop":
            self.close_connection = True
            try:
                self.connection.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            return
        if fault == "slow":
            time.sleep(owner.slow_seconds)
        if owner.latency:
            time.sleep(owner.latency)
        if fault == "garbage":
            self._send(200, b"<html>upstream proxy error</html>")
            return
        owner._answered(body)
        answer = completion(owner.responder, body, n, owner.token_factor, owner.reported_model)
        usage = fault[len("usage=") :] if fault and fault.startswith("usage=") else owner.usage
        payload = _with_usage(answer, usage)
        if fault == "trickle":
            self._trickle(owner, payload)
            return
        if owner.encoding is None:
            self._send(200, payload)
            return
        label, data = _compress(owner.encoding, payload)
        self._send(200, data, {"Content-Encoding": label})

    def _trickle(self, owner: ChatServer, payload: bytes) -> None:
        """Send *payload* one byte every ``trickle_seconds`` (its headers at once)."""
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.flush()
        for i in range(len(payload)):
            try:
                self.wfile.write(payload[i : i + 1])
                self.wfile.flush()
            except OSError:  # the client gave up
                break
            with owner._lock:
                owner.trickled += 1
            time.sleep(owner.trickle_seconds)
        self.close_connection = True


def _with_usage(answer: dict[str, Any], usage: str | None) -> bytes:
    """The JSON body of *answer*, its ``usage`` replaced by the JSON text *usage* (``"omit"``:
    left out; ``None``: as counted). The text goes in verbatim: ``1e400`` stays ``1e400``."""
    if usage is None:
        return json.dumps(answer).encode()
    rest = {k: v for k, v in answer.items() if k != "usage"}
    text = json.dumps(rest)
    if usage != "omit":
        text = text[:-1] + f', "usage": {usage}}}'
    return text.encode()


def _compress(encoding: str, data: bytes) -> tuple[str, bytes]:
    """(Content-Encoding label, body) of *data* compressed as *encoding*."""
    import gzip
    import zlib

    if encoding == "gzip":
        return "gzip", gzip.compress(data, 6)
    if encoding == "deflate":
        return "deflate", zlib.compress(data, 6)
    if encoding == "raw-deflate":
        z = zlib.compressobj(6, zlib.DEFLATED, -zlib.MAX_WBITS)
        return "deflate", z.compress(data) + z.flush()
    return encoding, data


def completion(
    responder: Callable[[dict[str, Any]], str],
    body: dict[str, Any],
    n: int,
    token_factor: float = 1.0,
    reported_model: str | None = None,
) -> dict:
    """The chat-completion object answering *body* (usage counted as a real server would).

    *token_factor* scales the prompt tokens reported (a server whose tokenizer
    counts more, or fewer, than a client can expect).
    """
    text = responder(body)
    prompt_tokens = int((len(json.dumps(body.get("messages", []))) // 40 + 85) * token_factor)
    return {
        "id": f"chatcmpl-{n}",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": reported_model or body["model"],  # a dated version, as real servers report
        "choices": [
            {"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}
        ],
        "usage": {
            "prompt_tokens": prompt_tokens,
            "completion_tokens": len(text.split()),
            "total_tokens": prompt_tokens + len(text.split()),
        },
    }


#: Seconds between two looks of the serving loop at a request to stop.
_POLL = 0.01


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 256
    owner: ChatServer

    def handle_error(self, request: Any, client_address: Any) -> None:
        # a client that went away (killed, timed out) is part of the tests
        pass


class ChatServer:
    """A threaded chat-completions server on 127.0.0.1 (use as a context manager).

    Parameters
    ----------
    responder : callable
        ``body -> reply text``; default :func:`recorded_answer`.
    latency : float
        Seconds every answer waits (simulating the model).
    api_key : str or None
        Required bearer key (``None``: no check).
    models : tuple of str
        Known model names; others get HTTP 404.
    faults : dict
        Request number (1-based, in arrival order) → fault kind.
    retry_after, slow_seconds : float
    trickle_seconds : float
        Pause after each byte of a ``"trickle"`` answer.
    usage : str or None
        The JSON text of every answer's ``usage`` (``"omit"``: none; ``None``:
        the tokens counted as a real server would).
    encoding : str or None
        Compression of every chat answer (see the module notes).
    token_factor : float, default 1
        Scales the prompt tokens every answer reports.
    """

    def __init__(
        self,
        responder: Callable[[dict[str, Any]], str] = recorded_answer,
        *,
        latency: float = 0.0,
        api_key: str | None = API_KEY,
        models: tuple[str, ...] = (MODEL,),
        faults: dict[int, str] | None = None,
        retry_after: float = 0.2,
        slow_seconds: float = 2.0,
        trickle_seconds: float = 0.2,
        usage: str | None = None,
        encoding: str | None = None,
        token_factor: float = 1.0,
    ) -> None:
        self.responder = responder
        self.token_factor = token_factor
        self.latency = latency
        self.api_key = api_key
        self.models = models
        self.faults = dict(faults or {})
        self.retry_after = retry_after
        self.slow_seconds = slow_seconds
        self.trickle_seconds = trickle_seconds
        self.usage = usage
        #: bytes of "trickle" answers sent so far
        self.trickled = 0
        self.encoding = encoding
        self.received = 0
        self.answered: list[dict[str, Any]] = []
        self.files: dict[str, bytes] = {}
        self.batches: dict[str, dict[str, Any]] = {}
        self.batch_mode = "ok"
        #: the ``model`` its answers report (default: the model asked for)
        self.reported_model: str | None = None
        #: POST /batches that create their job but answer HTTP 500 (an answer lost)
        self.lose_batch_answers = 0
        self.batch_lines = 0  # requests answered through batch jobs
        self.uploads = 0
        self._held: set[str] = set()
        self.active = 0
        self.max_active = 0
        self._lock = threading.Lock()
        self._connections: set[socket.socket] = set()
        self._httpd = _Server(("127.0.0.1", 0), _Handler)
        self._httpd.owner = self
        self._thread: threading.Thread | None = None

    @property
    def base_url(self) -> str:
        host, port = self._httpd.server_address[:2]
        return f"http://{host}:{port}/v1"

    def _count(self) -> int:
        with self._lock:
            self.received += 1
            return self.received

    def _enter(self) -> None:
        with self._lock:
            self.active += 1
            self.max_active = max(self.max_active, self.active)

    def _leave(self) -> None:
        with self._lock:
            self.active -= 1

    def _answered(self, body: dict[str, Any]) -> None:
        with self._lock:
            self.answered.append(body)

    # --- the batch protocol ---------------------------------------------------------------

    def _upload(self, content_type: str, raw: bytes) -> dict[str, Any]:
        message = email.message_from_bytes(
            b"Content-Type: " + content_type.encode() + b"\r\n\r\n" + raw,
            policy=email.policy.HTTP,
        )
        data = b""
        purpose = ""
        for part in message.iter_parts():
            name = part.get_param("name", header="content-disposition")
            if name == "file":
                data = part.get_payload(decode=True)
            elif name == "purpose":
                purpose = part.get_content().strip()
        with self._lock:
            self.uploads += 1
            file_id = f"file-{len(self.files) + 1}"
            self.files[file_id] = data
        return {"id": file_id, "object": "file", "bytes": len(data), "purpose": purpose}

    def _create_batch(self, req: dict[str, Any]) -> tuple[int, dict[str, Any]]:
        file_id = req.get("input_file_id")
        if file_id not in self.files:
            return 400, {"error": {"message": f"no file {file_id}"}}
        with self._lock:
            batch_id = f"batch_{len(self.batches) + 1}"
            lines = [ln for ln in self.files[file_id].decode().splitlines() if ln.strip()]
            self.batches[batch_id] = {
                "id": batch_id,
                "object": "batch",
                "endpoint": req.get("endpoint"),
                "input_file_id": file_id,
                "completion_window": req.get("completion_window"),
                "status": "validating",
                "created_at": int(time.time()),
                "request_counts": {"total": len(lines), "completed": 0, "failed": 0},
                "metadata": req.get("metadata"),
                "mode": self.batch_mode,
            }
            if self.batch_mode == "hold":
                self._held.add(batch_id)
        return 200, {k: v for k, v in self.batches[batch_id].items() if k != "mode"}

    def release_batches(self) -> None:
        """Let held batch jobs finish (they answer on the next poll)."""
        with self._lock:
            self._held.clear()

    def _batch_status(self, batch_id: str) -> dict[str, Any] | None:
        with self._lock:
            batch = self.batches.get(batch_id)
            if batch is None:
                return None
            if batch["status"] == "validating":
                batch["status"] = "in_progress"
            elif batch["status"] == "in_progress" and batch_id not in self._held:
                self._finish_batch(batch)
            return {k: v for k, v in batch.items() if k != "mode"}

    def _finish_batch(self, batch: dict[str, Any]) -> None:
        mode = batch["mode"]
        if mode == "fail":
            batch["status"] = "failed"
            batch["errors"] = {"data": [{"code": "invalid", "message": "the input is invalid"}]}
            return
        lines = [json.loads(ln) for ln in self.files[batch["input_file_id"]].decode().splitlines()]
        out, errors = [], []
        for i, line in enumerate(lines):
            if mode == "expire" and i >= len(lines) // 2:
                continue
            if mode == "partial" and i % 3 == 2:
                errors.append({"id": f"req_{i}", "custom_id": line["custom_id"], "response": {
                    "status_code": 500, "body": {"error": {"message": "server error"}}},
                    "error": None})  # fmt: skip
                continue
            self.batch_lines += 1
            answer = completion(self.responder, line["body"], i, self.token_factor,
                                self.reported_model)  # fmt: skip
            answer = json.loads(_with_usage(answer, self.usage))
            out.append({"id": f"req_{i}", "custom_id": line["custom_id"], "response": {
                "status_code": 200, "body": answer}, "error": None})  # fmt: skip
        for name, rows in (("output_file_id", out), ("error_file_id", errors)):
            if rows:
                file_id = f"file-{len(self.files) + 1}"
                self.files[file_id] = "".join(json.dumps(r) + "\n" for r in rows).encode()
                batch[name] = file_id
        batch["status"] = "expired" if mode == "expire" else "completed"
        batch["request_counts"] = {"total": len(lines), "completed": len(out),
                                   "failed": len(lines) - len(out)}  # fmt: skip

    def start(self) -> ChatServer:
        # stop() waits for the serving loop to look at its flag: it looks every 0.5 s by
        # default, which every test using a server would wait out
        self._thread = threading.Thread(
            target=self._httpd.serve_forever, kwargs={"poll_interval": _POLL}, daemon=True
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()

    def kill(self) -> None:
        """Stop as a killed process would: no new connection, the open ones cut."""
        self.stop()
        with self._lock:
            conns, self._connections = list(self._connections), set()
        for conn in conns:
            try:
                conn.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass

    def __enter__(self) -> ChatServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--latency", type=float, default=0.1)
    ap.add_argument("--no-key", action="store_true", help="accept requests without a key")
    ap.add_argument("--cheap", action="store_true", help="answer without decoding images")
    ap.add_argument("--usage", default=None, help="JSON text of every answer's usage ('omit')")
    ap.add_argument(
        "--fault", action="append", default=[], metavar="N=KIND",
        help="request N (1-based; '*': every request) answers with fault KIND (repeatable)",
    )  # fmt: skip
    ap.add_argument("--retry-after", type=float, default=0.2)
    ap.add_argument("--trickle-seconds", type=float, default=0.2)
    args = ap.parse_args()
    faults: dict[int, str] = {}
    for spec in args.fault:
        n, kind = spec.split("=", 1)
        faults.update(dict.fromkeys(range(1, 100_001), kind) if n == "*" else {int(n): kind})
    server = ChatServer(
        cheap_answer if args.cheap else recorded_answer,
        latency=args.latency,
        api_key=None if args.no_key else API_KEY,
        faults=faults,
        retry_after=args.retry_after,
        trickle_seconds=args.trickle_seconds,
        usage=args.usage,
    )
    print(server.base_url, flush=True)
    try:
        server._httpd.serve_forever()
    except KeyboardInterrupt:
        pass


if __name__ == "__main__":
    main()
