#!/usr/bin/env python3
# browse.py BROWSER INDEX.html -- loads egg report's page in a real headless
# browser (Chromium's engine, driven over the DevTools protocol on a pipe, so one
# browser process serves every page: a few seconds in all) and prints, as JSON,
# what the DOM the browser built holds:
#   {"index": PAGE, "pages": {HREF: PAGE, ...}}
# PAGE = {"title", "h1", "scripts" (script elements), "links": [{"href", "text",
# "in": "table" | "chart" | "other"}], "text" (the body's text), "code" (the text
# of #winner-code, or null), "images" (img elements)} where HREF is each
# distinct link target of the index, resolved to an absolute file:// URL.
# BROWSER is chromium-headless-shell or chromium (run with --headless).
import json
import os
import subprocess
import sys
import time

PROBE = r"""(() => {
  const links = Array.from(document.querySelectorAll('a')).map(a => ({
    href: a.href && a.href.baseVal !== undefined ? new URL(a.href.baseVal, document.baseURI).href
                                                 : a.href,
    text: a.textContent,
    in: a.closest('table') ? 'table' : a.closest('svg') ? 'chart' : 'other'}));
  const code = document.getElementById('winner-code');
  return {title: document.title, scripts: document.querySelectorAll('script').length,
          images: document.querySelectorAll('img').length,
          h1: (document.querySelector('h1') || {}).textContent || null,
          links: links, text: document.body ? document.body.innerText : '',
          code: code ? code.textContent : null};
})()"""


class Browser:
    def __init__(self, exe, profile):
        to_child_r, self.to_child = os.pipe()
        self.from_child, from_child_w = os.pipe()
        argv = [exe, "--no-sandbox", "--disable-gpu", "--remote-debugging-pipe",
                "--user-data-dir=" + profile, "about:blank"]
        if os.path.basename(exe) != "chromium-headless-shell":
            argv.insert(1, "--headless")

        def fds():  # the protocol's pipes are the child's fds 3 and 4
            os.dup2(to_child_r, 3)
            os.dup2(from_child_w, 4)
        self.proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                     stderr=subprocess.DEVNULL, preexec_fn=fds, pass_fds=(3, 4))
        os.close(to_child_r)
        os.close(from_child_w)
        self.buf = b""
        self.next_id = 0

    def call(self, method, params=None, session=None):
        self.next_id += 1
        msg = {"id": self.next_id, "method": method, "params": params or {}}
        if session:
            msg["sessionId"] = session
        os.write(self.to_child, json.dumps(msg).encode() + b"\0")
        while True:
            while b"\0" not in self.buf:
                chunk = os.read(self.from_child, 1 << 16)
                if not chunk:
                    raise SystemExit("the browser closed the protocol pipe")
                self.buf += chunk
            line, self.buf = self.buf.split(b"\0", 1)
            reply = json.loads(line)
            if reply.get("id") == self.next_id:
                if "error" in reply:
                    raise SystemExit("%s: %s" % (method, reply["error"]))
                return reply["result"]

    def page(self, url):
        target = self.call("Target.createTarget", {"url": url})["targetId"]
        session = self.call("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
        # loaded: the document at url, complete, with its body built (a loaded
        # run once read "complete" at url from a document with the title and
        # an empty body, and the test failed on it); a page that never gets a
        # body fails here after 10 s, as one that never loads
        ready = ("document.readyState === 'complete' && location.href === %s && "
                 "!!document.body && document.body.childElementCount > 0" % json.dumps(url))
        deadline = time.time() + 10
        while True:
            state = self.call("Runtime.evaluate", {"expression": ready, "returnByValue": True},
                              session)
            if state["result"].get("value") is True:
                break
            if time.time() > deadline:
                raise SystemExit("%s did not load" % url)
            time.sleep(0.02)
        got = self.call("Runtime.evaluate", {"expression": PROBE, "returnByValue": True}, session)
        self.call("Target.closeTarget", {"targetId": target})
        return got["result"]["value"]

    def close(self):
        try:
            self.call("Browser.close")
        except SystemExit:
            pass
        try:
            self.proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self.proc.kill()


def main():
    exe, index = sys.argv[1], os.path.abspath(sys.argv[2])
    b = Browser(exe, os.path.join(os.path.dirname(index), ".browser-profile"))
    try:
        top = b.page("file://" + index)
        pages = {}
        for link in top["links"]:
            if link["href"] not in pages:
                pages[link["href"]] = b.page(link["href"])
    finally:
        b.close()
    json.dump({"index": top, "pages": pages}, sys.stdout, indent=1)


main()
