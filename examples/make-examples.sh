#!/usr/bin/env bash
# Regenerates examples/ with the built CLI (run `npm run build` first):
#   examples/make-examples.sh
# A throwaway git project records a run, forks it at step 1, records a run journal,
# and exports a signed receipt with a throwaway key. Only the public key is kept:
# the private key is deleted with the throwaway project.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
cli="node $here/../dist/cli.js"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
export STEPCHAIN_AUDIT=off

cd "$work"
git init -q -b main project
cd project
git config user.name "stepchain example"
git config user.email "example@stepchain.invalid"
echo "# a project an agent works on" > README.md
git add README.md && git commit -q -m "initial"

agent=researcher
step() { # prompt tool_call tool_result
  printf '%s' "$1" | $cli append "$agent" --input - --model example-model-1 --prompt "$1" --tool-call "$2" --tool-result "$3" >/dev/null
}
step "List the failing tests" '{"name":"shell","args":["npm","test"]}' '"2 failing: parse.test.ts, verify.test.ts"'
echo "notes: parse fails on 1e400" > NOTES.md
step "Read the first failure" '{"name":"read_file","args":["test/parse.test.ts"]}' '"expected Infinity, got 1e400"'
step "Fix the float parser" '{"name":"edit","args":["src/parse.ts"]}' '"patched: overflow maps to Infinity"'
step "Re-run the tests" '{"name":"shell","args":["npm","test"]}' '"all tests pass"'

# A fork at step 1: a sibling worktree with the verified prefix [0..1], then one new step there.
fork_json="$($cli fork "$agent" --from-step 1 --label "try a rewrite" --json)"
fork_id="$(printf '%s' "$fork_json" | python3 -c 'import json,sys; print(json.load(sys.stdin)["fork_session_id"])')"
wt=".sdd/worktrees/$fork_id"
printf 'rewrite' | $cli append "$fork_id" --root "$wt" --input - --model example-model-1 --prompt "Rewrite the parser instead" \
  --tool-call '{"name":"edit","args":["src/parse.ts"]}' --tool-result '"rewritten with a lossless tokenizer"' >/dev/null

# A run journal: the adapter's capability, an event, and one (unflagged) provider-side mutation.
$cli run capability run-1 --adapter claude --capability observed >/dev/null
$cli run record run-1 --event session_start --data '{"agent":"researcher","model":"example-model-1"}' >/dev/null
$cli run mutation run-1 --agent "$agent" --kind memory_write --detail '{"before_size":0,"size":42,"key":"notes"}' >/dev/null

# A signed receipt; the key pair is throwaway.
$cli keygen -o "$work/example.key" --public "$work/example.pub" >/dev/null
$cli export "$agent" -o "$work/$agent.receipt.tar" --sign-key "$work/example.key" >/dev/null

# Copy the results into examples/ (journals, the fork's journal and session snapshot, the run, the receipt, the public key).
rm -rf "$here/.sdd" "$here/receipts" "$here/keys"
mkdir -p "$here/.sdd/runtime/journal/$agent" "$here/.sdd/runtime/journal/$fork_id" "$here/.sdd/runtime/sessions" "$here/.sdd/runs/run-1" "$here/receipts" "$here/keys"
cp ".sdd/runtime/journal/$agent/000000.jsonl" "$here/.sdd/runtime/journal/$agent/"
cp "$wt/.sdd/runtime/journal/$fork_id/000000.jsonl" "$here/.sdd/runtime/journal/$fork_id/"
cp "$wt/.sdd/runtime/sessions/$fork_id.json" "$here/.sdd/runtime/sessions/"
cp ".sdd/runs/run-1/journal.jsonl" "$here/.sdd/runs/run-1/"
cp "$work/$agent.receipt.tar" "$here/receipts/"
cp "$work/example.pub" "$here/keys/example.pub"
python3 - "$here" "$agent" "$fork_id" <<'PY'
import json, sys
here, agent, fork = sys.argv[1:]
heads = {}
for a in (agent, fork):
    last = open(f"{here}/.sdd/runtime/journal/{a}/000000.jsonl").read().splitlines()[-1]
    heads[a] = json.loads(last)["step_hash"]
open(f"{here}/expected-heads.json", "w").write(json.dumps(heads, indent=2, sort_keys=True) + "\n")
PY
$cli verify "$here/.sdd/runtime/journal/$agent/000000.jsonl"
$cli verify "$here/.sdd/runtime/journal/$fork_id/000000.jsonl"
$cli run verify "$here/.sdd/runs/run-1/journal.jsonl"
$cli receipt verify "$here/receipts/$agent.receipt.tar" --public-key "$here/keys/example.pub"
echo "examples regenerated (fork $fork_id)"
