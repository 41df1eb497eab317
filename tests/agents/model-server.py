#!/usr/bin/env python3
"""model-server.py -- a scripted model server for egg's tests (python3 stdlib only).

Speaks both protocols of agents/llm.h on 127.0.0.1 and replays a fixture:

  POST /v1/chat/completions, /chat/completions   openai (chat completions)
  POST /v1/messages, /messages                    anthropic (Messages API)
  (any path ending in /chat/completions or /messages, so an api_base with a
  prefix such as http://127.0.0.1:PORT/proxy/v1 works too)

Usage:
  model-server.py --fixture FILE.json --port-file FILE [--log FILE]
                  [--expect-key-file FILE | --expect-key KEY] [--port N]

It binds 127.0.0.1 (port 0: an ephemeral one), then writes the port to
--port-file (atomically: wait for the file to appear), and serves until it is
killed (SIGTERM/SIGINT).  Requests are served in threads, so a client that gives
up on a stalled exchange and retries gets the next exchange at once.

FIXTURE FORMAT
--------------
A JSON file: either a list of exchanges, or an object {"exchanges": [...]}.
A fixture with an unknown key (a typo) is refused at start: the server exits
with status 1 and one line on stderr, before it writes the port file.
Each request takes the next unused exchange in order (an exchange with
"repeat": N serves N requests in a row).  Past the end: HTTP 500 with the
protocol's error body, message "fixture exhausted".  An exchange with "when"
is skipped by requests that do not meet it (the next matching one is taken, the
skipped one stays for later), so requests sent concurrently (seeds asked in
parallel) can each get their own answer whatever their order; when no unused
exchange matches: HTTP 500 "no fixture exchange left matches the request".

An exchange is an object; every field is optional:

  "name":     TEXT    a label, copied into the log (for reading failures)
  "comment":  TEXT    ignored
  "when":     {...}   which requests this exchange is for: the same checks
                      as "expect" (below); a request that fails them passes it
                      by (default: any request)
  "expect":   {...}   checks on the request, see below; if one fails the server
                      answers HTTP 418 with the reason as the error message and
                      logs "expect_failed": REASON (the exchange is consumed)
  "delay_s":  NUMBER  sleep this long before answering (a stall)
  "status":   INT     the HTTP status (default 200; 400 when "error" is given)
  "headers":  {NAME: VALUE}  extra response headers (e.g. {"Retry-After": "1"})
  "repeat":   INT     serve this exchange for N consecutive requests (default 1)

and what to answer, one of (first present wins, in this order):

  "body":     TEXT    sent verbatim (garbage, truncated JSON, HTML...)
  "json":     VALUE   sent as JSON, verbatim (any shape)
  "error":    TEXT    the protocol's error body carrying this message:
                      openai {"error": {"message", "type", "code"}},
                      anthropic {"type": "error", "error": {"type", "message"}}
  "reply":    TEXT    the model's answer, wrapped in the protocol of the request:
                      openai {"id", "object": "chat.completion", "model",
                      "choices": [{"index": 0, "message": {"role": "assistant",
                      "content": TEXT}, "finish_reason": STOP}], "usage":
                      {"prompt_tokens", "completion_tokens", "total_tokens"}};
                      anthropic {"id", "type": "message", "role": "assistant",
                      "model", "content": [{"type": "text", "text": TEXT}],
                      "stop_reason": STOP, "usage": {"input_tokens",
                      "output_tokens"}}
  "reply_parts": [TEXT, ...]  the same, with the content as several parts:
                      openai content [{"type": "text", "text": T}, ...],
                      anthropic one text block per part
  (none of them)      an empty reply ("")

with, for "reply" and "reply_parts":

  "stop":     TEXT    finish_reason / stop_reason (default "stop" for openai,
                      "end_turn" for anthropic); "length" or "max_tokens" to
                      play a reply cut at the token limit
  "usage":    {"input": N, "output": M} | null
                      the token counts (default: input = number of
                      whitespace-separated words in all messages and the system
                      prompt, output = words in the reply); null leaves the
                      usage field out of the answer
  "content_type": TEXT  the Content-Type (default application/json; for "body"
                      too, e.g. "text/html")
  "cut_after": INT    announce the full Content-Length but send only this many
                      bytes of the body, then close the connection (a transfer
                      cut mid-way; the client sees a network error)

"expect" checks (all optional; every string check is a plain substring):

  "protocol":  "openai" | "anthropic"    the endpoint the request used
  "path":      TEXT                      the exact request path
  "model":     TEXT                      the request's "model"
  "max_tokens": INT                      the request's "max_tokens"
  "roles":     [ROLE, ...]   the roles of the messages in order, the system
                             prompt included as "system" first (anthropic's
                             top-level "system" counts as one "system" message)
  "system_contains": [TEXT, ...]   in the system prompt (all system messages)
  "system_lacks":    [TEXT, ...]
  "last_user_contains": [TEXT, ...]  in the last user message
  "last_user_lacks":    [TEXT, ...]
  "contains":  [TEXT, ...]   anywhere in the messages (system included)
  "lacks":     [TEXT, ...]   nowhere in the messages
  "n_messages": INT          the number of messages, system prompt included
  "max_chars": INT           the messages (system prompt included) hold at
                             most this many characters (context management)
  "auth":      "match" | "absent" | "present" | "mismatch"
                             the key check (see --expect-key below)
  "header":    {NAME: VALUE} request headers that must have these values
                             (names case-insensitive)
  "request":   {FIELD: VALUE} top-level fields of the request body other than
                             messages and system (e.g. {"temperature": 0.2,
                             "max_completion_tokens": 100}); null: absent

A string in any "contains"/"lacks" list may also be given as {"regex": RE}
(Python re.search, DOTALL).

LOG (--log FILE): one JSON object per line per request, written before the
answer is sent (so a test can read it while a stall is in progress):

  {"n": REQUEST_NUMBER (0-based), "time": UNIX_SECONDS, "method": "POST",
   "path", "protocol": "openai"|"anthropic"|null, "model", "max_tokens",
   "temperature", "request": {the body's other top-level fields: model,
   max_tokens, temperature, ...}, "system": TEXT|null, "messages": [{"role", "content"}],
   "roles": [...] (system first when present), "auth": "absent" | "present" |
   "match" | "mismatch", "headers": {lower-case name: value} (authorization,
   x-api-key and api-key never logged), "exchange": INDEX|null, "name": the
   exchange's name|null, "status": the status answered, "expect_failed":
   REASON|null, "bad_json": true when the request body was not JSON}

"auth" is "absent" without an Authorization (Bearer) or x-api-key header;
with --expect-key/--expect-key-file it is "match" or "mismatch"; without, it
is "present".  The key itself is never written anywhere.  Message contents
given as a list of blocks are logged as their concatenated text.

Example: a two-turn search where the second prompt must carry stage 1's
decision but not its history:

  [{"name": "seed", "expect": {"roles": ["system", "user"],
                               "last_user_contains": ["structure"]},
    "reply": "```cuda\\n__global__ void k() {}\\n```"},
   {"status": 429, "headers": {"Retry-After": "1"}, "error": "slow down"},
   {"name": "tile", "expect": {"contains": ["decision:"], "lacks": ["attempt 3"]},
    "reply": "```json\\n{\\"bottleneck\\": \\"memory\\"}\\n```"}]
"""

