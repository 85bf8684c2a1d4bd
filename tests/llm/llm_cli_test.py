#!/usr/bin/env python3
"""`kernelblaster llm ping` against a scripted server on loopback: every
fault of issue 14 ends in its documented outcome and line, usage and cost are
right, replay reproduces a recorded run, and the key is in no file written.

usage: llm_cli_test.py path/to/kernelblaster
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from fake_llm_server import (FakeLlmServer, anthropic_reply, anthropic_stream,  # noqa: E402
                             openai_reply, openai_stream)

TOOL = sys.argv[1]
KEY = "sk-kbtest-UNIQUE-MARKER-5d1c9e"
FAILURES = []


def check(cond, what):
    if not cond:
        FAILURES.append(what)
        print("FAIL:", what)


def ping(env, *args, timeout=30):
    t0 = time.monotonic()
    p = subprocess.run([TOOL, "llm", "ping", *args], env=env, capture_output=True, text=True, timeout=timeout)
    return p, time.monotonic() - t0


def ping_json(env, *args, timeout=30):
    p, elapsed = ping(env, "--json", *args, timeout=timeout)
    try:
        doc = json.loads(p.stdout)
    except ValueError:
        doc = {}
        check(False, "no JSON on stdout for %s: %r %r" % (args, p.stdout, p.stderr))
    return p, doc, elapsed


def main():
    work = tempfile.mkdtemp(prefix="kb-llm-cli-")
    try:
        run(work)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    if FAILURES:
        print("%d failure(s)" % len(FAILURES))
        return 1
    print("all LLM command-line checks passed")
    return 0


def run(work):
    prices = os.path.join(work, "prices.json")
    with open(prices, "w") as f:
        json.dump({"models": {"gpt-test": {"input": 2.0, "cached_input": 0.5, "output": 8.0},
                              "claude-test": {"input": 3.0, "cached_input": 0.3, "cache_write": 3.75, "output": 15.0}}}, f)
    env = {k: v for k, v in os.environ.items()
           if not k.startswith("KERNELBLASTER_") and k not in ("OPENAI_API_KEY", "ANTHROPIC_API_KEY")
           and "proxy" not in k.lower()}
    env.update({"HOME": work, "XDG_CACHE_HOME": os.path.join(work, "xdg"), "TMPDIR": work,
                "KERNELBLASTER_LLM_API_KEY": KEY, "KERNELBLASTER_LLM_PRICES": prices,
                "KERNELBLASTER_LLM_MODEL": "gpt-test", "KERNELBLASTER_LLM_CACHE_DIR": os.path.join(work, "cache")})

    usage_errors(env)
    with FakeLlmServer() as srv:
        env["KERNELBLASTER_LLM_BASE_URL"] = srv.base_url()
        host = "127.0.0.1:%d" % srv.port
        good_replies(srv, env)
        retries(srv, env)
        refusals(srv, env, host)
        broken_replies(srv, env, host)
        record_then_replay(srv, env, work)
    command_provider(env)
    key_in_no_file(work)


def usage_errors(env):
    p, _ = ping(env, "--temperature", "9")
    check(p.returncode == 2 and p.stderr.count("\n") == 1 and "temperature" in p.stderr, "bad temperature: %r" % p.stderr)
    p, _ = ping(env, "--bogus")
    check(p.returncode == 2 and p.stderr.count("\n") == 1, "unknown flag: %r" % p.stderr)
    p, _ = ping(dict(env, KERNELBLASTER_LLM_MODEL=""))
    check(p.returncode == 2 and "no LLM model" in p.stderr, "no model: %r" % p.stderr)
    p, _ = ping(env, "--model", "unpriced", "--max-run-usd", "1")
    check(p.returncode == 2 and "money cap needs a price" in p.stderr, "money cap without price: %r" % p.stderr)
    h = subprocess.run([TOOL, "llm", "ping", "--help"], capture_output=True, text=True)
    check(h.returncode == 0 and "--cache MODE" in h.stdout, "llm ping --help")
    n = subprocess.run([TOOL, "llm"], capture_output=True, text=True)
    check(n.returncode == 2, "llm without a subcommand exits 2")


def good_replies(srv, env):
    srv.set_script([{"status": 200, "body": openai_reply()}])
    p, doc, _ = ping_json(env, "--stream", "off")
    check(p.returncode == 0 and doc.get("outcome") == "ok" and doc.get("reply") == "pong", "openai plain: %r" % (doc,))
    check(doc.get("usage", {}).get("input") == 120 and doc["usage"].get("cached_input") == 100
          and doc["usage"].get("output") == 7, "openai usage %r" % doc.get("usage"))
    # 20 plain at $2, 100 cached at $0.50, 7 out at $8, per million
    check(abs(doc.get("cost_usd", -1) - (20 * 2.0 + 100 * 0.5 + 7 * 8.0) / 1e6) < 1e-12, "openai cost %r" % doc.get("cost_usd"))
    req = srv.requests[0]
    check(req["path"] == "/v1/chat/completions", "openai path %s" % req["path"])
    check(req["headers"].get("Authorization") == "Bearer " + KEY, "openai sends the key as a bearer token")
    body = json.loads(req["body"])
    check(body["model"] == "gpt-test" and body["stream"] is False and body["messages"][0]["role"] == "user", "openai body")

    srv.set_script([{"stream": openai_stream("streamed pong")}])
    p, doc, _ = ping_json(env)
    check(p.returncode == 0 and doc.get("reply") == "streamed pong" and doc["usage"]["output"] == 3,
          "openai stream: %r %r" % (doc, p.stderr))
    check(json.loads(srv.requests[0]["body"]).get("stream_options") == {"include_usage": True}, "stream_options")

    srv.set_script([{"status": 200, "body": anthropic_reply()}])
    p, doc, _ = ping_json(env, "--provider", "anthropic", "--model", "claude-test", "--stream", "off")
    check(p.returncode == 0 and doc.get("reply") == "pong" and doc["usage"]["input"] == 100
          and doc["usage"]["cached_input"] == 50 and doc["usage"]["cache_write"] == 30, "anthropic plain: %r" % (doc,))
    check(abs(doc["cost_usd"] - (20 * 3.0 + 50 * 0.3 + 30 * 3.75 + 5 * 15.0) / 1e6) < 1e-12, "anthropic cost")
    h = srv.requests[0]["headers"]
    check(srv.requests[0]["path"] == "/v1/messages" and h.get("x-api-key") == KEY
          and h.get("anthropic-version") == "2023-06-01", "anthropic path and headers")

    srv.set_script([{"stream": anthropic_stream("pong pong")}])
    p, _ = ping(env, "--provider", "anthropic", "--model", "claude-test")
    check(p.returncode == 0 and "reply:    pong pong" in p.stdout and "11 in" in p.stdout and "4 out" in p.stdout,
          "anthropic stream, text output: %r %r" % (p.stdout, p.stderr))


def retries(srv, env):
    srv.set_script([{"status": 429, "headers": {"Retry-After": "1"},
                     "body": json.dumps({"error": {"message": "slow down", "type": "requests", "code": "rate_limit_exceeded"}})},
                    {"status": 200, "body": openai_reply()}])
    p, doc, elapsed = ping_json(env, "--stream", "off")
    check(p.returncode == 0 and doc.get("attempts") == 2 and doc.get("waited_s") == 1.0 and elapsed >= 1.0,
          "429 with Retry-After 1: %r in %.2f s" % (doc, elapsed))

    srv.set_script([{"status": 500, "body": "internal"}, {"status": 200, "body": openai_reply()}])
    p, doc, _ = ping_json(env, "--stream", "off")
    check(p.returncode == 0 and doc.get("attempts") == 2 and 0.375 <= doc.get("waited_s", 0) <= 0.5,
          "500 then success, jittered 0.5 s backoff: %r" % (doc,))

    srv.set_script([{"status": 503, "body": "busy", "headers": {"retry-after-ms": "50"}}] * 3)
    p, doc, _ = ping_json(env, "--stream", "off", "--max-attempts", "3")
    check(p.returncode == 1 and doc.get("outcome") == "server_error_exhausted" and len(srv.requests) == 3
          and abs(doc.get("waited_s", 0) - 0.1) < 1e-9, "503 three times: %r" % (doc,))


def refusals(srv, env, host):
    srv.set_script([{"status": 401, "body": json.dumps({"error": {"message": "Incorrect API key provided: " + KEY,
                                                                  "type": "invalid_request_error", "code": "invalid_api_key"}})}])
    p, _ = ping(env, "--stream", "off")
    check(p.returncode == 1 and p.stderr == "kernelblaster: LLM provider refused the key (401 from %s)\n" % host
          and len(srv.requests) == 1 and p.stdout == "", "401: %r %r" % (p.stderr, p.stdout))

    srv.set_script([{"status": 429, "body": json.dumps({"error": {"message": "You exceeded your current quota",
                                                                  "type": "insufficient_quota", "code": "insufficient_quota"}})}] * 2)
    p, doc, _ = ping_json(env, "--stream", "off")
    check(p.returncode == 1 and doc.get("outcome") == "quota" and len(srv.requests) == 1
          and p.stderr == "kernelblaster: LLM provider refused for quota or billing (429 insufficient_quota from %s)\n" % host,
          "quota: %r" % p.stderr)

    srv.set_script([{"status": 400, "body": json.dumps({"type": "error", "error": {
        "type": "invalid_request_error", "message": "Your credit balance is too low to access the Anthropic API."}})}])
    p, doc, _ = ping_json(env, "--provider", "anthropic", "--model", "claude-test")
    check(p.returncode == 1 and doc.get("outcome") == "quota" and len(srv.requests) == 1, "anthropic billing: %r" % (doc,))


def broken_replies(srv, env, host):
    chunks = openai_stream("this stream stalls")
    srv.set_script([{"stream": chunks, "stall_after": 2}])
    p, doc, elapsed = ping_json(env, "--stall-timeout", "1")
    check(p.returncode == 1 and doc.get("outcome") == "stalled" and len(srv.requests) == 1 and elapsed < 1 + 5,
          "stall: %r in %.2f s" % (doc, elapsed))
    check(p.stderr == "kernelblaster: LLM stream stalled: nothing received for 1 s (%s)\n" % host, "stall line %r" % p.stderr)

    srv.set_script([{"hang": True}])
    p, doc, elapsed = ping_json(env, "--stall-timeout", "1")
    check(p.returncode == 1 and doc.get("outcome") == "stalled" and elapsed < 1 + 5,
          "no headers at all: %r in %.2f s" % (doc, elapsed))

    srv.set_script([{"status": 200, "body": '{"choices": [{"message": {"content": "cut'}])
    p, doc, _ = ping_json(env, "--stream", "off")
    check(p.returncode == 1 and doc.get("outcome") == "malformed_reply" and len(srv.requests) == 1, "malformed: %r" % (doc,))

    srv.set_script([{"stream": openai_stream("ends early")[:3]}])
    p, doc, _ = ping_json(env)
    check(p.returncode == 1 and doc.get("outcome") == "malformed_reply", "stream cut off: %r" % (doc,))

    srv.set_script([{"status": 200, "body": openai_reply("x" * 200000)}])
    p, doc, _ = ping_json(env, "--stream", "off", "--max-reply-bytes", "10000")
    check(p.returncode == 1 and doc.get("outcome") == "oversized"
          and p.stderr == "kernelblaster: LLM reply exceeds the 10000-byte cap (%s)\n" % host, "oversized: %r" % p.stderr)

    srv.set_script([{"status": 200, "body": openai_reply("half a kern", finish="length", completion=16)}])
    p, doc, _ = ping_json(env, "--stream", "off", "--max-tokens", "16")
    check(p.returncode == 1 and doc.get("outcome") == "truncated" and doc.get("reply") == "half a kern"
          and doc["usage"]["output"] == 16 and doc.get("cost_usd", 0) > 0
          and p.stderr == "kernelblaster: LLM reply cut off at max_tokens (16 output tokens)\n", "truncated: %r" % p.stderr)
    check(json.loads(srv.requests[0]["body"]).get("max_completion_tokens") == 16, "max tokens sent")


STABLE = ("outcome", "detail", "provider", "model", "reply", "finish", "usage", "cost_usd", "price_known", "cache_key")


def record_then_replay(srv, env, work):
    cache = os.path.join(work, "replay-cache")
    prompts = ["first prompt", "second prompt ünïcode ✓"]
    srv.set_script([{"stream": openai_stream("answer one")}, {"stream": openai_stream("answer two ✓")}])
    recorded = []
    for prompt in prompts:
        p, doc, _ = ping_json(env, "--cache", "record", "--cache-dir", cache, "--prompt", prompt)
        check(p.returncode == 0 and doc.get("from_cache") is False, "record %r" % (doc,))
        recorded.append(doc)
    files = snapshot(cache)
    check(len(files) == 2, "two cache entries recorded, got %d" % len(files))
    offline = dict(env, KERNELBLASTER_LLM_BASE_URL="http://127.0.0.1:9/v1")
    offline.pop("KERNELBLASTER_LLM_API_KEY")
    for prompt, want in zip(prompts, recorded):
        p, doc, _ = ping_json(offline, "--cache", "replay", "--cache-dir", cache, "--prompt", prompt)
        check(p.returncode == 0 and doc.get("from_cache") is True, "replay %r" % (doc,))
        check({k: doc.get(k) for k in STABLE} == {k: want.get(k) for k in STABLE},
              "replay differs:\n%r\n%r" % (doc, want))
    check(snapshot(cache) == files, "replay left the cache byte-identical")
    p, doc, _ = ping_json(offline, "--cache", "replay", "--cache-dir", cache, "--prompt", "never asked")
    check(p.returncode == 1 and doc.get("outcome") == "replay_miss", "replay miss: %r" % (doc,))
    srv.set_script([{"stream": openai_stream("auto")}])
    ping_json(env, "--cache", "auto", "--cache-dir", cache, "--prompt", "auto prompt")
    p, doc, _ = ping_json(env, "--cache", "auto", "--cache-dir", cache, "--prompt", "auto prompt")
    check(doc.get("from_cache") is True and doc.get("reply") == "auto" and len(srv.requests) == 1, "auto mode")


def snapshot(root):
    out = {}
    for d, _, names in os.walk(root):
        for n in names:
            with open(os.path.join(d, n), "rb") as f:
                out[os.path.relpath(os.path.join(d, n), root)] = f.read()
    return out


def command_provider(env):
    script = ("import json,os,sys; req=json.load(sys.stdin); "
              "leak=[k for k in os.environ if k.endswith('API_KEY')]; "
              "print(json.dumps({'text': 'cmd:' + req['messages'][0]['content'] + ':' + ','.join(leak), "
              "'usage': {'input': 4, 'output': 2}}))")
    cmd = "%s -c \"%s\"" % (sys.executable, script)
    p, doc, _ = ping_json(dict(env, OPENAI_API_KEY=KEY, ANTHROPIC_API_KEY=KEY), "--provider", "command", "--command", cmd,
                          "--prompt", "hi")
    check(p.returncode == 0 and doc.get("reply") == "cmd:hi:", "command provider (no key in its env): %r %r" % (doc, p.stderr))
    p, _ = ping(env, "--provider", "command", "--command", "exit 7")
    check(p.returncode == 1 and p.stderr == "kernelblaster: LLM command exit 7\n", "command failure: %r" % p.stderr)


def key_in_no_file(work):
    marker = KEY.encode()
    for d, _, names in os.walk(work):
        for n in names:
            path = os.path.join(d, n)
            with open(path, "rb") as f:
                check(marker not in f.read(), "the key marker is in %s" % path)


if __name__ == "__main__":
    sys.exit(main())
