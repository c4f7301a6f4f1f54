import json, sys
from jsonschema import Draft202012Validator
sch = json.load(open(sys.argv[1]))
Draft202012Validator.check_schema(sch)
v = Draft202012Validator(sch)
errs = sorted(v.iter_errors(json.loads(sys.stdin.read())), key=lambda e: list(e.path))
for e in errs[:5]:
    print("%s: %s" % ("/".join(map(str, e.path)), e.message[:300]))