import argparse
import json
import os
import re
import socketserver
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, HTTPServer

SECRET_HEADERS = ("authorization", "x-api-key", "api-key")


EXCHANGE_KEYS = {"name", "comment", "when", "expect", "delay_s", "status", "headers", "repeat",
                 "body", "json", "error", "reply", "reply_parts", "stop", "usage",
                 "content_type", "cut_after"}
EXPECT_KEYS = {"protocol", "path", "model", "max_tokens", "roles", "auth", "n_messages",
               "max_chars", "system_contains", "system_lacks", "last_user_contains",
               "last_user_lacks", "contains", "lacks", "header", "request"}


def validate(exchanges):
    """A sentence for the first mistake in a fixture (a typo in a key would
    otherwise pass silently), or None."""
    if not isinstance(exchanges, list):
        return "the fixture is neither a list nor {\"exchanges\": [...]}"
    for i, ex in enumerate(exchanges):
        if not isinstance(ex, dict):
            return "exchange %d is not an object" % i
        unknown = set(ex) - EXCHANGE_KEYS
        if unknown:
            return "exchange %d has unknown keys %s" % (i, sorted(unknown))
        for part in ("when", "expect"):
            checks = ex.get(part) or {}
            if not isinstance(checks, dict):
                return "exchange %d: %s is not an object" % (i, part)
            unknown = set(checks) - EXPECT_KEYS
            if unknown:
                return "exchange %d: %s has unknown checks %s" % (i, part, sorted(unknown))
    return None


