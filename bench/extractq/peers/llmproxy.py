"""A counting pass-through proxy in front of Ollama, for the peer drivers.

The peers are pointed at this proxy instead of at Ollama; it forwards every
request unchanged and reads, from each reply, the counters Ollama itself
reports: prompt_eval_count / eval_count on the native API (/api/chat,
/api/generate, /api/embed) and usage.prompt_tokens / completion_tokens on the
OpenAI-compatible one (/v1/...). So calls, tokens and seconds are counted the
same way for every peer, from the server's replies, not from the peer's own
bookkeeping.
"""

import http.client
import json
import os
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import urlparse

CHAT_PATHS = ("/api/chat", "/api/generate", "/v1/chat/completions", "/v1/completions")
EMBED_PATHS = ("/api/embed", "/api/embeddings", "/v1/embeddings")


def upstream_from_env():
    host = os.environ.get("OLLAMA_HOST", "127.0.0.1:11434")
    if "://" not in host:
        host = "http://" + host
    u = urlparse(host)
    return u.hostname or "127.0.0.1", u.port or 11434


class Counters:
    def __init__(self):
        self.lock = threading.Lock()
        self.v = dict(llm_calls=0, prompt_tokens=0, completion_tokens=0, llm_seconds=0.0,
                      cut_at_bound=0, embed_calls=0, embed_tokens=0, errors=0)
        self.num_thread = {}  # the requests' options.num_thread ("unset" when absent): calls

    def saw_request(self, path, body):
        """Counts the num_thread option a chat or embedding request carries."""
        if not path.split("?")[0].endswith(CHAT_PATHS + EMBED_PATHS):
            return
        try:
            opts = json.loads(body or b"{}").get("options") or {}
        except (ValueError, AttributeError):
            opts = {}
        key = str(opts.get("num_thread", "unset")) if isinstance(opts, dict) else "unset"
        with self.lock:
            self.num_thread[key] = self.num_thread.get(key, 0) + 1

    def add(self, **kw):
        with self.lock:
            for k, x in kw.items():
                self.v[k] += x

    def snapshot(self):
        with self.lock:
            return dict(self.v)


def _records(body):
    """Every JSON object in a reply: one, NDJSON lines, or SSE data lines."""
    try:
        return [json.loads(body)]
    except ValueError:
        pass
    out = []
    for line in body.splitlines():
        line = line.strip()
        if line.startswith(b"data:"):
            line = line[5:].strip()
        if not line or line == b"[DONE]":
            continue
        try:
            out.append(json.loads(line))
        except ValueError:
            continue
    return out


def count(counters, path, status, body, seconds):
    path = path.split("?")[0]
    chat, embed = path.endswith(CHAT_PATHS), path.endswith(EMBED_PATHS)
    if not chat and not embed:
        return
    if status >= 400:
        counters.add(errors=1)
    prompt = completion = cut = 0
    for r in _records(body):
        if not isinstance(r, dict):
            continue
        usage = r.get("usage") or {}
        prompt = r.get("prompt_eval_count", usage.get("prompt_tokens", prompt)) or prompt
        completion = r.get("eval_count", usage.get("completion_tokens", completion)) or completion
        if r.get("done_reason") == "length":
            cut = 1
        for ch in r.get("choices") or []:
            if isinstance(ch, dict) and ch.get("finish_reason") == "length":
                cut = 1
    if chat:
        counters.add(llm_calls=1, prompt_tokens=prompt, completion_tokens=completion,
                     llm_seconds=seconds, cut_at_bound=cut)
    else:
        counters.add(embed_calls=1, embed_tokens=prompt)


class Proxy:
    """Start with Proxy(); .url is the address to give the peer; .close()."""

    def __init__(self):
        self.counters = Counters()
        up_host, up_port = upstream_from_env()
        counters = self.counters

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *a):
                pass

            def _forward(self):
                n = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(n) if n else None
                counters.saw_request(self.path, body)
                headers = {k: v for k, v in self.headers.items()
                           if k.lower() not in ("host", "content-length", "connection", "accept-encoding")}
                start = time.monotonic()
                conn = http.client.HTTPConnection(up_host, up_port, timeout=3600)
                try:
                    conn.request(self.command, self.path, body=body, headers=headers)
                    resp = conn.getresponse()
                    data = resp.read()
                finally:
                    conn.close()
                count(counters, self.path, resp.status, data, time.monotonic() - start)
                self.send_response(resp.status)
                for k, v in resp.getheaders():
                    if k.lower() not in ("transfer-encoding", "content-length", "connection"):
                        self.send_header(k, v)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            do_GET = do_POST = do_PUT = do_DELETE = do_HEAD = _forward

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()
        self.url = "http://127.0.0.1:%d" % self.server.server_address[1]

    def close(self):
        self.server.shutdown()
        self.server.server_close()


def diff(after, before):
    return {k: (round(after[k] - before[k], 3) if isinstance(after[k], float) else after[k] - before[k])
            for k in after}
