#!/usr/bin/env python3
"""A file server on loopback for the remote-storage tests: GET and PUT of
files under ROOT, as a WebDAV-capable web server would answer them, or, by
MODE, a server that goes wrong:

  storage_server.py MODE ROOT
    files    GET serves ROOT/<path> (404 when absent), PUT writes it (201);
             the last Authorization header is kept in ROOT/authorization
    error    every request: HTTP 500
    garbage  every GET: 200 with a body that is not JSON; PUT: 201
    hang     every request: no answer for 30 s

Prints the port it listens on, then serves until killed.
"""
import http.server
import os
import sys
import time

MODE, ROOT = sys.argv[1], sys.argv[2]


class Handler(http.server.BaseHTTPRequestHandler):
    def log_message(self, *args):
        pass

    def answer(self, status, body=b""):
        self.send_response(status)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def path_on_disk(self):
        return os.path.join(ROOT, self.path.lstrip("/").replace("..", "_"))

    def do_GET(self):
        if MODE == "hang":
            time.sleep(30)
        if MODE == "error":
            return self.answer(500, b"internal error")
        if MODE == "garbage":
            return self.answer(200, b"<html>not a result</html>")
        p = self.path_on_disk()
        if not os.path.isfile(p):
            return self.answer(404)
        with open(p, "rb") as f:
            self.answer(200, f.read())

    def do_PUT(self):
        body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
        if MODE == "hang":
            time.sleep(30)
        if MODE == "error":
            return self.answer(500)
        with open(os.path.join(ROOT, "authorization"), "w") as f:
            f.write(self.headers.get("Authorization", ""))
        if MODE == "files":
            p = self.path_on_disk()
            os.makedirs(os.path.dirname(p), exist_ok=True)
            with open(p, "wb") as f:
                f.write(body)
        self.answer(201)


server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
print(server.server_port, flush=True)
server.serve_forever()