class Fixture:
    """The exchanges and which of them are used, shared by the request threads."""

    def __init__(self, exchanges):
        self.slots = []  # exchange index per request it may serve, in order
        for i, ex in enumerate(exchanges):
            for _ in range(int(ex.get("repeat", 1))):
                self.slots.append(i)
        self.exchanges = exchanges
        self.used = [False] * len(self.slots)
        self.count = 0
        self.lock = threading.Lock()

    def take(self, info):
        """(request number, exchange index or None, why none).  The first
        unused exchange, in order, whose "when" (if any) the request meets."""
        with self.lock:
            n = self.count
            self.count += 1
            left = [k for k, used in enumerate(self.used) if not used]
            if not left:
                return n, None, "fixture exhausted"
            for k in left:
                when = self.exchanges[self.slots[k]].get("when")
                if when is None or check_expect(when, info) is None:
                    self.used[k] = True
                    return n, self.slots[k], None
            return n, None, "no fixture exchange left matches the request"

    def count_only(self):
        with self.lock:
            self.count += 1
            return self.count - 1


def block_text(content):
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        out = []
        for part in content:
            if isinstance(part, str):
                out.append(part)
            elif isinstance(part, dict) and isinstance(part.get("text"), str):
                out.append(part["text"])
        return "".join(out)
    return "" if content is None else json.dumps(content)


def protocol_of(path):
    p = path.split("?", 1)[0].rstrip("/")
    if p.endswith("/chat/completions"):
        return "openai"
    if p.endswith("/messages"):
        return "anthropic"
    return None


def normalize(req, protocol):
    """(system text or None, [{"role", "content"}] without the system for
    anthropic, the full role list with system first)."""
    msgs = []
    system_parts = []
    if protocol == "anthropic" and "system" in req:
        system_parts.append(block_text(req.get("system")))
    for m in req.get("messages") or []:
        if not isinstance(m, dict):
            continue
        role = m.get("role")
        text = block_text(m.get("content"))
        if role == "system":
            system_parts.append(text)
        msgs.append({"role": role, "content": text})
    system = "\n\n".join(system_parts) if system_parts else None
    roles = [m["role"] for m in msgs]
    if protocol == "anthropic" and "system" in req:
        roles = ["system"] + roles
    return system, msgs, roles


def matches(text, pattern):
    if isinstance(pattern, dict) and "regex" in pattern:
        return re.search(pattern["regex"], text, re.S) is not None
    return str(pattern) in text


def describe(pattern):
    if isinstance(pattern, dict) and "regex" in pattern:
        return "/%s/" % pattern["regex"]
    return repr(pattern)


def check_expect(expect, info):
    """The first failed expectation as a sentence, or None."""
    every = "\n".join(m["content"] for m in info["messages"])
    if info["system"] and not any(m["role"] == "system" for m in info["messages"]):
        every = info["system"] + "\n" + every
    users = [m["content"] for m in info["messages"] if m["role"] == "user"]
    last_user = users[-1] if users else ""
    system = info["system"] or ""
    simple = ("protocol", "path", "model", "max_tokens", "roles", "auth")
    for key in simple:
        if key in expect and expect[key] != info[key]:
            return "expected %s %s, got %s" % (key, json.dumps(expect[key]), json.dumps(info[key]))
    for name, value in (expect.get("request") or {}).items():
        got = info["request"].get(name)
        if got != value:
            return "expected request field %s %s, got %s" % (name, json.dumps(value),
                                                              json.dumps(got))
    if "n_messages" in expect and expect["n_messages"] != len(info["roles"]):
        return "expected %d messages, got %d" % (expect["n_messages"], len(info["roles"]))
    size = len(every)
    if "max_chars" in expect and size > expect["max_chars"]:
        return "the messages hold %d characters, more than %d" % (size, expect["max_chars"])
    lists = (("system_contains", system, True, "the system prompt"),
             ("system_lacks", system, False, "the system prompt"),
             ("last_user_contains", last_user, True, "the last user message"),
             ("last_user_lacks", last_user, False, "the last user message"),
             ("contains", every, True, "the messages"),
             ("lacks", every, False, "the messages"))
    for key, text, want, where in lists:
        for pattern in expect.get(key, []):
            if matches(text, pattern) != want:
                return "%s %s %s" % (where, "lacks" if want else "contains", describe(pattern))
    for name, value in (expect.get("header") or {}).items():
        got = info["all_headers"].get(name.lower())
        if got != value:
            shown = "<hidden>" if name.lower() in SECRET_HEADERS else json.dumps(got)
            return "expected header %s: %s, got %s" % (name, json.dumps(value), shown)
    return None


