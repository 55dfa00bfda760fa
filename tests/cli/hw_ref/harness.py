"""Runs batches of requests through `ixa query` and collects mismatches."""
import json
import subprocess


class Harness:
    def __init__(self, ixa, verbose=False):
        self.ixa = ixa
        self.verbose = verbose
        self.failures = []
        self.counts = {}

    def run(self, requests):
        """requests: list of dicts -> list of response dicts (same order)."""
        if not requests:
            return []
        text = "".join(json.dumps(r) + "\n" for r in requests)
        proc = subprocess.run([self.ixa, "query", "-"], input=text.encode(),
                              capture_output=True, timeout=600)
        if proc.returncode not in (0, 1):
            raise RuntimeError("ixa query exited %d: %s" % (
                proc.returncode, proc.stderr.decode()[-2000:]))
        lines = proc.stdout.decode().splitlines()
        if len(lines) != len(requests):
            raise RuntimeError("%d responses for %d requests" % (len(lines), len(requests)))
        return [json.loads(l) for l in lines]

    def check(self, section, cases):
        """cases: list of (request, judge); judge(response) -> None or a
        description of the mismatch."""
        responses = self.run([c[0] for c in cases])
        n = 0
        for (req, judge), resp in zip(cases, responses):
            n += 1
            if not resp.get("ok") and resp.get("error", {}).get("code") == "internal":
                problem = "internal error: %s" % resp["error"].get("message")
            else:
                try:
                    problem = judge(resp)
                except Exception as e:  # a judge bug is a failure too
                    problem = "judge raised %r" % (e,)
            if problem:
                self.failures.append((section, req, resp, problem))
        self.counts[section] = self.counts.get(section, 0) + n
        return responses

    def report(self, out, limit=40):
        for section, req, resp, problem in self.failures[:limit]:
            out.write("[%s] %s\n  request:  %s\n  response: %s\n" % (
                section, problem, json.dumps(req), json.dumps(resp)[:600]))
        total = sum(self.counts.values())
        out.write("compared %d requests (%s); %d mismatches\n" % (
            total, ", ".join("%s %d" % kv for kv in sorted(self.counts.items())),
            len(self.failures)))
        return not self.failures
