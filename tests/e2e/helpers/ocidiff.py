# SPDX-License-Identifier: MIT
# ocidiff.py BEFORE AFTER: what cudaload-runtime did to a config.json, as
# lines the runtime suite checks: "inserted-only" when AFTER is BEFORE with
# one run of bytes put in (nothing else changed), the createContainer
# hooks' paths in order, and the cudaload hook's env.
import json, sys

before, after = open(sys.argv[1], "rb").read(), open(sys.argv[2], "rb").read()
pre = 0
while pre < min(len(before), len(after)) and before[pre] == after[pre]:
    pre += 1
suf = 0
while suf < min(len(before), len(after)) - pre and before[-1 - suf] == after[-1 - suf]:
    suf += 1
print("inserted-only" if pre + suf == len(before) else "changed-elsewhere")
c = json.loads(after)
hooks = c.get("hooks", {}).get("createContainer", [])
print("createContainer: " + " ".join(h["path"] for h in hooks))
for h in hooks:
    if "--oci-hook" in h.get("args", []):
        print("args: " + " ".join(h["args"]))
        print("env: " + " ".join(h.get("env", [])))
# the rest, as a runtime reads it: the same as before
b = json.loads(before)
for h in [h for h in hooks if "--oci-hook" in h.get("args", [])][-1:]:
    hooks.remove(h)
if "createContainer" not in b.get("hooks", {}):
    c.get("hooks", {}).pop("createContainer", None)
if "hooks" not in b:
    c.pop("hooks", None)
print("rest: " + ("the same" if c == b else "different"))