def count_words(text):
    return len((text or "").split())


def error_body(protocol, status, message):
    if protocol == "anthropic":
        kind = {400: "invalid_request_error", 401: "authentication_error",
                403: "permission_error", 404: "not_found_error",
                429: "rate_limit_error", 529: "overloaded_error"}.get(status, "api_error")
        return {"type": "error", "error": {"type": kind, "message": message}}
    kind = {401: "invalid_api_key", 404: "model_not_found",
            429: "rate_limit_exceeded"}.get(status, "server_error" if status >= 500
                                            else "invalid_request_error")
    return {"error": {"message": message, "type": kind, "param": None, "code": kind}}


def reply_body(protocol, ex, info, n):
    parts = ex.get("reply_parts")
    text = "".join(parts) if isinstance(parts, list) else str(ex.get("reply", ""))
    usage = ex.get("usage", {})
    if usage is not None:
        words_in = count_words(info["system"]) + sum(count_words(m["content"])
                                                     for m in info["messages"]
                                                     if m["role"] != "system"
                                                     or protocol == "openai")
        tin = int(usage.get("input", words_in))
        tout = int(usage.get("output", count_words(text)))
    model = info["model"] or "scripted"
    if protocol == "anthropic":
        blocks = [{"type": "text", "text": p} for p in parts] if isinstance(parts, list) \
            else [{"type": "text", "text": text}]
        body = {"id": "msg_scripted_%d" % n, "type": "message", "role": "assistant",
                "model": model, "content": blocks,
                "stop_reason": ex.get("stop", "end_turn"), "stop_sequence": None}
        if usage is not None:
            body["usage"] = {"input_tokens": tin, "output_tokens": tout}
        return body
    content = [{"type": "text", "text": p} for p in parts] if isinstance(parts, list) else text
    body = {"id": "chatcmpl-scripted-%d" % n, "object": "chat.completion",
            "created": int(time.time()), "model": model,
            "choices": [{"index": 0, "message": {"role": "assistant", "content": content},
                         "finish_reason": ex.get("stop", "stop")}]}
    if usage is not None:
        body["usage"] = {"prompt_tokens": tin, "completion_tokens": tout,
                         "total_tokens": tin + tout}
    return body


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "egg-model-server/1"

    def log_message(self, fmt, *args):  # the JSON log replaces the default one
        pass

    def auth_state(self):
        h = self.headers
        given = None
        auth = h.get("Authorization")
        if auth is not None:
            given = auth[7:] if auth.startswith("Bearer ") else auth
        elif h.get("x-api-key") is not None:
            given = h.get("x-api-key")
        if given is None:
            return "absent"
        if self.server.expect_key is None:
            return "present"
        return "match" if given == self.server.expect_key else "mismatch"

    def send(self, status, body_bytes, content_type, headers, cut_after=None):
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body_bytes)))
        for k, v in (headers or {}).items():
            self.send_header(k, str(v))
        if cut_after is not None:
            self.send_header("Connection", "close")
        self.end_headers()
        if cut_after is not None:
            self.wfile.write(body_bytes[:int(cut_after)])
            self.wfile.flush()
            self.close_connection = True
            return
        self.wfile.write(body_bytes)

    def do_GET(self):
        self.send(404, b'{"error": {"message": "POST only"}}', "application/json", {})

    def do_POST(self):
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        protocol = protocol_of(self.path)
        try:
            req = json.loads(raw.decode("utf-8"))
            bad_json = not isinstance(req, dict)
        except (ValueError, UnicodeDecodeError):
            req, bad_json = {}, True
        if bad_json:
            req = {}
        system, msgs, roles = normalize(req, protocol)
        headers = {k.lower(): v for k, v in self.headers.items()}
        info = {"path": self.path.split("?", 1)[0], "protocol": protocol,
                "model": req.get("model"), "max_tokens": req.get("max_tokens"),
                "system": system, "messages": msgs, "roles": roles,
                "auth": self.auth_state(), "all_headers": headers,
                "request": {k: v for k, v in req.items() if k not in ("messages", "system")}}
        n, idx, ex, failed = None, None, None, None
        if protocol is None:
            n = self.server.fixture.count_only()
            status, body, ctype, extra = 404, error_body("openai", 404, "no such endpoint: "
                                                         + info["path"]), None, {}
        else:
            n, idx, none_why = self.server.fixture.take(info)
            ex = self.server.fixture.exchanges[idx] if idx is not None else None
            if ex is None:
                status, body, ctype, extra = 500, error_body(protocol, 500, none_why), None, {}
            else:
                failed = check_expect(ex.get("expect") or {}, info)
        if failed:
            status, body, ctype, extra = 418, error_body(
                protocol, 418, "fixture expectation failed: " + failed), None, {}
        elif ex is not None:
            status, body, ctype, extra = self.answer(protocol, ex, info, n)
        entry = {"n": n, "time": time.time(), "method": "POST", "path": info["path"],
                 "protocol": protocol, "model": info["model"],
                 "max_tokens": info["max_tokens"], "temperature": req.get("temperature"),
                 "request": info["request"],
                 "system": system, "messages": msgs, "roles": roles, "auth": info["auth"],
                 "headers": {k: v for k, v in headers.items() if k not in SECRET_HEADERS},
                 "exchange": idx, "name": ex.get("name") if ex else None,
                 "status": status, "expect_failed": failed, "bad_json": bad_json}
        self.server.write_log(entry)
        if failed:
            sys.stderr.write("model-server: request %d: %s\n" % (n, failed))
        if ex is not None and not failed and ex.get("delay_s"):
            time.sleep(float(ex["delay_s"]))
        if isinstance(body, (dict, list)) or body is None:
            body = json.dumps(body).encode()
        elif isinstance(body, str):
            body = body.encode()
        try:
            self.send(status, body, ctype or "application/json", extra,
                      ex.get("cut_after") if ex is not None and not failed else None)
        except (BrokenPipeError, ConnectionResetError):
            self.close_connection = True  # the client gave up (a stall past its timeout)

    def answer(self, protocol, ex, info, n):
        headers = ex.get("headers") or {}
        ctype = ex.get("content_type")
        if "body" in ex:
            return int(ex.get("status", 200)), str(ex["body"]), ctype, headers
        if "json" in ex:
            return int(ex.get("status", 200)), json.dumps(ex["json"]), ctype, headers
        if "error" in ex:
            status = int(ex.get("status", 400))
            return status, error_body(protocol, status, str(ex["error"])), ctype, headers
        status = int(ex.get("status", 200))
        return status, reply_body(protocol, ex, info, n), ctype, headers


