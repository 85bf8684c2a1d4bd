"""A scripted LLM server for the tests: 127.0.0.1, port 0, both protocols.

It answers requests in order from `script`, a list of replies:
  {"status": 200, "headers": {...}, "body": "..."}        a plain reply
  {"stream": ["chunk", ...], "stall_after": 2}           an SSE stream, sent
      chunked; with stall_after it sends that many chunks and then nothing
      until the server stops.
  {"hang": true}                                         no answer, not even headers.
Every request is kept in `requests` (path, headers, body) for the test to
inspect; nothing is written to disk.
"""
import http.server
import json
import sys
import threading


class _Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):  # quiet
        pass

    def do_POST(self):
        length = int(self.headers.get("Content-Length", "0"))
        body = self.rfile.read(length).decode("utf-8", "replace")
        server = self.server.owner
        with server.lock:
            server.requests.append({"path": self.path, "headers": dict(self.headers), "body": body})
            reply = server.script.pop(0) if server.script else {"status": 500, "body": "script ran out"}
        if reply.get("hang"):  # accept the request, then answer nothing at all
            server.stop_event.wait(30)
            return
        if "stream" in reply:
            self._stream(reply)
        else:
            self._plain(reply)

    def _plain(self, reply):
        data = reply.get("body", "").encode()
        self.send_response(reply.get("status", 200))
        for k, v in reply.get("headers", {}).items():
            self.send_header(k, v)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def _stream(self, reply):
        self.send_response(reply.get("status", 200))
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Transfer-Encoding", "chunked")
        self.send_header("Connection", "close")
        self.end_headers()
        stall_after = reply.get("stall_after")
        try:
            for i, chunk in enumerate(reply["stream"]):
                if stall_after is not None and i == stall_after:
                    self.server.owner.stop_event.wait(30)  # bounded even if nobody stops us
                    return
                data = chunk.encode()
                self.wfile.write(b"%x\r\n%s\r\n" % (len(data), data))
                self.wfile.flush()
            self.wfile.write(b"0\r\n\r\n")
        except (BrokenPipeError, ConnectionResetError):
            pass
        self.close_connection = True


class _Server(http.server.ThreadingHTTPServer):
    daemon_threads = True

    def handle_error(self, request, client_address):
        # a client that hangs up (a stalled stream it gave up on, a keep-alive
        # connection it closed) is part of the tests, not an error
        if not isinstance(sys.exc_info()[1], (ConnectionResetError, BrokenPipeError)):
            super().handle_error(request, client_address)


class FakeLlmServer:
    def __init__(self):
        self.script = []
        self.requests = []
        self.lock = threading.Lock()
        self.stop_event = threading.Event()
        self.httpd = _Server(("127.0.0.1", 0), _Handler)
        self.httpd.owner = self
        self.port = self.httpd.server_address[1]
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *exc):
        self.stop()

    def stop(self):
        self.stop_event.set()
        self.httpd.shutdown()
        self.httpd.server_close()
        self.thread.join(10)

    def base_url(self):
        return "http://127.0.0.1:%d/v1" % self.port

    def set_script(self, replies):
        with self.lock:
            self.script = list(replies)
            self.requests = []


# Replies in each protocol's shape.

def openai_reply(text="pong", finish="stop", prompt=120, completion=7, cached=100, model="gpt-test-1"):
    return json.dumps({"id": "chatcmpl-1", "object": "chat.completion", "model": model,
                       "choices": [{"index": 0, "message": {"role": "assistant", "content": text},
                                    "finish_reason": finish}],
                       "usage": {"prompt_tokens": prompt, "completion_tokens": completion,
                                 "total_tokens": prompt + completion,
                                 "prompt_tokens_details": {"cached_tokens": cached}}})


def openai_stream(text="pong", model="gpt-test-1"):
    events = [{"model": model, "choices": [{"delta": {"role": "assistant", "content": ""}, "finish_reason": None}]}]
    for piece in (text[: len(text) // 2], text[len(text) // 2:]):
        events.append({"choices": [{"delta": {"content": piece}, "finish_reason": None}]})
    events.append({"choices": [{"delta": {}, "finish_reason": "stop"}]})
    events.append({"choices": [], "usage": {"prompt_tokens": 12, "completion_tokens": 3,
                                            "prompt_tokens_details": {"cached_tokens": 0}}})
    chunks = ["data: %s\n\n" % json.dumps(e) for e in events] + ["data: [DONE]\n\n"]
    # cut the bytes across event boundaries, as a network does
    joined = "".join(chunks)
    return [joined[i:i + 37] for i in range(0, len(joined), 37)]


def anthropic_reply(text="pong", stop="end_turn", model="claude-test-1"):
    return json.dumps({"id": "msg_1", "type": "message", "role": "assistant", "model": model,
                       "content": [{"type": "text", "text": text}], "stop_reason": stop,
                       "usage": {"input_tokens": 20, "output_tokens": 5,
                                 "cache_creation_input_tokens": 30, "cache_read_input_tokens": 50}})


def anthropic_stream(text="pong", model="claude-test-1"):
    def ev(name, data):
        return "event: %s\r\ndata: %s\r\n\r\n" % (name, json.dumps(data))
    return [
        ev("message_start", {"type": "message_start", "message": {"model": model, "usage": {"input_tokens": 11, "output_tokens": 1}}}),
        ev("content_block_start", {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}}),
        ev("ping", {"type": "ping"}),
        ev("content_block_delta", {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": text[:2]}}),
        ev("content_block_delta", {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": text[2:]}}),
        ev("content_block_stop", {"type": "content_block_stop", "index": 0}),
        ev("message_delta", {"type": "message_delta", "delta": {"stop_reason": "end_turn"}, "usage": {"output_tokens": 4}}),
        ev("message_stop", {"type": "message_stop"}),
    ]