class Server(socketserver.ThreadingMixIn, HTTPServer):
    daemon_threads = True
    allow_reuse_address = True

    def __init__(self, addr, fixture, log_path, expect_key):
        super().__init__(addr, Handler)
        self.fixture = fixture
        self.expect_key = expect_key
        self.log_lock = threading.Lock()
        self.log = open(log_path, "a", encoding="utf-8") if log_path else None

    def write_log(self, entry):
        if not self.log:
            return
        with self.log_lock:
            self.log.write(json.dumps(entry) + "\n")
            self.log.flush()


def main():
    ap = argparse.ArgumentParser(description="scripted model server for egg's tests")
    ap.add_argument("--fixture", required=True)
    ap.add_argument("--port-file", required=True)
    ap.add_argument("--port", type=int, default=0)
    ap.add_argument("--log")
    ap.add_argument("--expect-key", help="prefer --expect-key-file: argv is public")
    ap.add_argument("--expect-key-file")
    args = ap.parse_args()
    try:
        with open(args.fixture, encoding="utf-8") as f:
            data = json.load(f)
    except (OSError, ValueError) as e:
        sys.exit("model-server: cannot read the fixture %s: %s" % (args.fixture, e))
    exchanges = data.get("exchanges", []) if isinstance(data, dict) else data
    problem = validate(exchanges)
    if problem:
        sys.exit("model-server: %s: %s" % (args.fixture, problem))
    key = args.expect_key
    if args.expect_key_file:
        with open(args.expect_key_file, encoding="utf-8") as f:
            key = f.readline().strip()
    server = Server(("127.0.0.1", args.port), Fixture(exchanges), args.log, key)
    tmp = args.port_file + ".tmp"
    with open(tmp, "w") as f:
        f.write("%d\n" % server.server_address[1])
    os.rename(tmp, args.port_file)
    try:
        server.serve_forever(poll_interval=0.1)
    except KeyboardInterrupt:
        pass


if __name__ == "__main__":
    import signal
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    main()
